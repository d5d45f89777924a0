import { describe, expect, it } from "vitest";

import { AnalysisEngine } from "./AnalysisEngine";
import type { EngineInput } from "./engineTypes";
import { replayTuples } from "../../cli/testing/replayTuples";

const BASE_SEC = 1_700_000_000;
const secNsec = (ns: bigint): { sec: number; nsec: number } => ({ sec: Number(ns / 1_000_000_000n), nsec: Number(ns % 1_000_000_000n) });


/** The panel engine's tuples for the same messages, as absolute ns strings. */
function engineTuples(config: unknown, inputs: EngineInput[]): string[][] {
  const engine = new AnalysisEngine(config);
  engine.ingest(inputs);
  const delta = engine.takeDelta();
  expect(delta.rejected).toBe(0);
  const base = BigInt(delta.baseSec ?? 0) * 1_000_000_000n;
  return delta.tuples.map((t) => t.stamps.map((s) => (base + BigInt(s)).toString()));
}

describe("the panel engine: stamp sources and headerless inputs, as replay gives them", () => {
  it("headerless geometry_msgs/Twist inputs under python allowHeaderless are matched by arrival from the first message", async () => {
    const config = {
      inputs: [{ topic: "/cmd_vel" }, { topic: "/cmd_vel_mux" }],
      policy: { type: "python/approximate-time", queueSize: 10, slop: "30ms", allowHeaderless: true },
    };
    const trace: { slot: number; stamp: null; arrival: bigint }[] = [];
    for (let i = 0; i < 30; i++) {
      trace.push({ slot: 0, stamp: null, arrival: BigInt(BASE_SEC) * 1_000_000_000n + BigInt(i) * 100_000_000n });
      trace.push({ slot: 1, stamp: null, arrival: BigInt(BASE_SEC) * 1_000_000_000n + BigInt(i) * 100_000_000n + BigInt((i * 7) % 45) * 1_000_000n });
    }
    trace.sort((a, b) => (a.arrival < b.arrival ? -1 : a.arrival > b.arrival ? 1 : 0));
    const inputs: EngineInput[] = trace.map((e, seq) => ({
      seq,
      topic: config.inputs[e.slot]!.topic,
      schemaName: "geometry_msgs/msg/Twist",
      receiveTime: secNsec(e.arrival),
      message: { linear: { x: 0.1, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.2 } },
    }));
    const expected = await replayTuples(config, trace);
    expect(expected.length).toBeGreaterThan(10);
    expect(engineTuples(config, inputs)).toEqual(expected);
  });

  it('a ".meta.time" message path and the receive time as stamp sources', async () => {
    const config = {
      inputs: [{ topic: "/a", stamp: ".meta.time" }, { topic: "/b", stamp: "receive" }],
      policy: { type: "fkie/approximate-time", maxQueueSize: 5, maxTimespan: "40ms" },
    };
    const trace: { slot: number; stamp: bigint; arrival: bigint }[] = [];
    for (let i = 0; i < 40; i++) {
      const t = BigInt(BASE_SEC) * 1_000_000_000n + BigInt(i) * 100_000_000n;
      trace.push({ slot: 0, stamp: t, arrival: t + 25_000_000n + BigInt((i * 13) % 20) * 1_000_000n });
      const arrival = t + BigInt((i * 11) % 60) * 1_000_000n;
      trace.push({ slot: 1, stamp: arrival, arrival });
    }
    trace.sort((a, b) => (a.arrival < b.arrival ? -1 : a.arrival > b.arrival ? 1 : 0));
    const inputs: EngineInput[] = trace.map((e, seq) => ({
      seq,
      topic: config.inputs[e.slot]!.topic,
      schemaName: "Reading",
      receiveTime: secNsec(e.arrival),
      // /a carries its stamp as {sec, nanosec} or a decimal string; /b has none.
      message: e.slot === 0 ? { meta: { time: seq % 2 === 0 ? e.stamp.toString() : { sec: secNsec(e.stamp).sec, nanosec: secNsec(e.stamp).nsec } } } : { value: seq },
    }));
    const expected = await replayTuples(config, trace);
    expect(expected.length).toBeGreaterThan(10);
    expect(engineTuples(config, inputs)).toEqual(expected);
  });

  it("syncArrivalTime: every member is matched, and shown, by its arrival time, not its header stamp", async () => {
    const config = {
      inputs: [{ topic: "/imu" }, { topic: "/odom" }],
      policy: { type: "python/approximate-time", queueSize: 10, slop: "20ms", syncArrivalTime: true },
    };
    const trace: { slot: number; stamp: bigint; arrival: bigint }[] = [];
    for (let i = 0; i < 30; i++) {
      const t = BigInt(BASE_SEC) * 1_000_000_000n + BigInt(i) * 100_000_000n;
      // Header stamps 300 ms apart between the slots: by stamp nothing would match within 20 ms.
      trace.push({ slot: 0, stamp: t, arrival: t + 5_000_000n });
      trace.push({ slot: 1, stamp: t - 300_000_000n, arrival: t + BigInt((i * 3) % 15) * 1_000_000n });
    }
    trace.sort((a, b) => (a.arrival < b.arrival ? -1 : a.arrival > b.arrival ? 1 : 0));
    const inputs: EngineInput[] = trace.map((e, seq) => ({
      seq,
      topic: config.inputs[e.slot]!.topic,
      schemaName: "sensor_msgs/msg/Imu",
      receiveTime: secNsec(e.arrival),
      message: { header: { stamp: { sec: secNsec(e.stamp).sec, nanosec: secNsec(e.stamp).nsec }, frame_id: "" } },
    }));
    const expected = await replayTuples(config, trace);
    expect(expected.length).toBeGreaterThan(10);
    const arrivals = new Set(trace.map((e) => e.arrival.toString()));
    expect(expected.flat().every((s) => s != null && arrivals.has(s))).toBe(true);
    expect(engineTuples(config, inputs)).toEqual(expected);
  });
});
