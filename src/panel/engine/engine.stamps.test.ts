import { describe, expect, it } from "vitest";

import { AnalysisEngine } from "./AnalysisEngine";
import type { EngineInput } from "./engineTypes";
import { replayTuples, sortByArrival, type TraceEvent } from "../../cli/testing/replayTuples";

const BASE_SEC = 1_700_000_000;
const secNsec = (ns: bigint): { sec: number; nsec: number } => ({ sec: Number(ns / 1_000_000_000n), nsec: Number(ns % 1_000_000_000n) });

/** The start of round `i` of a trace: BASE_SEC plus i × 100 ms, in absolute ns. */
const roundStart = (i: number): bigint => BigInt(BASE_SEC) * 1_000_000_000n + BigInt(i) * 100_000_000n;

/** A two-slot trace of `n` rounds in arrival order; `round(i)` gives slot 0's and slot 1's message. */
function traceOf<E extends TraceEvent>(n: number, round: (i: number) => [E, E]): E[] {
  return sortByArrival(Array.from({ length: n }, (_, i) => round(i)).flat());
}

/** The trace as the panel receives it: one message per event on the slot's topic, at its arrival. */
function engineInputs<E extends TraceEvent>(
  topics: readonly { topic: string }[],
  trace: readonly E[],
  schemaName: string,
  message: (e: E, seq: number) => unknown,
): EngineInput[] {
  return trace.map((e, seq) => ({
    seq,
    topic: topics[e.slot]!.topic,
    schemaName,
    receiveTime: secNsec(e.arrival),
    message: message(e, seq),
  }));
}

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
    const trace = traceOf(30, (i) => [
      { slot: 0, stamp: null, arrival: roundStart(i) },
      { slot: 1, stamp: null, arrival: roundStart(i) + BigInt((i * 7) % 45) * 1_000_000n },
    ]);
    const inputs = engineInputs(config.inputs, trace, "geometry_msgs/msg/Twist", () => ({ linear: { x: 0.1, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.2 } }));
    const expected = await replayTuples(config, trace);
    expect(expected.length).toBeGreaterThan(10);
    expect(engineTuples(config, inputs)).toEqual(expected);
  });

  it('a ".meta.time" message path and the receive time as stamp sources', async () => {
    const config = {
      inputs: [{ topic: "/a", stamp: ".meta.time" }, { topic: "/b", stamp: "receive" }],
      policy: { type: "fkie/approximate-time", maxQueueSize: 5, maxTimespan: "40ms" },
    };
    const trace = traceOf(40, (i) => {
      const t = roundStart(i);
      const arrival = t + BigInt((i * 11) % 60) * 1_000_000n;
      return [
        { slot: 0, stamp: t, arrival: t + 25_000_000n + BigInt((i * 13) % 20) * 1_000_000n },
        { slot: 1, stamp: arrival, arrival },
      ];
    });
    // /a carries its stamp as {sec, nanosec} or a decimal string; /b has none.
    const inputs = engineInputs(config.inputs, trace, "Reading", (e, seq) =>
      e.slot === 0 ? { meta: { time: seq % 2 === 0 ? e.stamp.toString() : { sec: secNsec(e.stamp).sec, nanosec: secNsec(e.stamp).nsec } } } : { value: seq },
    );
    const expected = await replayTuples(config, trace);
    expect(expected.length).toBeGreaterThan(10);
    expect(engineTuples(config, inputs)).toEqual(expected);
  });

  it("syncArrivalTime: every member is matched, and shown, by its arrival time, not its header stamp", async () => {
    const config = {
      inputs: [{ topic: "/imu" }, { topic: "/odom" }],
      policy: { type: "python/approximate-time", queueSize: 10, slop: "20ms", syncArrivalTime: true },
    };
    // Header stamps 300 ms apart between the slots: by stamp nothing would match within 20 ms.
    const trace = traceOf(30, (i) => [
      { slot: 0, stamp: roundStart(i), arrival: roundStart(i) + 5_000_000n },
      { slot: 1, stamp: roundStart(i) - 300_000_000n, arrival: roundStart(i) + BigInt((i * 3) % 15) * 1_000_000n },
    ]);
    const inputs = engineInputs(config.inputs, trace, "sensor_msgs/msg/Imu", (e) => ({
      header: { stamp: { sec: secNsec(e.stamp).sec, nanosec: secNsec(e.stamp).nsec }, frame_id: "" },
    }));
    const expected = await replayTuples(config, trace);
    expect(expected.length).toBeGreaterThan(10);
    const arrivals = new Set(trace.map((e) => e.arrival.toString()));
    expect(expected.flat().every((s) => s != null && arrivals.has(s))).toBe(true);
    expect(engineTuples(config, inputs)).toEqual(expected);
  });
});
