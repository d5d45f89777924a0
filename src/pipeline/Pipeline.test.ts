import { describe, expect, it } from "vitest";

import { readStamp, nsecOf } from "../messages";
import type { RecordedMessage } from "../recording";
import { Pipeline } from "./Pipeline";
import { parseConfig } from "./parseConfig";
import type { PipelineDrop, PipelineExtension, PipelineInput, PipelineTuple } from "./types";
import { openRecordingFile } from "../recording/node";
import { HAS_SHARED_DATA, sharedRecording } from "../recording/testing/paths";

const APPROX = { type: "fkie/approximate-time", maxQueueSize: 10, maxAge: null } as const;

function msg(topic: string, message: unknown, sec = 100, nsec = 0): PipelineInput {
  return { topic, receiveTime: { sec, nsec }, message };
}

describe("Pipeline", () => {
  it("turns headerless and zero-stamp messages into named drops, never a crash", () => {
    const p = new Pipeline(
      parseConfig({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: APPROX }),
    );
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

  it("hands extensions each message's own header, whatever the input's stamp source", () => {
    const p = new Pipeline(
      parseConfig({ inputs: [{ topic: "/a", stamp: "receive" }, { topic: "/b" }], policy: APPROX }),
    );
    const seen: unknown[] = [];
    p.use({ name: "probe", topics: ["/other"], message: (e) => seen.push([e.input.topic, e.header]) });
    const h = (sec: number, nsec: number, frame: string): unknown => ({ header: { stamp: { sec, nsec }, frame_id: frame } });
    p.push(msg("/b", h(1_700_000_000, 0, "b"), 1_700_000_000, 0));
    // /a is synchronized by its receive time (2 s later); its header stamp is still the header's.
    p.push(msg("/a", h(1_700_000_000, 5, "a"), 1_700_000_002, 0));
    p.push(msg("/other", h(1_700_000_001, 0, "o"), 1_700_000_002, 0));
    p.push(msg("/other", { data: 1 }, 1_700_000_003, 0));
    p.push(msg("/b", h(0, 0, "b"), 1_700_000_004, 0));
    expect(seen).toEqual([
      ["/b", { stamp: 0, frameId: "b" }],
      ["/a", { stamp: 5, frameId: "a" }],
      ["/other", { stamp: 1_000_000_000, frameId: "o" }],
      ["/other", "no-header"],
      ["/b", "zero-stamp"],
    ]);
  });

  it("emits tuples, computes timespan and lag, and feeds extensions in order", () => {
    const p = new Pipeline(
      parseConfig({
        inputs: [{ topic: "/a" }, { topic: "/b" }],
        policy: { type: "fkie/approximate-time" },
      }),
    );
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
    const h = (sec: number, nsec: number): unknown => ({
      header: { stamp: { sec, nsec }, frame_id: "f" },
    });
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
    // each set is emitted when /a's next message (1 s later) shows /a's head is optimal:
    // lag = newest stamp seen (a_{i+1}) − the set's newest stamp (b_i) = 1 s − 10 ms
    expect(tuples.map((t) => t.lag)).toEqual([990_000_000, 990_000_000]);
    expect(tuples.map((t) => t.after)).toEqual([2, 4]);
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
        transforms: [
          {
            parent: "base_link",
            child: "imu_link",
            translation: [0, -0.3, 0.52],
            rpy: [1.570796327, 0, -1.570796327],
          },
        ],
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
  // In receive-time order (ties in file order) the stamps of /xsens/imu_data never step back;
  // those of /my_odometry2imu/imu_data do. Both go through the policy; the test counts backward
  // steps itself and checks the pipeline's statistics and the policy's out-of-order resets.
  it("backward stamps through fkie/approximate-time become out-of-order-reset drops, with full accounting", async () => {
    const topics = ["/xsens/imu_data", "/my_odometry2imu/imu_data", "/wheel_odometry"];
    const config = parseConfig({
      inputs: topics.map((topic) => ({ topic })),
      policy: {
        type: "fkie/approximate-time",
        maxQueueSize: 50,
        maxAge: null,
        maxTimespan: "60ms",
      },
    });
    const p = new Pipeline<RecordedMessage>(config);
    const drops: PipelineDrop<RecordedMessage>[] = [];
    p.onDrop((d) => drops.push(d));
    let tuples = 0;
    p.onTuple(() => tuples++);
    const last = new Map<string, bigint>();
    const backward = new Map<string, number>();
    const backwardAt: number[] = [];
    let index = -1;
    const recording = await openRecordingFile(sharedRecording("mustang-2014.bag"));
    try {
      for await (const m of recording.messages({ topics })) {
        index++;
        const s = readStamp(m.message);
        if (typeof s !== "string") {
          const ns = BigInt(s.sec) * 1_000_000_000n + BigInt(nsecOf(s));
          const prev = last.get(m.topic);
          if (prev != undefined && ns < prev) {
            backward.set(m.topic, (backward.get(m.topic) ?? 0) + 1);
            backwardAt.push(index);
          }
          last.set(m.topic, ns);
        }
        p.push(m);
      }
    } finally {
      await recording.close();
    }
    p.finish();
    const nBack = backward.get("/my_odometry2imu/imu_data") ?? 0;
    expect(nBack).toBeGreaterThan(0);
    expect(backward.get("/xsens/imu_data") ?? 0).toBe(0);
    expect(p.statistics.topic("/my_odometry2imu/imu_data").backwardSteps).toBe(nBack);
    const resets = drops.filter((d) => d.reason === "out-of-order-reset");
    expect(resets.length).toBeGreaterThan(0);
    expect(resets.every((d) => d.stamp === d.stamp && d.slot >= 0 && d.slot < 3)).toBe(true);
    // every reset happened while handling a message whose stamp stepped back
    const at = new Set(backwardAt);
    expect(resets.every((d) => at.has(d.after))).toBe(true);
    expect(tuples).toBeGreaterThan(500);
    // every accepted message is used, dropped once, or still held
    const s = p.statistics;
    for (let slot = 0; slot < 3; slot++) {
      expect(s.used[slot]! + s.policyDropped[slot]! + s.heldAtEnd[slot]!).toBe(s.accepted[slot]);
    }
    expect(s.accepted).toEqual([13334, 13333, 1294]);
  });
});
