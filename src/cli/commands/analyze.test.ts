import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { runAnalyze } from "./analyze";
import { nsecOf, readStamp } from "../../messages";
import { parseConfig } from "../../pipeline";
import { openRecording, ArrayByteSource, type RecordedMessage } from "../../recording";
import { openRecordingFile } from "../../recording/node";
import { HUSKY_BAG, REPO_ROOT } from "../../recording/testing/paths";
import { suiteTempDir } from "../../testing/tempDir";
import { CliError } from "../CliError";
import { runCli, type CliRun } from "../testing/runCli";

async function run(args: string[], stdin?: string): Promise<CliRun> {
  return await runCli(args, { stdin, env: { LOCKSTEP_DEMO_SKIP_PACKAGE: "1" } });
}

const HUSKY_CONFIG = join(REPO_ROOT, "config/husky.json");

describe("lockstep analyze", () => {
  const tmp = suiteTempDir("lockstep-analyze-");

  it("husky-2015.bag: the same number of tuples as `lockstep replay` on the recording's stamps", async () => {
    const out = join(tmp.path, "husky");
    const analyzed = await run(["analyze", HUSKY_BAG, "--config", HUSKY_CONFIG, "--out", out]);
    expect(analyzed.stderr).toBe("");
    expect(analyzed.code).toBe(0);
    expect(analyzed.stdout).toMatch(/tuples: \d+/);
    const summary = JSON.parse(await readFile(join(out, "summary.json"), "utf8")) as {
      tuples: number;
      topics: Record<string, { messages: number }>;
      drops: Record<string, number>;
      timespan: { min: number; median: number; p95: number; max: number };
      fusion: { drops: Record<string, number> };
    };
    expect(summary.topics["/imu/data"]!.messages).toBe(11865);
    expect(summary.topics["/husky_velocity_controller/odom"]!.messages).toBe(3952);
    expect(summary.topics["/fix"]!.messages).toBe(989);
    expect(summary.timespan.min).toBeLessThanOrEqual(summary.timespan.median);
    const tupleLines = (await readFile(join(out, "tuples.jsonl"), "utf8")).trim().split("\n");
    expect(tupleLines.length).toBe(summary.tuples);
    const dropLines = (await readFile(join(out, "drops.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { topic: string; stamp: string | null; reason: string; stage: string; sensor?: string });
    const syncDrops = dropLines.filter((d) => d.stage === "sync");
    expect(syncDrops.length).toBe(Object.values(summary.drops).reduce((a, b) => a + b, 0));
    // Every line is a sync or a fusion drop; fusion drops are counted in summary.json's fusion.drops.
    const fusionDrops = dropLines.filter((d) => d.stage === "fusion");
    expect(syncDrops.length + fusionDrops.length).toBe(dropLines.length);
    expect(fusionDrops.length).toBe(Object.values(summary.fusion.drops).reduce((a, b) => a + b, 0));

    // the replay trace: header stamps of the three inputs, in receive order
    const config = JSON.parse(await readFile(HUSKY_CONFIG, "utf8")) as { inputs: { topic: string }[]; policy: unknown };
    const slotOf = new Map(config.inputs.map((i, slot) => [i.topic, slot]));
    const lines: string[] = [];
    // fuse's fixed-lag smoother starts at the ignition transaction, stamped with the receive time
    // of the first message (the runner's clock); measurements of the fused sensors (IMU, wheel
    // odometry) stamped before it are dropped as too-late (reference/fuse.md, start time).
    let startNs: bigint | undefined;
    const expectedFusionDrops: { topic: string; stamp: string; reason: string; stage: string; sensor: string }[] = [];
    const sensorOf = new Map([
      ["/imu/data", "imu"],
      ["/husky_velocity_controller/odom", "wheel_odometry"],
    ]);
    const recording = await openRecordingFile(HUSKY_BAG);
    for await (const m of recording.messages({ topics: [...slotOf.keys()] })) {
      const s = readStamp(m.message) as { sec: number; nsec: number };
      const stampNs = BigInt(s.sec) * 1_000_000_000n + BigInt(nsecOf(s));
      startNs ??= BigInt(m.receiveTime.sec) * 1_000_000_000n + BigInt(m.receiveTime.nsec);
      const sensor = sensorOf.get(m.topic);
      if (sensor != undefined && stampNs < startNs) {
        expectedFusionDrops.push({ topic: m.topic, stamp: stampNs.toString(), reason: "too-late", stage: "fusion", sensor });
      }
      lines.push(JSON.stringify({ slot: slotOf.get(m.topic), stamp: stampNs.toString() }));
    }
    await recording.close();
    // The IMU is stamped about 25 ms before receipt: its first two messages precede the start.
    expect(expectedFusionDrops.length).toBe(2);
    expect(fusionDrops.map(({ topic, stamp, reason, stage, sensor }) => ({ topic, stamp, reason, stage, sensor }))).toEqual(
      expectedFusionDrops,
    );
    expect(analyzed.stdout).toMatch(/^fusion drops: too-late 2$/m);
    const replayed = await run(["replay", "--config", JSON.stringify({ slots: 3, policy: config.policy })], `${lines.join("\n")}\n`);
    expect(replayed.code).toBe(0);
    const replayTuples = replayed.stdout.split("\n").filter((l) => l.startsWith('{"tuple"'));
    expect(replayTuples.length).toBe(summary.tuples);
    // and the very same stamps, tuple by tuple
    const analyzedStamps = tupleLines.map((l) => (JSON.parse(l) as { stamps: string[] }).stamps);
    expect(replayTuples.map((l) => (JSON.parse(l) as { tuple: string[] }).tuple)).toEqual(analyzedStamps);
  });

  it("synchronized.mcap round trip: every tuple's messages come back under /lockstep with their schemas", async () => {
    const out = join(tmp.path, "roundtrip");
    const result = await runAnalyze({ file: HUSKY_BAG, config: parseConfig(JSON.parse(await readFile(HUSKY_CONFIG, "utf8"))), out, progress: false });
    expect(result.error).toBeUndefined();
    const tuples = (await readFile(join(out, "tuples.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { stamps: string[]; topics: string[] });
    const recording = await openRecording(new ArrayByteSource(new Uint8Array(await readFile(join(out, "synchronized.mcap")))));
    expect(recording.info.format).toBe("mcap");
    expect(recording.info.profile).toBe("ros1");
    // (the JSON result channels beside them: ResultChannels.test.ts)
    expect(recording.info.channels.filter((c) => c.messageEncoding !== "json").map((c) => [c.topic, c.schemaName, c.schemaEncoding, c.messageEncoding]).sort()).toEqual([
      ["/lockstep/fix", "sensor_msgs/NavSatFix", "ros1msg", "ros1"],
      ["/lockstep/husky_velocity_controller/odom", "nav_msgs/Odometry", "ros1msg", "ros1"],
      ["/lockstep/imu/data", "sensor_msgs/Imu", "ros1msg", "ros1"],
    ]);
    // group messages back into tuples by their header stamps, in file order
    const read: RecordedMessage[] = [];
    for await (const m of recording.messages({ topics: ["/lockstep/imu/data", "/lockstep/husky_velocity_controller/odom", "/lockstep/fix"] })) {
      read.push(m);
    }
    expect(read.length).toBe(tuples.length * 3);
    const stampOf = (m: RecordedMessage): string => {
      const s = readStamp(m.message) as { sec: number; nsec: number };
      return (BigInt(s.sec) * 1_000_000_000n + BigInt(s.nsec)).toString();
    };
    const byTuple = new Map<string, Map<string, string>>();
    for (const m of read) {
      const key = `${m.receiveTime.sec}.${m.receiveTime.nsec}`;
      const set = byTuple.get(key) ?? new Map<string, string>();
      set.set(m.topic, stampOf(m));
      byTuple.set(key, set);
    }
    const fromMcap = [...byTuple.values()].map((set) => ["/lockstep/imu/data", "/lockstep/husky_velocity_controller/odom", "/lockstep/fix"].map((t) => set.get(t)));
    const sortKey = (s: (string | undefined)[]): string => s.join(",");
    expect(fromMcap.map(sortKey).sort()).toEqual(tuples.map((t) => t.stamps).map(sortKey).sort());
  });

  it("config errors name their JSON path (exit 2)", async () => {
    const bad = join(tmp.path, "bad.json");
    await writeFile(bad, JSON.stringify({ inputs: [{ topic: "/imu/data" }], policy: { type: "fkie/approximate-time", maxTimespan: "fast" } }));
    const r = await run(["analyze", HUSKY_BAG, "--config", bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\/policy\/maxTimespan/);
    expect(r.stdout).toBe("");
    const missing = join(tmp.path, "missing-topic.json");
    await writeFile(missing, JSON.stringify({ inputs: [{ topic: "/imu/data" }, { topic: "/nope" }], policy: { type: "fkie/approximate-time" } }));
    const r2 = await run(["analyze", HUSKY_BAG, "--config", missing]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/\/inputs\/1\/topic: "\/nope" is not in/);
    // "publish" on a recording that stores no publish times: said before reading, not as a
    // no-header drop of every message.
    const publish = await run(["analyze", HUSKY_BAG, "--config", JSON.stringify({ inputs: [{ topic: "/imu/data", stamp: "publish" }, { topic: "/fix" }], policy: { type: "fkie/approximate-time" } })]);
    expect(publish.code).toBe(2);
    expect(publish.stderr).toMatch(/\/inputs\/0\/stamp: "publish" needs publish times, which \S+ does not store \(a ROS 1 bag stores receive times only\); leave "stamp" out to use the header stamp, or use "receive"/);
    // What the user most likely meant comes first, then the recording's topics.
    const guessed = await run(["analyze", HUSKY_BAG, "--config", JSON.stringify({ inputs: [{ topic: "/imu/data" }, { topic: "/odom" }], policy: { type: "fkie/approximate-time" } })]);
    expect(guessed.code).toBe(2);
    expect(guessed.stderr).toMatch(/\/inputs\/1\/topic: "\/odom" is not in \S+; did you mean "\/husky_velocity_controller\/odom"\? Its topics are "/);
    // A stamp path the topic's message definition does not have: said before reading, not as a
    // no-header drop of every message.
    const r3 = await run(["analyze", HUSKY_BAG, "--config", JSON.stringify({ inputs: [{ topic: "/imu/data", stamp: ".header.stmp" }, { topic: "/fix" }], policy: { type: "fkie/approximate-time" } })]);
    expect(r3.code).toBe(2);
    expect(r3.stdout).toBe("");
    expect(r3.stderr).toBe('lockstep: invalid config:\n  /inputs/0/stamp: ".header.stmp" is not a stamp of /imu/data: header (std_msgs/Header) has no field "stmp" (its fields: seq, stamp, frame_id)\n');
    await expect(runAnalyze({ file: HUSKY_BAG, config: parseConfig({ slots: 2, policy: { type: "fkie/approximate-time" } }) })).rejects.toThrow(CliError);
  });

  it("an invalid fusion section exits 2 naming the field's path, before reading the recording", async () => {
    const husky = JSON.parse(await readFile(HUSKY_CONFIG, "utf8")) as {
      fusion: { sensors: Record<string, Record<string, unknown>>; [key: string]: unknown };
    };
    const badDimension = structuredClone(husky);
    badDimension.fusion.sensors.imu!.orientationDimensions = ["yawn"];
    const file = join(tmp.path, "bad-fusion.json");
    await writeFile(file, JSON.stringify(badDimension));
    const r = await run(["analyze", HUSKY_BAG, "--config", file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^lockstep: invalid config:\n {2}fusion\.sensors\.imu\.orientationDimensions\[0\]: "yawn"/);
    expect(r.stderr).not.toMatch(/\n\s+at /);

    const unknownKey = structuredClone(husky);
    unknownKey.fusion.optimiser = {};
    const r2 = await run(["analyze", HUSKY_BAG, "--config", JSON.stringify(unknownKey)]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/fusion\.optimiser: unknown key/);

    // A sensor on a topic of another type, which the bag's index lists: refused before reading
    // (it once failed at the first message and then fed the sensor the rest of them).
    const wrongType = structuredClone(husky);
    wrongType.fusion.sensors.imu!.topic = "/fix";
    const r3 = await run(["analyze", HUSKY_BAG, "--config", JSON.stringify(wrongType), "--no-diagnosis"]);
    expect(r3.code).toBe(2);
    expect(r3.stdout).toBe("");
    expect(r3.stderr).toBe(
      'lockstep: invalid config:\n  fusion.sensors.imu.topic: topic "/fix" carries sensor_msgs/NavSatFix, but fuse_models::Imu2D reads sensor_msgs/Imu; choose a topic of that type or another sensor model\n',
    );
  });

  it("a fusion sensor topic the recording lacks is named in the summary's warnings, the rest analyzed", async () => {
    const husky = JSON.parse(await readFile(HUSKY_CONFIG, "utf8")) as {
      fusion: { sensors: Record<string, Record<string, unknown>>; [key: string]: unknown };
    };
    husky.fusion.sensors.imu!.topic = "/imu/nope";
    const out = join(tmp.path, "no-imu");
    const r = await run(["analyze", HUSKY_BAG, "--config", JSON.stringify(husky), "--no-diagnosis", "--out", out]);
    expect(r.code).toBe(0);
    const warning = 'fusion.sensors.imu.topic: no message arrived on "/imu/nope", so imu (fuse_models::Imu2D) contributed nothing';
    expect(r.stdout).toContain(`fusion warning: ${warning}`);
    const summary = JSON.parse(await readFile(join(out, "summary.json"), "utf8")) as {
      fusion: { warnings: string[]; transactionsBySensor: Record<string, number> };
    };
    expect(summary.fusion.warnings).toContain(warning);
    expect(summary.fusion.transactionsBySensor.imu).toBeUndefined();
    expect(summary.fusion.transactionsBySensor.wheel_odometry).toBeGreaterThan(3000);
  });

  it("a truncated recording: analysis of what could be read, then exit 1 naming the byte offset", async () => {
    const bytes = await readFile(HUSKY_BAG);
    const cut = join(tmp.path, "cut.bag");
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const r = await run(["analyze", cut, "--config", HUSKY_CONFIG]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/tuples: [1-9]\d*/);
    expect(r.stderr).toMatch(/byte offset \d+: the file is truncated/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    // Without an index, the lost part has no message count to give.
    expect(r.stdout).toMatch(/^damaged regions skipped: 1 \(how many of their messages were on the analyzed topics is not known\)$/m);
  });
});

describe("lockstep demo", () => {
  it("analyzes the embedded recording into the output folder (packaging skipped)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lockstep-demo-"));
    try {
      const r = await run(["demo", "--out", dir]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/tuples: \d+/);
      expect(r.stdout).toMatch(/packaging skipped/);
      const summary = JSON.parse(await readFile(join(dir, "summary.json"), "utf8")) as { tuples: number };
      expect(summary.tuples).toBeGreaterThan(900);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
