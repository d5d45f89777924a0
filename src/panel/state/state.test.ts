import type { MessageEvent, RenderState } from "@foxglove/extension";
import { describe, expect, it, vi } from "vitest";

import { BACKLOG_WAIT_MS, FrameHandler, type FrameSink } from "./FrameHandler";
import { MessageCache } from "./MessageCache";
import { outputTopic, publishUnavailableReason, toPlainJson, TuplePublisher } from "./Publisher";
import { CAPS, ViewStore } from "./ViewStore";
import type { EngineDelta, EngineInput, FusedPose, RawPose, TupleRow } from "../engine/engineTypes";

function msg(topic: string, sec: number, nsec = 0): MessageEvent {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- a required field of the type
  return { topic, schemaName: "sensor_msgs/Imu", receiveTime: { sec, nsec }, sizeInBytes: 10, message: { header: { stamp: { sec, nsec } } } };
}

function sink(): FrameSink & { posted: EngineInput[][]; resets: number; updates: unknown[] } {
  const s = {
    posted: [] as EngineInput[][],
    resets: 0,
    updates: [] as unknown[],
    post(events: EngineInput[]) {
      s.posted.push(events);
    },
    reset() {
      s.resets++;
    },
    update(c: unknown) {
      s.updates.push(c);
    },
  };
  return s;
}

describe("FrameHandler", () => {
  it("always calls done exactly once, even when the sink throws", () => {
    const s = sink();
    s.post = () => {
      throw new Error("boom");
    };
    const h = new FrameHandler(s).setInputs(["/a"]);
    const done = vi.fn();
    const err = h.handle({ currentFrame: [msg("/a", 1)] }, done);
    expect(err?.message).toBe("boom");
    expect(done).toHaveBeenCalledTimes(1);
    const done2 = vi.fn();
    expect(h.handle({}, done2)).toBeUndefined();
    expect(done2).toHaveBeenCalledTimes(1);
    expect(h.renders).toBe(2);
  });

  it("passes only input topics, numbers them, and resets on seek before the new frame", () => {
    const s = sink();
    const order: string[] = [];
    s.reset = () => order.push("reset");
    s.post = (e) => order.push(`post ${e.map((x) => `${x.topic}#${x.seq}`).join(",")}`);
    const h = new FrameHandler(s).setInputs(["/a", "/b"]);
    h.handle({ currentFrame: [msg("/a", 1), msg("/c", 1), msg("/b", 2)] }, () => undefined);
    h.handle({ didSeek: true, currentFrame: [msg("/a", 9)] }, () => undefined);
    expect(order).toEqual(["post /a#0,/b#1", "reset", "post /a#2"]);
  });

  it("waits for the engine's backlog before calling done (recordings), at most BACKLOG_WAIT_MS", async () => {
    vi.useFakeTimers();
    try {
      const s = sink();
      let release!: () => void;
      const pending = new Promise<void>((r) => (release = r));
      s.backlog = async () => {
        await pending;
      };
      const h = new FrameHandler(s).setInputs(["/a"]);
      const done = vi.fn();
      h.handle({ currentFrame: [msg("/a", 1)] }, done);
      expect(done).not.toHaveBeenCalled();
      release();
      await vi.advanceTimersByTimeAsync(0);
      expect(done).toHaveBeenCalledTimes(1);
      const done2 = vi.fn();
      const never = new Promise<void>(() => undefined);
      s.backlog = async () => {
        await never; // never clears
      };
      h.handle({ currentFrame: [msg("/a", 2)] }, done2);
      await vi.advanceTimersByTimeAsync(BACKLOG_WAIT_MS - 1);
      expect(done2).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(done2).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(done2).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("reports topics, colour scheme and times", () => {
    const s = sink();
    const h = new FrameHandler(s);
    h.handle({ topics: [], colorScheme: "dark", currentTime: { sec: 1, nsec: 0 }, startTime: { sec: 0, nsec: 0 } } as unknown as RenderState, () => undefined);
    expect(s.updates).toEqual([{ topics: [], colorScheme: "dark", currentTime: { sec: 1, nsec: 0 }, startTime: { sec: 0, nsec: 0 }, endTime: undefined }]);
  });

  it("keeps messages for republishing only when given a cache, bounded by its capacity", () => {
    const s = sink();
    const cache = new MessageCache(3);
    const h = new FrameHandler(s).setInputs(["/a"]).setCache(cache);
    h.handle({ currentFrame: [1, 2, 3, 4, 5].map((i) => msg("/a", i)) }, () => undefined);
    expect(cache.size).toBe(3);
    expect(cache.get(0)).toBeUndefined();
    expect(cache.get(4)?.receiveTime.sec).toBe(5);
    expect(cache.misses).toBe(1);
    h.handle({ didSeek: true }, () => undefined);
    expect(cache.size).toBe(0);
    h.setCache(undefined).handle({ currentFrame: [msg("/a", 6)] }, () => undefined);
    expect(cache.size).toBe(0);
  });
});

function delta(tuples: number, marks: number): EngineDelta {
  const rows: TupleRow[] = Array.from({ length: tuples }, (_, i) => ({ index: i, stamps: [i, i], seqs: [i, i], timespan: 0, lag: 0 }));
  return {
    tuples: rows,
    drops: Array.from({ length: tuples }, (_, i) => ({ slot: 0, topic: "/a", stamp: i, reason: "max-age" as const, seq: i })),
    marks: { slots: Array<number>(marks).fill(0), stamps: Array.from({ length: marks }, (_, i) => i), codes: Array.from({ length: marks }, (_, i) => i % 3) },
    rawPoses: [],
    fusedPoses: [],
    transactions: [],
    stats: { policyType: "x", tuples, drops: {}, topics: [] },
    hints: [],
    ingested: marks,
    rejected: 0,
  };
}

/** A delta of a run with a fusion section (the summary's numbers do not matter here). */
function fusionDelta(): EngineDelta {
  return { ...delta(0, 0), fusion: { transactions: 0, transactionsBySensor: [], drops: [], latestDrops: [], finalPose: undefined, warnings: [] } };
}

describe("ViewStore", () => {
  it("stays within its caps whatever arrives, and clears", () => {
    const store = new ViewStore();
    for (let i = 0; i < 40; i++) {
      store.apply(delta(1000, 5000));
    }
    expect(store.tuples.size).toBe(CAPS.tuples);
    expect(store.tuples.totalPushed).toBe(40_000);
    expect(store.drops.size).toBe(CAPS.drops);
    expect(store.dropExamples.get("max-age")).toHaveLength(CAPS.dropExamples);
    expect(store.marks[0]!.received.size).toBe(CAPS.marks);
    expect(store.marks[0]!.droppedStamps.size).toBe(CAPS.marks);
    const v = store.version;
    store.clear();
    expect(store.tuples.size + store.drops.size + store.marks.length).toBe(0);
    expect(store.version).toBe(v + 1);
  });

  it("keeps the comparison policy's config error for the compare column until a delta without one", () => {
    const store = new ViewStore();
    store.apply({ ...delta(1, 1), compareError: "/policy/queueSize: is required but missing" });
    expect(store.compareError).toBe("/policy/queueSize: is required but missing");
    expect(store.compare).toBeUndefined();
    store.apply(delta(1, 1));
    expect(store.compareError).toBeUndefined();
  });

  it("fixes where raw odometry meets the fused start once its first poses are in and reached by raw poses, and keeps it while both rings wrap, until cleared", () => {
    const store = new ViewStore();
    // Odometry 10 m along the x axis, heading +y; fused poses from the origin heading +x, after an
    // ignition pose heading −x; both every 100 ms.
    const raw = (k: number): RawPose => ({ stamp: k * 1e8, slot: 1, x: 10, y: k, yaw: Math.PI / 2 });
    const fused = (k: number): FusedPose => ({ stamp: k * 1e8, x: k, y: 0, yaw: k === 2 ? -Math.PI : 0, z: 0, roll: 0, pitch: 0 });
    store.apply({ ...fusionDelta(), rawPoses: [raw(0), raw(1)] });
    expect(store.startAnchors.size).toBe(0);
    expect(store.referenceSlot).toBeUndefined();
    // A fused pose no raw pose has reached yet: nothing to anchor to.
    store.apply({ ...fusionDelta(), fusedPoses: [fused(2)] });
    expect(store.fusedStarts).toEqual([fused(2)]);
    expect(store.startAnchors.size).toBe(0);
    // Reached, the only pose there is anchors (the ignition's heading), until more arrive.
    store.apply({ ...fusionDelta(), rawPoses: [raw(2), raw(3)], fusedPoses: [fused(3)] });
    expect(store.startAnchors.get(1)?.target).toEqual(fused(2));
    const more = [4, 5, 6, 7, 8];
    store.apply({ ...fusionDelta(), rawPoses: more.map(raw), fusedPoses: more.map(fused) });
    expect(store.fusedStarts).toEqual([2, 3, 4, 5, 6].map(fused));
    const fixed = store.startAnchors.get(1)!;
    expect(fixed.target.yaw).toBe(0);
    expect(fixed.target.yaw - fixed.raw.yaw).toBeCloseTo(-Math.PI / 2, 12);
    const later = Array.from({ length: CAPS.poses + 10 }, (_, k) => k + 9);
    store.apply({ ...fusionDelta(), rawPoses: later.map(raw), fusedPoses: later.map(fused) });
    expect(store.rawTracks.get(1)!.at(0)!.stamp).toBeGreaterThan(fixed.target.stamp);
    expect(store.startAnchors.get(1)).toBe(fixed);
    store.clear();
    expect(store.startAnchors.size + store.rawTracks.size).toBe(0);
    expect(store.fusedStarts).toEqual([]);
  });

  it("keeps each input's odometry as a track of its own, each with its own anchor", () => {
    const store = new ViewStore();
    // Two odometry inputs, interleaved as they arrive, in frames 5 m apart and a quarter turn.
    const wheel = (k: number): RawPose => ({ stamp: k * 1e8, slot: 0, x: k, y: 0, yaw: 0 });
    const visual = (k: number): RawPose => ({ stamp: k * 1e8 + 1, slot: 2, x: 5, y: k, yaw: Math.PI / 2 });
    const fused = (k: number): FusedPose => ({ stamp: k * 1e8, x: k, y: 0, yaw: 0, z: 0, roll: 0, pitch: 0 });
    const ks = [0, 1, 2, 3, 4, 5, 6];
    store.apply({ ...fusionDelta(), rawPoses: ks.flatMap((k) => [wheel(k), visual(k)]), fusedPoses: ks.map(fused) });
    expect([...store.rawTracks.keys()].sort()).toEqual([0, 2]);
    expect(store.rawTracks.get(0)!.toArray()).toEqual(ks.map(wheel));
    expect(store.rawTracks.get(2)!.toArray()).toEqual(ks.map(visual));
    expect(store.startAnchors.get(0)!.raw).toMatchObject({ x: store.startAnchors.get(0)!.target.x, y: 0, yaw: 0 });
    expect(store.startAnchors.get(2)!.raw).toMatchObject({ x: 5, yaw: Math.PI / 2 });
  });

  it("without fusion, anchors each odometry track to the lowest slot's, where both have begun, and starts over when a lower slot's first pose comes in", () => {
    const store = new ViewStore();
    // Wheel odometry on slot 1 from 0.5 s; visual odometry on slot 2 from 0 s, in a frame 5 km
    // away and turned a quarter; both every 100 ms.
    const wheel = (k: number): RawPose => ({ stamp: 5e8 + k * 1e8, slot: 1, x: k, y: 0, yaw: 0 });
    const visual = (k: number): RawPose => ({ stamp: k * 1e8, slot: 2, x: 5000, y: k, yaw: Math.PI / 2 });
    store.apply({ ...delta(0, 0), rawPoses: [0, 1, 2, 3, 4].map(visual) });
    expect(store.startAnchors.size).toBe(0);
    expect(store.referenceSlot).toBe(2);
    // The wheel track begins at 0.5 s, which the visual track has not reached yet.
    store.apply({ ...delta(0, 0), rawPoses: [wheel(0)] });
    expect(store.startAnchors.size).toBe(0);
    store.apply({ ...delta(0, 0), rawPoses: [visual(5), visual(6), wheel(1)] });
    expect(store.referenceSlot).toBe(1);
    expect([...store.startAnchors.keys()]).toEqual([2]);
    const anchor = store.startAnchors.get(2)!;
    expect(anchor.target).toEqual({ stamp: 5e8, x: 0, y: 0, yaw: 0 });
    expect(anchor.raw).toEqual({ stamp: 5e8, x: 5000, y: 5, yaw: Math.PI / 2 });
    // Fixed: later poses leave it as it is.
    store.apply({ ...delta(0, 0), rawPoses: [visual(7), wheel(2)] });
    expect(store.startAnchors.get(2)).toBe(anchor);
    // A slot below both starts: the tracks are anchored to it instead.
    const first = (k: number): RawPose => ({ stamp: 6e8 + k * 1e8, slot: 0, x: -3, y: k, yaw: -Math.PI / 2 });
    store.apply({ ...delta(0, 0), rawPoses: [first(0), first(1)] });
    expect([...store.startAnchors.keys()].sort()).toEqual([1, 2]);
    expect(store.startAnchors.get(1)!.target).toEqual({ stamp: 6e8, x: -3, y: 0, yaw: -Math.PI / 2 });
    expect(store.startAnchors.get(2)!.target.stamp).toBe(6e8);
    store.clear();
    expect(store.startAnchors.size).toBe(0);
    expect(store.referenceSlot).toBeUndefined();
  });
});

describe("publishing", () => {
  it("is unavailable without advertise/publish, with the reason", () => {
    expect(publishUnavailableReason({})).toMatch(/cannot publish/);
    expect(publishUnavailableReason({ advertise: () => undefined, publish: () => undefined })).toBeUndefined();
  });

  it("advertises the namespaced topics with the original schemas, republishes tuples, unadvertises", () => {
    const calls: string[] = [];
    const api = {
      advertise: (t: string, s: string) => calls.push(`adv ${t} ${s}`),
      unadvertise: (t: string) => calls.push(`unadv ${t}`),
      publish: (t: string, m: unknown) => calls.push(`pub ${t} ${JSON.stringify(m)}`),
    };
    const cache = new MessageCache();
    cache.put(7, { ...msg("/imu/data", 1), message: { v: new Float64Array([1, 2]) } });
    cache.put(8, { ...msg("/odom", 1), message: { n: 1n } });
    const pub = new TuplePublisher(api, "/lockstep/", [{ topic: "/imu/data", schemaName: "sensor_msgs/Imu" }, { topic: "/odom", schemaName: "nav_msgs/Odometry" }], { fusion: false }).start();
    pub.publishTuples([{ index: 0, stamps: [1, 1], seqs: [7, 8], timespan: 0, lag: 0 }, { index: 1, stamps: [2, 2], seqs: [99, 8], timespan: 0, lag: 0 }], cache);
    pub.stop();
    expect(calls).toEqual([
      "adv /lockstep/imu/data sensor_msgs/Imu",
      "adv /lockstep/odom nav_msgs/Odometry",
      'pub /lockstep/imu/data {"v":[1,2]}',
      'pub /lockstep/odom {"n":1}',
      'pub /lockstep/odom {"n":1}',
      "unadv /lockstep/imu/data",
      "unadv /lockstep/odom",
    ]);
    expect(pub.published).toBe(3);
    expect(cache.misses).toBe(1);
  });

  it("names output topics under the namespace", () => {
    expect(outputTopic("/lockstep", "/imu/data")).toBe("/lockstep/imu/data");
    expect(outputTopic("/ns/", "imu")).toBe("/ns/imu");
    expect(toPlainJson({ a: [new Uint8Array([3])] })).toEqual({ a: [[3]] });
  });
});
