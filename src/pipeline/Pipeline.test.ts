import { describe, expect, it } from "vitest";

import { openRecordingFile } from "../recording/node";
import { HAS_SHARED_DATA, sharedRecording } from "../recording/testing/paths";
import type { RecordedMessage } from "../recording";
import { readStamp, nsecOf } from "../messages";
import { Pipeline } from "./Pipeline";
import { parseConfig } from "./parseConfig";
import type { PipelineDrop, PipelineExtension, PipelineInput, PipelineTuple } from "./types";

const APPROX = { type: "fkie/approximate-time", maxQueueSize: 10, maxAge: null } as const;

function msg(topic: string, message: unknown, sec = 100, nsec = 0): PipelineInput {
  return { topic, receiveTime: { sec, nsec }, message };
}

describe("Pipeline", () => {
  it("turns headerless and zero-stamp messages into named drops, never a crash", () => {
    const p = new Pipeline(parseConfig({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: APPROX }));
    const drops: PipelineDrop[] = [];
    p.onDrop((d) => drops.push(d));
    p.push(msg("/a", { data: 1 }));
    p.push(msg("/a", { header: { stamp: { sec: 0, nsec: 0 }, frame_id: "x" } }));
    p.push(msg("/b", { header: { stamp: { sec: 0, nanosec: 0 } } }));
    p.push(msg("/b", null));
    p.push(msg("/other", "anything"));
    expect(drops.map((d) => [d.topic, d.slot, d.reason])).toEqual([
      ["/a", 0, "no-header"],
      ["/a", 0, "zero-stamp"],
      ["/b", 1, "zero-stamp"],
      ["/b", 1, "no-header"],
    ]);
    expect(Object.fromEntries(p.statistics.drops)).toEqual({ "no-header": 2, "zero-stamp": 2 });
    expect(p.timeBase).toBeUndefined();
  });

  it("emits tuples, computes timespan and lag, and feeds extensions in order", () => {
    const p = new Pipeline(parseConfig({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: { type: "fkie/approximate-time" } }));
    const seen: string[] = [];
    const ext: PipelineExtension = {
      name: "probe",
      topics: ["/extra"],
      start: (ctx) => seen.push(`start base=${ctx.timeBase.baseSec}`),
      message: (e) => seen.push(`msg ${e.input.topic} ${e.stamp ?? "-"}`),
      tuple: (t) => seen.push(`tuple ${t.stamps.join(",")}`),
      finish: () => seen.push("finish"),
      summary: () => ({ probe: 1 }),
    };
    p.use(ext);
    expect(p.topics).toContain("/extra");
    const h = (sec: number, nsec: number): unknown => ({ header: { stamp: { sec, nsec }, frame_id: "f" } });
    // two 1 Hz topics, /b 10 ms after /a (fkie's one-period lag with minDistance 0)
    const tuples: PipelineTuple[] = [];
    p.onTuple((t) => tuples.push(t));
    for (let i = 0; i < 3; i++) {
      p.push(msg("/a", h(1_700_000_000 + i, 0)));
      p.push(msg("/b", h(1_700_000_000 + i, 10_000_000)));
    }
    p.push(msg("/extra", h(1_700_000_005, 0)));
    p.finish();
    expect(tuples.map((t) => t.stamps)).toEqual([
      [0, 10_000_000],
      [1_000_000_000, 1_010_000_000],
    ]);
    expect(tuples.map((t) => t.timespan)).toEqual([10_000_000, 10_000_000]);
    // emitted when /b's next message (1 s later) arrived: lag = newest stamp − tuple's newest
    expect(tuples.map((t) => t.lag)).toEqual([1_000_000_000, 1_000_000_000]);
    expect(tuples.map((t) => t.after)).toEqual([3, 5]);
    expect(seen[0]).toBe("start base=1700000000");
    expect(seen.at(-1)).toBe("finish");
    expect(seen).toContain("msg /extra 5000000000");
    expect(seen.indexOf("tuple 0,10000000")).toBeLessThan(seen.indexOf("msg /b 1010000000"));
    const hints = p.statistics.hints();
    expect(hints.minDistance).toEqual([500_000_000, 500_000_000]);
    expect(p.statistics.heldAtEnd).toEqual([1, 1]);
  });

  it("rejects configs without inputs, naming the path", () => {
    expect(() => new Pipeline(parseConfig({ slots: 2, policy: APPROX }))).toThrow(/\/inputs/);
  });

  it("feeds static transforms from the config and /tf messages into its TransformBuffer", () => {
    const p = new Pipeline(
      parseConfig({
        inputs: [{ topic: "/a" }],
        policy: APPROX,
        transforms: [{ parent: "base_link", child: "imu_link", translation: [0, -0.3, 0.52], rpy: [1.570796327, 0, -1.570796327] }],
      }),
    );
    const tf = (sec: number, x: number): PipelineInput =>
      msg("/tf", {
        transforms: [
          {
            header: { stamp: { sec, nsec: 0 }, frame_id: "odom" },
            child_frame_id: "base_link",
            transform: { translation: { x, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
          },
        ],
      });
    p.push(tf(1_600_000_000, 0));
    p.push(tf(1_600_000_002, 2));
    const t = p.transforms.lookup("odom", "imu_link", 1_000_000_000);
    expect(t.translation[0]).toBeCloseTo(1, 12);
    expect(t.translation[1]).toBeCloseTo(-0.3, 12);
    expect(t.translation[2]).toBeCloseTo(0.52, 12);
  });
});

describe.skipIf(!HAS_SHARED_DATA)("Pipeline on mustang-2014.bag", () => {
  it("backward IMU stamps through fkie/approximate-time become out-of-order-reset drops, with full accounting", async () => {
    const topics = ["/xsens/imu_data", "/wheel_odometry"];
    const config = parseConfig({
      inputs: topics.map((topic) => ({ topic })),
      policy: { type: "fkie/approximate-time", maxQueueSize: 50, maxAge: null, maxTimespan: "60ms" },
    });
    const p = new Pipeline<RecordedMessage>(config);
    const drops: PipelineDrop<RecordedMessage>[] = [];
    p.onDrop((d) => drops.push(d));
    let tuples = 0;
    p.onTuple(() => tuples++);
    // independent count of backward steps per topic
    const last = new Map<string, bigint>();
    const backward = new Map<string, number>();
    const recording = await openRecordingFile(sharedRecording("mustang-2014.bag"));
    try {
      for await (const m of recording.messages({ topics })) {
        const s = readStamp(m.message);
        if (typeof s !== "string") {
          const ns = BigInt(s.sec) * 1_000_000_000n + BigInt(nsecOf(s));
          const prev = last.get(m.topic);
          if (prev !== undefined && ns < prev) {
            backward.set(m.topic, (backward.get(m.topic) ?? 0) + 1);
          }
          last.set(m.topic, ns);
        }
        p.push(m);
      }
    } finally {
      await recording.close();
    }
    p.finish();
    expect(backward.get("/xsens/imu_data")).toBe(452); // data/README.md
    expect(p.statistics.topic("/xsens/imu_data").backwardSteps).toBe(452);
    const resets = drops.filter((d) => d.reason === "out-of-order-reset");
    expect(resets.length).toBeGreaterThan(0);
    expect(resets.every((d) => d.stamp === d.stamp && d.slot >= 0)).toBe(true);
    expect(tuples).toBeGreaterThan(500);
    // every accepted message is used, dropped once, or still held
    const s = p.statistics;
    for (let slot = 0; slot < 2; slot++) {
      expect(s.used[slot]! + s.policyDropped[slot]! + s.heldAtEnd[slot]!).toBe(s.accepted[slot]);
    }
    expect(s.accepted).toEqual([13334, 1294]);
  });
});
