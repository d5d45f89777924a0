import { describe, expect, it } from "vitest";

import { ExactTime, type PartialTuple } from "./ExactTime";
import { recordingHostOf } from "../testing/RecordingHost";

const T100MS = 100_000_000; // rclcpp::Time(100000000)

function make(slots: number, queueSize: number) {
  const partial: PartialTuple<string>[] = [];
  const policy = new ExactTime<string>(slots, { queueSize }).setPartialDropCallback((t) => partial.push(t));
  const host = recordingHostOf(policy);
  const add = (slot: number, stamp: number, item: string) => { policy.add(slot, stamp, item, stamp); };
  return { policy, host, partial, add };
}

// Upstream: ros2/message_filters test/test_exact_time_policy.cpp (expected counts are upstream's;
// the drop details are derived by hand from §2.2).
describe("ros/exact-time upstream scenarios", () => {
  it("multipleTimes (N=3, queue 2)", () => {
    const { host, partial, add } = make(3, 2);
    add(0, 0, "m0");
    expect(host.tuples.length).toBe(0);
    add(1, T100MS, "m");
    expect(host.tuples.length).toBe(0);
    add(0, T100MS, "m");
    expect(host.tuples.length).toBe(0);
    add(2, T100MS, "m");
    expect(host.tuples).toEqual([[T100MS, T100MS, T100MS]]);
    // The emission purges the older partial tuple {t=0: slot 0}.
    expect(partial).toEqual([{ stamp: 0, items: ["m0", undefined, undefined], reason: "not-selected" }]);
    expect(host.drops.map((d) => [d.slot, d.stamp, d.reason])).toEqual([[0, 0, "not-selected"]]);
    // the emission comes before the drop it causes, as in ROS
    expect(host.log).toEqual(["emit", "drop"]);
  });

  it("queueSize (N=3, queue 1): nothing is emitted", () => {
    const { host, partial, add } = make(3, 1);
    add(0, 0, "a");
    add(1, 0, "b");
    // t=100ms opens a second tuple; the oldest BY STAMP (t=0 {a, b}) overflows.
    add(1, T100MS, "c");
    // A late t=0 opens a tuple older than t=100ms: it is the oldest, so it overflows at once.
    add(1, 0, "d");
    add(2, 0, "e");
    expect(host.tuples).toEqual([]);
    expect(partial.map((p) => [p.stamp, p.items, p.reason])).toEqual([
      [0, ["a", "b", undefined], "queue-overflow"],
      [0, [undefined, "d", undefined], "queue-overflow"],
      [0, [undefined, undefined, "e"], "queue-overflow"],
    ]);
    expect(host.drops.map((d) => d.item)).toEqual(["a", "b", "d", "e"]);
  });

  it("dropCallback (N=2, queue 1): one drop", () => {
    const { partial, add, host } = make(2, 1);
    add(0, 0, "m");
    expect(partial.length).toBe(0);
    add(0, T100MS, "m");
    expect(partial.length).toBe(1);
    expect(host.drops.length).toBe(1);
  });

  it("eventInEventOut: the items (events with their receipt time) come out unchanged", () => {
    const policy = new ExactTime<{ receipt: number }>(2, { queueSize: 2 });
    const host = recordingHostOf(policy);
    const evt = { receipt: 4e9 };
    policy.add(0, 0, evt, 4e9);
    policy.add(1, 0, evt, 4e9);
    expect(host.items[0]![0]).toBe(evt);
    expect(host.items[0]![1]).toBe(evt);
  });
});

describe("ros/exact-time details", () => {
  it("a same-stamp message on the same slot replaces the first (duplicate-stamp)", () => {
    const { host, add } = make(2, 5);
    add(0, 5, "a");
    add(0, 5, "b");
    add(1, 5, "c");
    expect(host.items).toEqual([["b", "c"]]);
    expect(host.drops.map((d) => [d.item, d.reason])).toEqual([["a", "duplicate-stamp"]]);
  });

  it("a late message opens a tuple that lives until the next emission purges it", () => {
    const { host, add, partial } = make(2, 0);
    add(0, 10, "a");
    add(1, 10, "A");
    add(0, 5, "late");
    expect(host.drops).toEqual([]);
    add(0, 20, "b");
    add(1, 20, "B");
    expect(host.items).toEqual([["a", "A"], ["b", "B"]]);
    expect(partial.map((p) => p.stamp)).toEqual([5]);
  });

  it("queue 0 is unlimited; reset reports held messages", () => {
    const { policy, host, add } = make(2, 0);
    for (let i = 0; i < 100; i++) {
      add(0, i, `a${i}`);
    }
    expect(host.drops.length).toBe(0);
    policy.reset(true);
    expect(host.drops.length).toBe(100);
    expect(host.drops.every((d) => d.reason === "reset")).toBe(true);
  });

  it("a throwing listener leaves the policy consistent: later tuples still match, nothing is reported twice", () => {
    const policy = new ExactTime<string>(2, { queueSize: 2 });
    const host = recordingHostOf(policy);
    const drop = host.drop.bind(host);
    let throwOn = "";
    host.drop = (slot, stamp, item, reason) => {
      drop(slot, stamp, item, reason);
      if (item === throwOn) {
        throw new Error("listener failed");
      }
    };
    const emit = host.emit.bind(host);
    host.emit = (items, stamps) => {
      emit(items, stamps);
      throw new Error("sink failed");
    };
    policy.add(0, 1, "a1", 1);
    // t=1 completes: emitted, then the sink throws.
    expect(() => { policy.add(1, 1, "b1", 1); }).toThrow("sink failed");
    expect(host.items).toEqual([["a1", "b1"]]);
    policy.add(0, 2, "a2", 2);
    policy.add(0, 3, "a3", 3);
    throwOn = "a2";
    // t=4 overflows t=2, whose drop listener throws.
    expect(() => { policy.add(0, 4, "a4", 4); }).toThrow("listener failed");
    throwOn = "";
    host.emit = emit;
    policy.add(1, 3, "b3", 3);
    policy.add(1, 4, "b4", 4);
    expect(host.items).toEqual([["a1", "b1"], ["a3", "b3"], ["a4", "b4"]]);
    // Many more tuples pass through the same rows: none of the failed reports resurfaces.
    for (let t = 5; t < 100; t++) {
      policy.add(0, t, `a${t}`, t);
    }
    policy.reset(true);
    const reported = host.drops.map((d) => d.item);
    expect(new Set(reported).size).toBe(reported.length);
    expect(reported.slice(0, 1)).toEqual(["a2"]);
    expect(reported.length).toBe(1 + 95);
  });

  it("rejects a bad queue size", () => {
    expect(() => new ExactTime(2, { queueSize: -1 })).toThrow(/queueSize/);
  });
});
