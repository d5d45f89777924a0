import { describe, expect, it } from "vitest";

import type { CombinerPolicy } from "../filters/policies/CombinerPolicy";
import { TimeBase, type Stamp } from "../time";
import { ConfigError } from "./ConfigError";
import { POLICY_TYPES } from "./config";
import { createPolicy } from "./createPolicy";
import { parseConfig } from "./parseConfig";
import type { DropReason } from "../time/DropReason";

const BASE0 = new TimeBase(0);
const EPOCH = TimeBase.forFirstStamp(1_700_000_000_000_000_000n);

/** Minimal valid parameters per type (the required ones), for 2 slots. */
const MINIMAL: Record<string, object> = {
  "ros/approximate-time": { queueSize: 5 },
  "ros/exact-time": { queueSize: 5 },
  "ros/approximate-epsilon-time": { queueSize: 5, epsilon: "1ms" },
  "python/approximate-time": { queueSize: 5, slop: "1ms" },
  "python/exact-time": { queueSize: 5 },
};

function make(json: object, slots = 2, base = BASE0): CombinerPolicy<string> {
  return createPolicy<string>(parseConfig({ slots, policy: json }).policy, slots, base);
}

/** Binds a recording host; returns the log of emits ("[s0,s1]") and drops ("drop slot stamp reason"). */
function record(policy: CombinerPolicy<string>): string[] {
  const log: string[] = [];
  policy.bind({
    emit: (_items: string[], stamps: Stamp[]) => log.push(`[${stamps.join(",")}]`),
    drop: (slot: number, stamp: Stamp, _item: string, reason: DropReason) =>
      log.push(`drop ${slot} ${stamp} ${reason}`),
  });
  return log;
}

function feed(policy: CombinerPolicy<string>, events: [slot: number, stamp: Stamp][]): void {
  for (const [slot, stamp] of events) {
    policy.add(slot, stamp, `${slot}@${stamp}`, stamp);
  }
}

/** The log (see `record`) of the policy `json` builds for `slots` on `base`, fed `events`. */
function logOf(json: object, events: [slot: number, stamp: Stamp][], slots = 2, base = BASE0): string[] {
  const policy = make(json, slots, base);
  const log = record(policy);
  feed(policy, events);
  return log;
}

describe("createPolicy", () => {
  it("builds every type of the table as the policy of that type, with the given slot count", () => {
    for (const type of POLICY_TYPES) {
      const policy = make({ type, ...MINIMAL[type] }, 3);
      expect(policy.type).toBe(type);
      expect(policy.slots).toBe(3);
    }
  });

  it("rejects an unknown type that bypassed parseConfig", () => {
    expect(() => createPolicy({ type: "nope" } as never, 2, BASE0)).toThrow(ConfigError);
  });

  it("turns a policy class's RangeError into a ConfigError at /policy", () => {
    // ROS ApproximateTime needs at least 2 topics.
    let error: unknown;
    try {
      make({ type: "ros/approximate-time", queueSize: 3 }, 1);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]!.path).toBe("/policy");
    expect((error as ConfigError).message).toMatch(/^\/policy: ros\/approximate-time: /);
  });
});

describe("createPolicy: fkie/approximate-time parameters reach the policy", () => {
  it("absent maxAge means fkie's default of 1 s (reference §2.1 step 1)", () => {
    // Slot 1's message at 1.5 s puts the cutoff at 0.5 s: the head at 0 expires, the queued 0.6 s
    // moves up to the head and, being earlier than the pivot, waits for one more slot-0 message.
    const log = logOf({ type: "fkie/approximate-time" }, [[0, 0], [0, 600_000_000], [1, 1_500_000_000]]);
    expect(log).toEqual(["drop 0 0 max-age"]);
  });

  it("maxAge null disables the age limit", () => {
    const log = logOf({ type: "fkie/approximate-time", maxAge: null }, [[0, 0], [1, 5_000_000_000]]);
    expect(log.filter((l) => l.includes("max-age"))).toEqual([]);
  });

  it('maxTimespan in the config ("50ms") rejects a wider set\'s pivot', () => {
    // Heads 1 s and 1.06 s (pivot: slot 1). Slot 0 waits for one more message; 1.2 s is no
    // closer to the pivot, so the set is final, but its span of 60 ms > 50 ms: the pivot goes.
    const json = { type: "fkie/approximate-time", maxAge: null, maxTimespan: "50ms" };
    expect(logOf(json, [[0, 1_000_000_000], [1, 1_060_000_000], [0, 1_200_000_000]])).toEqual([
      "drop 1 1060000000 max-timespan",
    ]);
  });

  it("zero comes from the TimeBase: stamp 0 is 'unset' only when it is absolute 0", () => {
    // Base 0: all-zero stamps never find a pivot (fkie quirk, reference §2.1 step 5.1).
    expect(logOf({ type: "fkie/approximate-time" }, [[0, 0], [1, 0]])).toEqual([]);
    // Epoch base: relative 0 is 1.7e18 ns, an ordinary stamp; the pair combines at once.
    expect(logOf({ type: "fkie/approximate-time" }, [[0, 0], [1, 0]], 2, EPOCH)).toEqual(["[0,0]"]);
  });
});

describe("createPolicy: ros/approximate-time parameters reach the policy", () => {
  it("queueSize bounds each topic (oldest dropped as queue-overflow)", () => {
    const log = logOf({ type: "ros/approximate-time", queueSize: 2 }, [[0, 10], [0, 20], [0, 30]]);
    expect(log).toEqual(["drop 0 10 queue-overflow"]);
  });
});

describe("createPolicy: the other types get their parameters", () => {
  const emits = (log: string[]): string[] => log.filter((l) => l.startsWith("["));

  it("fkie/exact-time: absent maxAge is 1 s (reference §2.2 step 3)", () => {
    const log = logOf({ type: "fkie/exact-time" }, [[0, 1_000_000_000], [0, 2_500_000_000]]);
    expect(log).toEqual(["drop 0 1000000000 max-age"]);
  });

  it("fkie/fifo: maxQueueSize is the per-slot capacity (default 1)", () => {
    expect(logOf({ type: "fkie/fifo" }, [[0, 1], [0, 2]])).toEqual(["drop 0 1 queue-overflow"]);
    const logTwo = logOf({ type: "fkie/fifo", maxQueueSize: 2 }, [[0, 1], [0, 2], [1, 3], [1, 4]]);
    expect(logTwo).toEqual(["[1,3]", "[2,4]"]);
  });

  it("fkie/latch: trigger selects the slot that emits", () => {
    const log = logOf({ type: "fkie/latch", trigger: 1 }, [[0, 10], [1, 20], [0, 30], [1, 40]]);
    expect(emits(log)).toEqual(["[10,20]", "[30,40]"]);
  });

  it("ros/approximate-epsilon-time: epsilon is inclusive, in ns from the config", () => {
    const pair: [number, Stamp][] = [[0, 1_000_000_000], [1, 1_001_000_000]];
    const inside = logOf({ type: "ros/approximate-epsilon-time", queueSize: 5, epsilon: "1ms" }, pair);
    expect(emits(inside)).toEqual(["[1000000000,1001000000]"]);
    const outside = logOf({ type: "ros/approximate-epsilon-time", queueSize: 5, epsilon: "999999ns" }, pair);
    expect(emits(outside)).toEqual([]);
  });

  it("ros/exact-time and python/exact-time pair equal stamps", () => {
    for (const type of ["ros/exact-time", "python/exact-time"]) {
      expect(emits(logOf({ type, queueSize: 3 }, [[0, 5], [1, 7], [1, 5]]))).toEqual(["[5,5]"]);
    }
  });

  it("python/approximate-time: allowHeaderless / syncArrivalTime make it accept headerless messages", () => {
    expect(
      make({ type: "python/approximate-time", queueSize: 1, slop: "10ms" }).acceptsHeaderless,
    ).toBe(false);
    expect(
      make({ type: "python/approximate-time", queueSize: 1, slop: "10ms", allowHeaderless: true })
        .acceptsHeaderless,
    ).toBe(true);
    const log = logOf({ type: "python/approximate-time", queueSize: 2, slop: "10ms" }, [[0, 100_000_000], [1, 109_000_000]]);
    expect(emits(log)).toEqual(["[100000000,109000000]"]);
  });

  it("fkie/approximate-time: ros1OutOfOrder selects fkie 1.x out-of-order detection (§2.1)", () => {
    // (a100, b100) go out. b90 is older than slot 1's newest stamp ever (b100): the ROS 2 rule
    // resets and drops the held a200. Slot 1 holds nothing any more, so the ROS 1 rule keeps b90;
    // b210 is then closer to the pivot a200, b90 is passed over and (a200, b210) goes out.
    const trace: [number, Stamp][] = [[0, 100], [1, 100], [0, 200], [1, 90], [1, 210]];
    const ros2Log = logOf({ type: "fkie/approximate-time", maxAge: null }, trace);
    expect(ros2Log).toEqual(["[100,100]", "drop 0 200 out-of-order-reset"]);
    const ros1Log = logOf({ type: "fkie/approximate-time", maxAge: null, ros1OutOfOrder: true }, trace);
    expect(ros1Log).toEqual(["[100,100]", "drop 1 90 not-selected", "[200,210]"]);
  });

  it("ros/latest-time: fixFirstArrivalOrder gives each slot its own rate estimator (§2.3)", () => {
    // Slot 1 arrives first (t=0), slot 0 at 100 ms. Quirk: estimator 0 belongs to slot 1's first
    // arrival (prev 0) but is updated by slot 0, so p1 at 120 ms measures 120 ms (8.3 Hz) and q1
    // at 200 ms measures 100 ms from estimator 1 (10 Hz, faster): q1 becomes the pivot and emits.
    // Fixed: p1 measures 20 ms (50 Hz), q1 200 ms (5 Hz): slot 0 stays the pivot, q1 emits nothing.
    const ms = 1_000_000;
    // Header stamps equal to the arrival times, so the log shows which messages were used.
    const run = ({ fix }: { fix?: boolean }): string[] =>
      logOf(
        fix == undefined ? { type: "ros/latest-time" } : { type: "ros/latest-time", fixFirstArrivalOrder: fix },
        [[1, 0], [0, 100 * ms], [0, 120 * ms], [1, 200 * ms]],
      );
    // p0 is replaced by p1 before it was ever emitted (superseded) in both modes.
    expect(run({ fix: true })).toEqual(["drop 0 100000000 superseded", "[120000000,0]"]);
    expect(run({ fix: false })).toEqual([
      "drop 0 100000000 superseded",
      "[120000000,0]",
      "[120000000,200000000]",
    ]);
    expect(run({})).toEqual(run({ fix: false }));
  });

  it("ros/latest-time accepts a shared or per-slot rate config", () => {
    expect(make({ type: "ros/latest-time", rateConfig: { margin: 3 } }).type).toBe(
      "ros/latest-time",
    );
    expect(
      make({ type: "ros/latest-time", rateConfig: [{ margin: 3 }, { alphaRate: 0.5 }] }).slots,
    ).toBe(2);
  });
});
