import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { runAnalyze } from "./analyze";
import { parseConfig } from "../../pipeline";
import { writeMcap, type FixtureChannel } from "../../recording/testing/mcapFixtures";
import { descriptorSetOf, foxgloveProtobufRoot } from "../../recording/testing/protobufFixtures";
import { suiteTempDir } from "../../testing/tempDir";
import { replayTuples, sortByArrival, type TraceEvent } from "../testing/replayTuples";

const BASE = 1_700_000_000_000_000_000n;
const encoder = new TextEncoder();

/**
 * Writes `events` to the MCAP `file`: one channel per topic (slot order) with the `channel`
 * schema and encodings, each event a message on its slot's channel logged at its arrival.
 */
async function writeTrace<E extends TraceEvent>(
  file: string,
  topics: readonly string[],
  channel: Omit<FixtureChannel, "topic">,
  events: readonly E[],
  data: (e: E) => Uint8Array,
  options?: Parameters<typeof writeMcap>[2],
): Promise<void> {
  const messages = events.map((e) => ({ channel: e.slot, logTime: e.arrival, data: data(e) }));
  await writeFile(file, await writeMcap(topics.map((topic) => ({ topic, ...channel })), messages, options));
}

async function analyzedTuples(file: string, config: unknown, out: string): Promise<(string | null)[][]> {
  const result = await runAnalyze({ file, config: parseConfig(config), out, progress: false });
  expect(result.error).toBeUndefined();
  const text = await readFile(join(out, "tuples.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => (JSON.parse(l) as { stamps: (string | null)[] }).stamps);
}

describe("stamp sources and headerless inputs: analyze agrees with replay on the same stamps", () => {
  const tmp = suiteTempDir("lockstep-stamps-");

  it('JSON messages stamped at ".meta.time" (decimal strings and {sec, nanosec})', async () => {
    // Two topics at 10 Hz and 7 Hz; stamps lag the receive time by a varying amount.
    const events: { slot: number; stamp: bigint; arrival: bigint }[] = [];
    for (let i = 0; i < 40; i++) {
      events.push({ slot: 0, stamp: BASE + BigInt(i) * 100_000_000n, arrival: 0n });
      events.push({ slot: 1, stamp: BASE + BigInt(i) * 142_857_143n + 3_000_000n, arrival: 0n });
    }
    for (const e of events) {
      e.arrival = e.stamp + 20_000_000n + BigInt(e.slot) * 7_000_000n;
    }
    sortByArrival(events);
    const file = join(tmp.path, "meta.mcap");
    await writeTrace(file, ["/a", "/b"], { schemaName: "Reading", schemaEncoding: "jsonschema", schema: "{}", messageEncoding: "json" }, events, (e) =>
      encoder.encode(
        JSON.stringify({
          meta: { time: e.slot === 0 ? e.stamp.toString() : { sec: Number(e.stamp / 1_000_000_000n), nanosec: Number(e.stamp % 1_000_000_000n) } },
          value: 1,
        }),
      ),
    );
    const policy = { type: "fkie/approximate-time", maxQueueSize: 10, maxAge: null, maxTimespan: "60ms" };
    const config = { inputs: [{ topic: "/a", stamp: ".meta.time" }, { topic: "/b", stamp: ".meta.time" }], policy };
    const fromAnalyze = await analyzedTuples(file, config, join(tmp.path, "meta"));
    const fromReplay = await replayTuples({ slots: 2, policy }, events);
    expect(fromReplay.length).toBeGreaterThan(10);
    expect(fromAnalyze).toEqual(fromReplay);

    // The same recording with "receive": every member is its receive time.
    const byReceive = await analyzedTuples(file, { inputs: [{ topic: "/a", stamp: "receive" }, { topic: "/b", stamp: "receive" }], policy }, join(tmp.path, "receive"));
    expect(byReceive).toEqual(await replayTuples({ slots: 2, policy }, events.map((e) => ({ ...e, stamp: e.arrival }))));
  });

  it("foxglove.* protobuf messages default to their timestamp", async () => {
    const root = foxgloveProtobufRoot();
    const type = root.lookupType("foxglove.PoseInFrame");
    const events = Array.from({ length: 30 }, (_, i) => ({ slot: i % 2, stamp: BASE + BigInt(i) * 50_000_000n, arrival: BASE + BigInt(i) * 50_000_000n + 5_000_000n }));
    const file = join(tmp.path, "poses.mcap");
    await writeTrace(
      file,
      ["/left", "/right"],
      { schemaName: "foxglove.PoseInFrame", schemaEncoding: "protobuf", schema: "", messageEncoding: "protobuf" },
      events,
      (e) => type.encode(type.fromObject({ timestamp: { seconds: Number(e.stamp / 1_000_000_000n), nanos: Number(e.stamp % 1_000_000_000n) }, frame_id: "map" })).finish(),
      { schemaBytes: [descriptorSetOf(root), descriptorSetOf(root)] },
    );
    const policy = { type: "fkie/approximate-time", maxQueueSize: 10, maxAge: null, maxTimespan: "60ms" };
    const fromAnalyze = await analyzedTuples(file, { inputs: [{ topic: "/left" }, { topic: "/right" }], policy }, join(tmp.path, "poses"));
    expect(fromAnalyze.length).toBeGreaterThan(5);
    expect(fromAnalyze).toEqual(await replayTuples({ slots: 2, policy }, events));
  });

  it("headerless inputs (python allowHeaderless) are matched by arrival from the very first message", async () => {
    // geometry_msgs/Twist-like JSON messages without any stamp, on two topics.
    const events = Array.from({ length: 24 }, (_, i) => ({ slot: i % 2, stamp: null, arrival: BASE + BigInt(i >> 1) * 100_000_000n + BigInt(i % 2) * 5_000_000n }));
    const file = join(tmp.path, "cmd_vel.mcap");
    await writeTrace(file, ["/cmd_vel", "/cmd_vel_safe"], { schemaName: "Twist", schemaEncoding: "jsonschema", schema: "{}", messageEncoding: "json" }, events, () =>
      encoder.encode('{"linear":{"x":1},"angular":{"z":0}}'),
    );
    const policy = { type: "python/approximate-time", queueSize: 10, slop: "20ms", allowHeaderless: true };
    const fromAnalyze = await analyzedTuples(file, { inputs: [{ topic: "/cmd_vel" }, { topic: "/cmd_vel_safe" }], policy }, join(tmp.path, "headerless"));
    const fromReplay = await replayTuples({ slots: 2, policy }, events);
    expect(fromReplay.length).toBeGreaterThan(5);
    expect(fromReplay.every((t) => t.every((s) => s != null))).toBe(true);
    expect(fromAnalyze).toEqual(fromReplay);
  });

  it("a stamp source that is neither a name nor a path is a config error at /inputs/i/stamp", async () => {
    await expect(
      runAnalyze({ file: join(tmp.path, "meta.mcap"), config: parseConfig({ inputs: [{ topic: "/a", stamp: "meta.time" }, { topic: "/b" }], policy: { type: "fkie/exact-time" } }) }),
    ).rejects.toThrow(/\/inputs\/0\/stamp: "meta.time" is not a stamp source/);
  });
});
