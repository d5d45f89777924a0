// The diagnosis against `lockstep replay`: every suggested config, replayed on the recording's own
// stamps through the real replay command's code, gives exactly the sets the diagnosis predicted.

import fc from "fast-check";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { beforeAll, describe, expect, it, vi } from "vitest";

import { runAnalyze } from "./analyze";
import { runDoctor } from "./doctor";
import { replay } from "./replay";
import { parseConfig, Pipeline, type PipelineConfig } from "../../pipeline";
import { describeDiagnosis, diagnose, DropExplainer, runTrace, StampTrace, TraceRecorder, type Diagnosis } from "../../pipeline/diagnosis";
import { openRecordingFile } from "../../recording/node";
import { HAS_SHARED_DATA, REPO_ROOT, sharedRecording } from "../../recording/testing/paths";
import { suiteTempDir } from "../../testing/tempDir";
import { main } from "../main";
import { runMain } from "../testing/runMain";

/** Runs `lockstep replay`'s code on a trace; returns the number of tuple lines it printed. */
async function replayTuples(config: PipelineConfig, trace: StampTrace): Promise<number> {
  return (await replayLines(config, trace)).filter((l) => l.startsWith('{"tuple"')).length;
}

/** Runs `lockstep replay`'s code on a trace; returns its output lines. */
async function replayLines(config: PipelineConfig, trace: StampTrace): Promise<string[]> {
  let text = "";
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  await replay(config, Readable.from([`${[...trace.replayLines()].join("\n")}\n`]), out);
  return text.split("\n").filter((l) => l !== "");
}

async function traceOf(file: string, config: PipelineConfig): Promise<StampTrace> {
  const pipeline = new Pipeline(config);
  const recorder = new TraceRecorder(config);
  pipeline.use(recorder);
  const recording = await openRecordingFile(file);
  try {
    for await (const m of recording.messages({ topics: pipeline.topics })) {
      pipeline.push(m);
    }
  } finally {
    await recording.close();
  }
  return recorder.trace!;
}

const MUSTANG = {
  inputs: [{ topic: "/xsens/imu_data" }, { topic: "/wheel_odometry" }, { topic: "/stereo_odometer/odometry" }],
  policy: { type: "ros/approximate-time", queueSize: 10 },
};

describe.skipIf(!HAS_SHARED_DATA)("doctor on mustang-2014.bag, ros/approximate-time, queueSize 10 (needs ../shared/data)", () => {
  let trace: StampTrace;
  let diagnosis: Diagnosis;
  beforeAll(async () => {
    const config = parseConfig(MUSTANG);
    trace = await traceOf(sharedRecording("mustang-2014.bag"), config);
    diagnosis = diagnose(trace, config.policy);
  }, 120_000);

  it("names the late stereo odometry against the 100 Hz IMU queue as the cause, in one sentence", () => {
    expect(diagnosis.tuples).toBe(0);
    const top = diagnosis.causes[0]!;
    expect(top.id).toBe("queue-too-short");
    expect(top.topic).toBe("/stereo_odometer/odometry");
    expect(top.message).toMatch(/\/stereo_odometer\/odometry arrives 106–387 ms after its stamps/);
    expect(top.message).toMatch(/\/xsens\/imu_data runs at 100 Hz, so a 10-message \/xsens\/imu_data queue covers 100 ms/);
    const first = diagnosis.suggestions[0]!;
    expect(first.kind).toBe("first");
    expect(first.changes.map((c) => c.parameter)).toEqual(["queueSize"]);
    // Each suggestion says what changes in words (the panel's "Applied …" line), and its message opens with it.
    expect(first.change).toBe(`queueSize 10 → ${String(first.changes[0]!.to)}`);
    for (const s of diagnosis.suggestions) {
      expect(s.message.startsWith(`${s.change}: `)).toBe(true);
    }
    expect(diagnosis.suggestions.some((s) => s.kind === "alternative" && /^ros\/[a-z-]+ with /.test(s.change))).toBe(true);
  });

  it("the first suggestion, replayed on the same stamps, gives exactly its count and ≥ 98 % of the best queueSize in 1..500", async () => {
    const first = diagnosis.suggestions[0]!;
    const config = parseConfig({ slots: 3, policy: first.policy });
    expect(await replayTuples(config, trace)).toBe(first.tuples);
    // The best queueSize from 1 to 500. A queue that never overflowed behaves as any larger
    // queue (the limit never acted), so the sweep may stop there; 500 itself is checked too.
    let best = 0;
    let q = 1;
    for (; q <= 500; q++) {
      const run = runTrace({ type: "ros/approximate-time", queueSize: q }, trace);
      best = Math.max(best, run.tuples);
      if ((run.drops["queue-overflow"] ?? 0) === 0) {
        break;
      }
    }
    expect(q).toBeLessThan(500);
    expect(runTrace({ type: "ros/approximate-time", queueSize: 500 }, trace).tuples).toBeLessThanOrEqual(best);
    expect(best).toBeGreaterThan(1200);
    expect(first.tuples).toBeGreaterThanOrEqual(0.98 * best);
  }, 120_000);

  it("every suggestion and every cause's fix replays to exactly its count", async () => {
    const configs = [
      ...diagnosis.suggestions.map((s) => ({ policy: s.policy, tuples: s.tuples })),
      ...diagnosis.causes.flatMap((c) => (c.fix ? [c.fix] : [])),
    ];
    expect(configs.length).toBeGreaterThan(1);
    for (const c of configs) {
      expect(await replayTuples(parseConfig({ slots: 3, policy: c.policy }), trace)).toBe(c.tuples);
    }
  }, 120_000);
});

describe.skipIf(!HAS_SHARED_DATA)("doctor on inputs that never carry a header stamp (rosbag2's talker bag, needs ../shared/data)", () => {
  it("answers with the missing stamps and the receive-time stamp source, whose sets analyze confirms", async () => {
    const file = sharedRecording("rosbag2-upstream/mcap-talker");
    const inputs = [{ topic: "/rosout" }, { topic: "/topic" }];
    const { diagnosis, analysis } = await runDoctor(file, parseConfig({ inputs, policy: { type: "ros/approximate-time", queueSize: 10 } }));
    expect(analysis.summary.tuples).toBe(0);
    const cause = diagnosis!.causes[0]!;
    expect(cause.id).toBe("missing-stamps");
    expect(cause.message).toContain('"stamp": "receive" on /rosout and /topic');
    const fixed = await runAnalyze({
      file,
      config: parseConfig({ inputs: inputs.map((i) => ({ ...i, stamp: "receive" })), policy: { type: "ros/approximate-time", queueSize: 10 } }),
      diagnosis: false,
      progress: false,
    });
    expect(fixed.summary.tuples).toBeGreaterThan(0);
    expect(cause.setsLost).toBe(fixed.summary.tuples);
    expect(diagnosis!.headline).toMatch(/^\/rosout has 10 messages without a header, which no set can use, and \/topic 10 more: /);
  }, 60_000);
});

describe("diagnosis against replay (properties)", () => {
  const policies = fc.oneof(
    fc.record({ type: fc.constant("ros/approximate-time"), queueSize: fc.integer({ min: 1, max: 8 }) }),
    fc.record({
      type: fc.constant("fkie/approximate-time"),
      maxQueueSize: fc.integer({ min: 0, max: 6 }),
      maxTimespan: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 40 }).map((ms) => `${ms}ms`)),
    }),
    fc.record({ type: fc.constant("ros/exact-time"), queueSize: fc.integer({ min: 0, max: 5 }) }),
    fc.record({
      type: fc.constant("python/approximate-time"),
      queueSize: fc.integer({ min: 1, max: 6 }),
      slop: fc.integer({ min: 1, max: 40 }).map((ms) => `${ms}ms`),
    }),
    fc.record({ type: fc.constant("fkie/exact-time"), maxQueueSize: fc.integer({ min: 0, max: 4 }) }),
  );
  // Two or three inputs, each with its own period, offset, lateness and jitter (ms), in receive order.
  const traces = fc
    .array(
      fc.record({
        period: fc.integer({ min: 5, max: 120 }),
        offset: fc.integer({ min: 0, max: 50 }),
        latency: fc.integer({ min: 0, max: 150 }),
        jitter: fc.integer({ min: 0, max: 8 }),
      }),
      { minLength: 2, maxLength: 3 },
    )
    .chain((inputs) =>
      fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 40, maxLength: 40 }).map((noise) => {
        const events: { slot: number; stamp: bigint; arrival: bigint }[] = [];
        inputs.forEach((input, slot) => {
          for (let k = 0; input.offset + k * input.period < 1500; k++) {
            const jitter = Math.round(((noise[(k + slot * 7) % noise.length]! / 1000) - 0.5) * input.jitter * 1e6);
            const stamp = BigInt(1_700_000_000_000 + input.offset + k * input.period) * 1_000_000n + BigInt(jitter);
            const lat = Math.round((noise[(k * 3 + slot) % noise.length]! / 1000) * input.latency);
            events.push({ slot, stamp, arrival: stamp + BigInt(lat) * 1_000_000n });
          }
        });
        events.sort((a, b) => (a.arrival < b.arrival ? -1 : a.arrival > b.arrival ? 1 : a.slot - b.slot));
        return StampTrace.fromAbsolute(inputs.map((_, i) => `/t${i}`), events);
      }),
    );

  it("each suggestion's predicted tuples equal what replay emits, and parseConfig accepts every suggestion", async () => {
    await fc.assert(
      fc.asyncProperty(traces, policies, async (trace, policy) => {
        const config = parseConfig({ slots: trace.slots, policy });
        const d = diagnose(trace, config.policy);
        expect(await replayTuples(config, trace)).toBe(d.tuples);
        for (const s of d.suggestions) {
          const suggested = parseConfig({ slots: trace.slots, policy: s.policy });
          expect(await replayTuples(suggested, trace)).toBe(s.tuples);
        }
        // Every drop replay reports is explained, in the same order, with the same slot, stamp and reason.
        const explainer = new DropExplainer(trace, config.policy);
        const replayed = (await replayLines(config, trace))
          .map((l) => JSON.parse(l) as { drop?: { slot: number; stamp: string | null; reason: string } })
          .flatMap((l) => (l.drop ? [l.drop] : []));
        expect(explainer.drops.length).toBe(replayed.length);
        replayed.forEach((drop, k) => {
          const x = explainer.explain(explainer.drops[k]!)!;
          expect({ slot: x.slot, stamp: x.stamp, reason: x.reason }).toEqual(drop);
          expect(x.message.length).toBeGreaterThan(5);
        });
        for (const c of d.causes) {
          if (c.fix) {
            expect(() => parseConfig({ slots: trace.slots, policy: c.fix!.policy })).not.toThrow();
          }
        }
      }),
      { numRuns: 12 },
    );
  }, 300_000);
});

describe("analyze's summary.json carries the diagnosis", () => {
  const tmp = suiteTempDir("lockstep-doctor-");

  it("on the embedded recording: causes and suggestions with complete configs", async () => {
    const config = parseConfig({
      inputs: [{ topic: "/imu/data" }, { topic: "/husky_velocity_controller/odom" }],
      policy: { type: "fkie/approximate-time", maxTimespan: "2ms" },
    });
    const { HUSKY_BAG } = await import("../../recording/testing/paths");
    const result = await runAnalyze({ file: HUSKY_BAG, config, progress: false });
    const d = result.summary.diagnosis as Diagnosis;
    expect(d.tuples).toBe(result.summary.tuples);
    expect(d.causes[0]!.id).toBe("timespan-limit-too-small");
    for (const key of ["id", "setsLost", "evidence", "message"]) {
      expect(d.causes[0]).toHaveProperty(key);
    }
    const first = d.suggestions[0]!;
    expect(first.tuples).toBeGreaterThan(d.tuples);
    for (const key of ["policy", "tuples", "timespan", "lag", "message"]) {
      expect(first).toHaveProperty(key);
    }
    // `policy` is complete: `lockstep analyze` accepts it as it is, and gives the predicted sets;
    // with --no-diagnosis it writes no diagnosis and no explanations.
    const out = tmp.path;
    const spy = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    let code: number;
    try {
      code = await main(["analyze", HUSKY_BAG, "--config", JSON.stringify({ inputs: config.inputs, policy: first.policy }), "--out", out, "--no-diagnosis"]);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(0);
    const again = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { tuples: number; diagnosis?: unknown };
    expect(again.tuples).toBe(first.tuples);
    expect(again.diagnosis).toBeUndefined();
    expect(existsSync(join(out, "explanations.jsonl"))).toBe(false);
    expect(existsSync(join(out, "tuples.jsonl"))).toBe(true);
  }, 120_000);
});

describe("doctor --explain n past the last drop", () => {
  it("says there is no such drop and which numbers there are", async () => {
    const { HUSKY_BAG } = await import("../../recording/testing/paths");
    const config = { inputs: [{ topic: "/imu/data" }, { topic: "/husky_velocity_controller/odom" }], policy: { type: "ros/approximate-time", queueSize: 10 } };
    const result = await runDoctor(HUSKY_BAG, parseConfig(config));
    const drops = new DropExplainer(result.extension.trace!, parseConfig(config).policy).drops.length;
    expect(drops).toBeGreaterThan(1);
    let stderr = "";
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((s) => {
      stderr += String(s);
      return true;
    });
    let code: number;
    try {
      code = await main(["doctor", HUSKY_BAG, "--config", JSON.stringify(config), "--explain", String(drops + 1)]);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(2);
    expect(stderr).toBe(`lockstep: --explain ${drops + 1}: there is no drop ${drops + 1}: the synchronizer dropped ${drops.toLocaleString("en-US")} messages (give 1 to ${drops})\n`);
  }, 120_000);
});

describe.skipIf(!HAS_SHARED_DATA)("doctor on the fuse tutorial's recording, /odom with /cmd_vel by receive time (needs ../shared/data)", () => {
  it("notes that /cmd_vel ends early, counting the /odom messages stamped after its last message as the recording has them", async () => {
    const file = sharedRecording("fuse-tutorial-turtlebot3.bag");
    const config = parseConfig({ inputs: [{ topic: "/odom" }, { topic: "/cmd_vel", stamp: "receive" }], policy: { type: "ros/approximate-time", queueSize: 10 } });
    const d = diagnose(await traceOf(file, config), config.policy);
    // The oracle, read from the bag itself: /cmd_vel's last receive time, /odom's header stamps after it.
    const ns = (t: { sec: number; nsec: number }): bigint => BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);
    let lastCmd = 0n;
    const odom: bigint[] = [];
    const recording = await openRecordingFile(file);
    try {
      for await (const m of recording.messages({ topics: ["/odom", "/cmd_vel"] })) {
        if (m.topic === "/cmd_vel") {
          lastCmd = ns(m.receiveTime) > lastCmd ? ns(m.receiveTime) : lastCmd;
        } else {
          odom.push(ns((m.message as { header: { stamp: { sec: number; nsec: number } } }).header.stamp));
        }
      }
    } finally {
      await recording.close();
    }
    const after = odom.filter((s) => s > lastCmd).length;
    expect(after).toBeGreaterThan(10);
    const fact = d.causes.find((c) => c.id === "ends-early");
    expect(fact).toMatchObject({ topic: "/cmd_vel", setsLost: 0, evidence: { reference: "/odom", messages: { "/odom": after } } });
    expect(fact!.message).toMatch(new RegExp(`^/cmd_vel ends \\d+ ms before /odom: ${after} messages of /odom are stamped after its last message`));
    expect(describeDiagnosis(d).join("\n")).toContain(`ends-early (/cmd_vel): ${fact!.message}`);
  }, 120_000);
});

describe("doctor --explain n", () => {
  it("prints the drop's topic and stamp as seconds.nanoseconds, as its message names stamps; --json keeps the nanosecond string", async () => {
    const { HUSKY_BAG } = await import("../../recording/testing/paths");
    const config = JSON.stringify({
      inputs: [{ topic: "/imu/data" }, { topic: "/husky_velocity_controller/odom" }, { topic: "/fix" }],
      policy: { type: "fkie/approximate-time", maxQueueSize: 20, maxTimespan: "5ms" },
    });
    const json = await runMain(["doctor", HUSKY_BAG, "--config", config, "--explain", "5", "--json"]);
    const text = await runMain(["doctor", HUSKY_BAG, "--config", config, "--explain", "5"]);
    expect([json.code, text.code]).toEqual([0, 0]);
    const x = JSON.parse(json.out) as { topic: string; stamp: string; reason: string; message: string };
    expect(x.stamp).toMatch(/^\d{19}$/);
    expect(x.reason).toBe("not-selected");
    expect(text.out).toBe(`${x.topic} ${x.stamp.slice(0, -9)}.${x.stamp.slice(-9)}: ${x.message}\n`);
    expect(x.message).toMatch(/\(stamp \d{10}\.\d{9}\); it took \d{10}\.\d{9} on \/imu\/data/);
  }, 120_000);
});

describe("doctor on a .db3 its recorder did not close", () => {
  it("names damage without a byte offset as info does: the file, then the write-ahead log's own words", async () => {
    const path = join(REPO_ROOT, "src/recording/testing/wal/crashed_0.db3");
    const config = JSON.stringify({ inputs: [{ topic: "/chatter", stamp: "receive" }, { topic: "/chatter", stamp: "receive" }], policy: { type: "fkie/exact-time" } });
    const r = await runMain(["doctor", path, "--config", config]);
    expect(r.code).toBe(1);
    // The one-topic recording is fed to both slots, which the config's warning names first.
    expect(r.err).toMatch(/^warning: \/inputs\/1: the same topic as \/inputs\/0 \("\/chatter"\)/);
    expect(r.err).toMatch(new RegExp(`\nlockstep: ${path}: ${path}-wal: the \\d+ bytes from byte \\d+ \\(pages: \\d+\\) were written after the log's last commit.* \\(the diagnosis covers the messages before it\\)\\n$`));
  });
});
