import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ExactTime } from "./ExactTime";
import { adding, describeEvents, eventsOf, eventsThenReset, feed, Recorder, resetLines, t, type Input } from "../testing/policyRecorder";

/**
 * Upstream test_combiner_exact_time.cpp (ROS 2 form; 1.x lacks input 5): two slots,
 * `set_max_age(10 s)`. Upstream asserts counts 0 after inputs 3 and 4, then 1, 1, 2, 2, 3, 3, 4
 * after inputs 6, 7, 8, 9, 10, 13 and 17, and that every set has payload 0 and equal stamps.
 */
const UPSTREAM: Input<number>[] = [
  [0, t(11), 0], // 0
  [0, t(15), 0], // 1
  [0, t(19), 0], // 2
  [0, t(22), 0], // 3
  [1, t(11), 0], // 4
  [0, t(15), 1], // 5 duplicate, ignored
  [1, t(15), 0], // 6
  [1, t(18), 0], // 7
  [1, t(19), 0], // 8
  [1, t(23), 0], // 9
  [0, t(23), 0], // 10
  [0, t(30), 0], // 11 old messages are discarded after max age
  [0, t(50), 0], // 12
  [1, t(30), 0], // 13
  [0, t(60), 0], // 14 old messages are discarded after a successful match
  [0, t(61), 0], // 15
  [1, t(61), 0], // 16
  [1, t(60), 0], // 17
];

// Trace (stamps in s):
//  3: cutoff 22 − 10 = 12 erases slot 0's 11 (max-age), so slot 1's 11 at input 4 finds no match.
//  5: slot 0 already holds 15 → the new message is dropped and nothing else happens.
//  6: match at 15; the purge up to 15 also discards slot 1's unmatched 11 (not-selected).
//  8: match at 19 discards slot 1's 18. 10: match at 23 discards slot 0's 22.
// 12: cutoff 40 erases 30. 14: cutoff 50 erases slot 0's 50 (<=) and slot 1's 30.
// 16: match at 61 discards slot 0's 60. 17: slot 1's 60 finds nothing and stays.
const UPSTREAM_EVENTS = [
  "3 drop s0 11.0 max-age | 0",
  "5 drop s0 15.0 duplicate-stamp | 1",
  "6 drop s1 11.0 not-selected | 0",
  "6 emit 15.0 15.0 | 0 0",
  "8 drop s1 18.0 not-selected | 0",
  "8 emit 19.0 19.0 | 0 0",
  "10 drop s0 22.0 not-selected | 0",
  "10 emit 23.0 23.0 | 0 0",
  "12 drop s0 30.0 max-age | 0",
  "14 drop s0 50.0 max-age | 0",
  "14 drop s1 30.0 max-age | 0",
  "16 drop s0 60.0 not-selected | 0",
  "16 emit 61.0 61.0 | 0 0",
];

describe("fkie ExactTime", () => {
  it("reproduces test_combiner_exact_time exactly", () => {
    const policy = new ExactTime<number>(2).setMaxAge(t(10));
    const rec = feed(policy, UPSTREAM);
    expect(describeEvents(rec.events)).toEqual(UPSTREAM_EVENTS);
    const countAfter = (i: number) => rec.tuples.filter((e) => e.after <= i).length;
    expect([3, 4, 6, 7, 8, 9, 10, 13, 17].map(countAfter)).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4]);
    expect([policy.held(0), policy.held(1)]).toEqual([0, 1]);
  });

  it("reproduces the 1.x form (no duplicate) with the same sets", () => {
    const rec = feed(
      new ExactTime<number>(2).setMaxAge(t(10)),
      UPSTREAM.filter((_, i) => i !== 5),
    );
    expect(rec.tuples.map((e) => e.stamps)).toEqual([15, 19, 23, 61].map((s) => [t(s), t(s)]));
  });

  it("maxAge 0 erases the message that just arrived", () => {
    expect(eventsOf(new ExactTime<string>(2, { maxAge: 0 }), [[0, 5, "a"], [1, 5, "b"]], String)).toEqual([
      "0 drop s0 5 max-age | a",
      "1 drop s1 5 max-age | b",
    ]);
  });

  it("the age cutoff follows the incoming stamp even when it is old", () => {
    // 2 (stamp 3, cutoff −7) erases nothing although 100 − 3 > maxAge.
    const policy = new ExactTime<string>(2, { maxAge: 10 });
    // 3: match at 100 (cutoff = 100) also discards slot 1's unmatched 3.
    expect(eventsOf(policy, [[0, 100, "a"], [0, 105, "b"], [1, 3, "c"], [1, 100, "d"]], String)).toEqual([
      "3 drop s1 3 not-selected | c",
      "3 emit 100 100 | a d",
    ]);
    expect(policy.held(0)).toBe(1);
  });

  it("maxQueueSize erases the slot's smallest stamp, at most one per message", () => {
    // set_max_queue_size(2) without an age: unlimited age, 2 per slot.
    const policy = new ExactTime<string>(2).setMaxQueueSize(2);
    expect(policy.maxAge).toBeNull();
    // b is sorted in before a (30); c makes 3 held → the smallest (b, 10) goes; d matches c.
    expect(eventsOf(policy, [[0, 30, "a"], [0, 10, "b"], [0, 20, "c"], [1, 20, "d"]], String)).toEqual([
      "2 drop s0 10 queue-overflow | b",
      "3 emit 20 20 | c d",
    ]);
    expect(policy.held(0)).toBe(1);
  });

  it("with no age limit and no match nothing is purged", () => {
    const policy = new ExactTime<number>(2, { maxAge: null });
    const inputs: Input<number>[] = [];
    for (let i = 0; i < 50; i++) {
      inputs.push([0, i * 2, i], [1, i * 2 + 1, i]);
    }
    const rec = feed(policy, inputs);
    expect(rec.events).toEqual([]);
    expect([policy.held(0), policy.held(1)]).toEqual([50, 50]);
    policy.reset(true);
    expect(rec.drops.map((d) => d.reason)).toEqual(new Array(100).fill("reset"));
  });

  it("emits with 3 slots regardless of arrival order; state is consistent after a sink throws", () => {
    const policy = new ExactTime<string>(3, { maxAge: null });
    const rec = new Recorder<string>();
    rec.onEmit = (items) => {
      if (items[0] === "a1") {
        throw new Error("sink failure");
      }
    };
    feed(policy, [[2, 1, "c1"], [0, 2, "a2"], [1, 1, "b1"]], rec);
    expect(() => feed(policy, [[0, 1, "a1"]], rec)).toThrow("sink failure");
    feed(policy, [[1, 2, "b2"], [2, 2, "c2"]], rec);
    expect(describeEvents(rec.events, String)).toEqual([
      "3 emit 1 1 1 | a1 b1 c1",
      "5 emit 2 2 2 | a2 b2 c2",
    ]);
  });

  it("validates its configuration", () => {
    const p = new ExactTime(2);
    expect([p.type, p.acceptsHeaderless, p.maxAge, p.maxQueueSize]).toEqual([
      "fkie/exact-time",
      false,
      1e9,
      0,
    ]);
    expect(new ExactTime(2, { maxQueueSize: 3 }).setMaxAge(5).maxQueueSize).toBe(0);
    expect(() => new ExactTime(2, { maxQueueSize: -1 })).toThrow(/maxQueueSize/);
    expect(() => new ExactTime(1.5)).toThrow(/positive integer/);
    p.bind(new Recorder());
    expect(adding(p, 3, 1, 1)).toThrow(/slot 3 does not exist/);
    expect(adding(p, 0, NaN, 1)).toThrow(/no-header/);
  });
});

describe("fkie ExactTime properties", () => {
  it("in-order slots, no limits: every common stamp is emitted once, in order; the rest accounted", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }).chain((slots) =>
          fc.tuple(
            fc.array(fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 25 }), {
              minLength: slots,
              maxLength: slots,
            }),
            fc.array(fc.nat(), { maxLength: 200 }),
          ),
        ),
        ([raw, picks]) => {
          const streams = raw.map((s) => [...s].sort((a, b) => a - b));
          // Interleave the slots (each in stamp order) following `picks`.
          const pos = streams.map(() => 0);
          const inputs: Input<string>[] = [];
          const remaining = () => streams.some((s, i) => pos[i]! < s.length);
          for (let k = 0; remaining(); k++) {
            const open = streams.map((_, i) => i).filter((i) => pos[i]! < streams[i]!.length);
            const slot = open[(picks[k] ?? k) % open.length]!;
            const stamp = streams[slot]![pos[slot]!++]!;
            inputs.push([slot, stamp, `${slot}:${stamp}`]);
          }
          const policy = new ExactTime<string>(streams.length, { maxAge: null });
          const rec = feed(policy, inputs);
          const common = streams[0]!.filter((s) => streams.every((x) => x.includes(s)));
          expect(rec.tuples.map((e) => e.stamps[0])).toEqual(common);
          for (const e of rec.tuples) {
            expect(e.items).toEqual(e.stamps.map((s, i) => `${i}:${s}`));
          }
          const last = common.length > 0 ? common[common.length - 1]! : -Infinity;
          // Unmatched stamps below the last match were purged by a match; the others are held.
          const dropped = rec.drops.map((d) => d.item).sort();
          const expectedDrops = streams
            .flatMap((s, i) =>
              s.filter((x) => x < last && !common.includes(x)).map((x) => `${i}:${x}`),
            )
            .sort();
          expect(dropped).toEqual(expectedDrops);
          expect(rec.drops.every((d) => d.reason === "not-selected")).toBe(true);
          streams.forEach((s, i) => {
            expect(policy.held(i)).toBe(s.filter((x) => x > last).length);
          });
        },
      ),
      { numRuns: 500 },
    );
  });
});

/**
 * fkie ExactTime's add, restated over sorted arrays (reference §2.2): the oracle the long-stream
 * property compares the policy's event sequence with.
 */
function exactTimeOracle(
  slots: number,
  maxQueueSize: number,
  maxAge: number | null,
  inputs: readonly Input<string>[],
): string[] {
  const held: [number, string][][] = Array.from({ length: slots }, () => []);
  const events: string[] = [];
  const drop = (k: number, i: number, [s, item]: [number, string], reason: string): void => {
    events.push(`${k} drop s${i} ${s} ${reason} | ${item}`);
  };
  inputs.forEach(([slot, stamp, item], k) => {
    const q = held[slot]!;
    if (q.some(([s]) => s === stamp)) {
      drop(k, slot, [stamp, item], "duplicate-stamp");
      return;
    }
    q.push([stamp, item]);
    q.sort((a, b) => a[0] - b[0]);
    const complete = held.every((h) => h.some(([s]) => s === stamp));
    const items: string[] = [];
    if (complete) {
      held.forEach((h, i) => {
        while (h[0]![0] < stamp) {
          drop(k, i, h.shift()!, "not-selected");
        }
        items.push(h.shift()![1]);
      });
    } else if (maxAge != null) {
      held.forEach((h, i) => {
        while (h.length > 0 && h[0]![0] <= stamp - maxAge) {
          drop(k, i, h.shift()!, "max-age");
        }
      });
    }
    if (maxQueueSize > 0 && q.length > maxQueueSize) {
      drop(k, slot, q.shift()!, "queue-overflow");
    }
    if (complete) {
      events.push(`${k} emit ${items.map(() => stamp).join(" ")} | ${items.join(" ")}`);
    }
  });
  // Then reset(true): everything still held, slot by slot, oldest first.
  return [...events, ...resetLines(held, inputs.length - 1)];
}

describe("fkie ExactTime on long streams", () => {
  it("matches the restated algorithm event for event, then drops what it holds on reset (duplicates, late stamps, limits, slots refilled many times)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 3 }),
        fc.integer({ min: 0, max: 12 }),
        fc.option(fc.integer({ min: 5, max: 60 }), { nil: null }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: -8, max: 3 })), { minLength: 150, maxLength: 600 }),
        fc.boolean(),
        (slots, maxQueueSize, maxAge, steps, oddOnSlot0) => {
          // Stamps mostly rise (so slots fill and drain past their capacity), some arrive late.
          // With odd stamps on slot 0 only, nothing matches after a late even stamp and slots
          // hold hundreds of messages when no limit applies.
          let now = 100;
          const inputs: Input<string>[] = steps.map(([pick, jump], k) => {
            now += Math.max(jump, 0);
            const slot = pick % slots;
            const stamp = now + Math.min(jump, 0);
            return [slot, oddOnSlot0 && slot === 0 ? 2 * stamp + 1 : stamp, `m${k}`];
          });
          const policy = new ExactTime<string>(slots, { maxQueueSize, maxAge });
          expect(eventsThenReset(policy, inputs, String)).toEqual(
            exactTimeOracle(slots, maxQueueSize, maxAge, inputs),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
