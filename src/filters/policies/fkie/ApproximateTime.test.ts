import { describe, expect, it } from "vitest";

import { ApproximateTime } from "./ApproximateTime";
import { TimeBase } from "../../../time";
import { adding, describeEvents, eventsOf, feed, Recorder, t, type Input } from "../testing/policyRecorder";

const MS = 1_000_000;

/**
 * Upstream test_combiner_approximate_time.cpp (ROS 2 form, which adds the out-of-order tail to the
 * 1.x one): three slots, `set_max_age(10 s)`, payloads equal within each expected set. Upstream
 * asserts only callback counts (1 after input 7, 3 after 10, 3 after 12, 4 after 15, 5 after 21
 * and 25); the exact tuples below are hand-traced through reference §2.1.
 */
const UPSTREAM: Input<number>[] = [
  [0, t(99, 2), 0], // 0
  [1, t(100, 1), 1], // 1
  [1, t(100, 20), 0], // 2 extra message
  [2, t(100, 2), 1], // 3
  [0, t(100, 0), 1], // 4
  [0, t(101, 0), 2], // 5
  [1, t(101, 2), 2], // 6
  [2, t(101, 1), 2], // 7
  [0, t(102, 0), 3], // 8
  [1, t(102, 0), 3], // 9
  [2, t(102, 0), 3], // 10
  [0, t(103, 1), 4], // 11
  [1, t(103, 0), 4], // 12 (slot 2 misses this round)
  [0, t(104, 2), 5], // 13
  [1, t(104, 1), 5], // 14
  [2, t(104, 0), 5], // 15
  [0, t(105, 0), 0], // 16 old messages get dropped
  [1, t(116, 0), 6], // 17
  [2, t(116, 0), 6], // 18
  [0, t(130, 0), 7], // 19
  [1, t(130, 0), 7], // 20
  [2, t(130, 0), 7], // 21
  [0, t(140, 0), 8], // 22 the filter resets on an earlier stamp
  [1, t(140, 0), 8], // 23
  [1, t(99, 0), 0], // 24
  [2, t(140, 0), 8], // 25
];

// Trace (stamps as sec.nsec; "pivot" = slot of the latest head, td = distance to it):
//  3: heads 99.2/100.1/100.2 → pivot slot 2 (100.2). Slot 0 is alone and earlier → waits.
//     Slot 1: td(100.20) = 18 ns is not < td(100.1) = 1 ns → optimal.
//  4: slot 0 [99.2, 100.0]: td 2 ns < 1 s → 99.2 passed over (not-selected); 100.0 is alone and
//     earlier than the pivot → waits again (the issue-#2 lag).
//  5: 101.0 is farther than 100.0 → slot 0 optimal → emit (100.0, 100.1, 100.2).
//  7: pivot slot 2 (101.1); slot 1 [100.20, 101.2] → 100.20 passed over; slot 0 (101.0) waits.
//  8: 102.0 is farther than 101.0 → emit (101.0, 101.2, 101.1).
// 10: all heads 102.0 → pivot ties to slot 0; nothing is earlier → emit at once.
// 15: pivot slot 2 (104.0); slots 0 and 1 each pass over their 103.x head → emit.
// 17: cutoff 106.0: head 105.0 < cutoff → max-age. 19: cutoff 120.0 expires both 116.0 heads.
// 24: 99.0 < latest 140.0 on slot 1 → reset drops what is held; 99.0 stays.
// 25: cutoff 130.0 expires 99.0; 140.0 is left held on slot 2.
const UPSTREAM_EVENTS = [
  "4 drop s0 99.2 not-selected | 0",
  "5 emit 100.0 100.1 100.2 | 1 1 1",
  "7 drop s1 100.20 not-selected | 0",
  "8 emit 101.0 101.2 101.1 | 2 2 2",
  "10 emit 102.0 102.0 102.0 | 3 3 3",
  "15 drop s0 103.1 not-selected | 4",
  "15 drop s1 103.0 not-selected | 4",
  "15 emit 104.2 104.1 104.0 | 5 5 5",
  "17 drop s0 105.0 max-age | 0",
  "19 drop s1 116.0 max-age | 6",
  "19 drop s2 116.0 max-age | 6",
  "21 emit 130.0 130.0 130.0 | 7 7 7",
  "24 drop s0 140.0 out-of-order-reset | 8",
  "24 drop s1 140.0 out-of-order-reset | 8",
  "25 drop s1 99.0 max-age | 0",
];

describe("fkie ApproximateTime: upstream scenario", () => {
  it.each([false, true])(
    "reproduces test_combiner_approximate_time exactly (ros1OutOfOrder=%s)",
    (ros1OutOfOrder) => {
      const policy = new ApproximateTime<number>(3, { ros1OutOfOrder }).setMaxAge(t(10));
      const rec = feed(policy, UPSTREAM);
      expect(describeEvents(rec.events)).toEqual(UPSTREAM_EVENTS);
      // Upstream's checkpoints: callback counts after inputs 7, 10, 12, 15, 21, 25.
      const countAfter = (i: number) => rec.tuples.filter((e) => e.after <= i).length;
      expect([7, 10, 12, 15, 21, 25].map(countAfter)).toEqual([1, 3, 3, 4, 5, 5]);
      // Upstream's sink check: equal payloads in every set.
      for (const e of rec.tuples) {
        expect(new Set(e.items).size).toBe(1);
      }
      expect([0, 1, 2].map((i) => policy.held(i))).toEqual([0, 0, 1]);
    },
  );

  it("a sink exception propagates out of add with the state already advanced", () => {
    const policy = new ApproximateTime<number>(3).setMaxAge(t(10));
    const rec = new Recorder<number>();
    rec.onEmit = (_items, stamps) => {
      if (stamps[0] === t(101, 0)) {
        throw new Error("sink failure");
      }
    };
    expect(() => feed(policy, UPSTREAM.slice(0, 9), rec)).toThrow("sink failure");
    // The failing set (input 8) was taken out before the sink ran; the rest continues normally.
    feed(policy, UPSTREAM.slice(9), rec);
    expect(describeEvents(rec.events)).toEqual(UPSTREAM_EVENTS);
  });
});

describe("fkie ApproximateTime: derived cases (reference §3)", () => {
  // Two 1 Hz topics, B 1 ms after A.
  const issue2: Input<string>[] = [1, 2, 3, 4].flatMap((k): Input<string>[] => [
    [0, t(k), `a${k}`],
    [1, t(k, MS), `b${k}`],
  ]);

  it("issue #2: without minDistance every set waits one full period", () => {
    // A(k) is earlier than the pivot B(k) and alone on its slot, so it waits for A(k+1), which
    // is farther from the pivot: the set goes out only then.
    expect(eventsOf(new ApproximateTime<string>(2, { maxAge: null }), issue2)).toEqual([
      "2 emit 1.0 1.1000000 | a1 b1",
      "4 emit 2.0 2.1000000 | a2 b2",
      "6 emit 3.0 3.1000000 | a3 b3",
    ]);
  });

  it("issue #2: minDistance of half a period emits each set as soon as it is complete", () => {
    // A's next message is >= A + 0.5 s, which is farther from the pivot than A (1 ms): optimal.
    const policy = new ApproximateTime<string>(2, {
      maxAge: null,
      minDistance: [500 * MS, 500 * MS],
    });
    const events = eventsOf(policy, issue2);
    expect(events).toEqual([
      "1 emit 1.0 1.1000000 | a1 b1",
      "3 emit 2.0 2.1000000 | a2 b2",
      "5 emit 3.0 3.1000000 | a3 b3",
      "7 emit 4.0 4.1000000 | a4 b4",
    ]);
    // The setter gives the same result.
    const viaSetter = new ApproximateTime<string>(2, { maxAge: null })
      .setMinDistance(0, 500 * MS)
      .setMinDistance(1, 500 * MS);
    expect(eventsOf(viaSetter, issue2)).toEqual(events);
  });

  it("setMinDistance between messages applies to a slot already waiting for its next message", () => {
    // b100 is the pivot; a90 waits (a later message on slot 0 could be closer) until its
    // minimum distance proves a90 optimal. The next add, on the pivot's slot, emits the set.
    const policy = new ApproximateTime<string>(2, { maxAge: null });
    const rec = feed(policy, [[0, 90, "a90"], [1, 100, "b100"]]);
    expect(rec.tuples).toEqual([]);
    policy.setMinDistance(0, 30);
    feed(policy, [[1, 120, "b120"]], rec);
    expect(rec.tuples.map((e) => e.items)).toEqual([["a90", "b100"]]);
  });

  it("issue #2 with maxAge 0.5 s: nothing is ever emitted", () => {
    // Each A(k+1) arrives with cutoff A(k+1) − 0.5 s, past both waiting heads of round k.
    expect(eventsOf(new ApproximateTime<string>(2, { maxAge: 500 * MS }), issue2)).toEqual([
      "2 drop s0 1.0 max-age | a1",
      "2 drop s1 1.1000000 max-age | b1",
      "4 drop s0 2.0 max-age | a2",
      "4 drop s1 2.1000000 max-age | b2",
      "6 drop s0 3.0 max-age | a3",
      "6 drop s1 3.1000000 max-age | b3",
    ]);
  });

  const timespan: Input<string>[] = [[0, 100 * MS, "a100"], [1, 150 * MS, "b150"], [0, 200 * MS, "a200"], [1, 205 * MS, "b205"], [0, 300 * MS, "a300"]];

  it("maxTimespan drops the pivot and restarts from the remaining heads", () => {
    // 2: pivot b150; a200 is exactly as far as a100 (50 ms), not strictly closer → a100 is the
    //    best match, but 50 ms > 10 ms → the pivot b150 is dropped; slot 1 is then empty.
    // 3: pivot b205; a200 (5 ms) is closer than a100 → a100 passed over; a200 < pivot waits.
    // 4: a300 is farther → emit (a200, b205), span 5 ms.
    expect(eventsOf(new ApproximateTime<string>(2, { maxAge: null, maxTimespan: 10 * MS }), timespan)).toEqual([
      "2 drop s1 0.150000000 max-timespan | b150",
      "3 drop s0 0.100000000 not-selected | a100",
      "4 emit 0.200000000 0.205000000 | a200 b205",
    ]);
    // Without the constraint the 50 ms set goes out.
    expect(eventsOf(new ApproximateTime<string>(2, { maxAge: null }), timespan)).toEqual([
      "2 emit 0.100000000 0.150000000 | a100 b150",
      "4 emit 0.200000000 0.205000000 | a200 b205",
    ]);
  });

  it("maxTimespan ignores stamp zero (fkie's 'unset' sentinel), unless zero is moved", () => {
    const inputs: Input<string>[] = [[0, 0, "a0"], [1, 50 * MS, "b50"], [0, 200 * MS, "a200"]];
    // Heads (0, 50 ms): the timespan helper skips the 0, sees a span of 0 and emits.
    const quirk = new ApproximateTime<string>(2, { maxAge: null, maxTimespan: 10 * MS });
    expect(eventsOf(quirk, inputs)).toEqual(["2 emit 0.0 0.50000000 | a0 b50"]);
    // With zero = -Infinity (an epoch time base) 0 is an ordinary stamp: span 50 ms → pivot drop.
    const plain = new ApproximateTime<string>(2, {
      maxAge: null,
      maxTimespan: 10 * MS,
      zero: -Infinity,
    });
    expect(eventsOf(plain, inputs)).toEqual(["2 drop s1 0.50000000 max-timespan | b50"]);
  });

  it("all-zero heads never form a pivot", () => {
    const inputs: Input<string>[] = [[0, 0, "a"], [1, 0, "b"], [0, 5, "c"], [1, 5, "d"]];
    const stuck = new ApproximateTime<string>(2, { maxAge: null });
    expect(feed(stuck, inputs).events).toEqual([]);
    expect([stuck.held(0), stuck.held(1)]).toEqual([2, 2]);
    // On an epoch base (zero = -Infinity) 0 is an ordinary stamp: (a, b) match, then (c, d).
    const epoch = new ApproximateTime<string>(2, { maxAge: null, zero: -Infinity });
    expect(eventsOf(epoch, inputs)).toEqual(["1 emit 0.0 0.0 | a b", "3 emit 0.5 0.5 | c d"]);
  });

  const burst: Input<string>[] = [[0, 10 * MS, "a10"], [0, 20 * MS, "a20"], [0, 30 * MS, "a30"], [1, 11 * MS, "b11"], [1, 21 * MS, "b21"]];

  it("maxQueueSize 1 keeps head + 1 per slot, unlimited keeps everything", () => {
    // q = 1: the third A overflows the slot (a10 dropped, a20 becomes the head, pivot reset).
    // 3: pivot a20; b11 is earlier and alone → waits. 4: b21 is closer → b11 passed over → emit.
    expect(eventsOf(new ApproximateTime<string>(2).setMaxQueueSize(1), burst)).toEqual([
      "2 drop s0 0.10000000 queue-overflow | a10",
      "4 drop s1 0.11000000 not-selected | b11",
      "4 emit 0.20000000 0.21000000 | a20 b21",
    ]);
    // Unlimited: 3: pivot b11; a20 (9 ms) is not closer than a10 (1 ms) → emit (a10, b11).
    expect(eventsOf(new ApproximateTime<string>(2, { maxAge: null }), burst)).toEqual([
      "3 emit 0.10000000 0.11000000 | a10 b11",
      "4 emit 0.20000000 0.21000000 | a20 b21",
    ]);
  });

  it("out of order: ROS 2 also sees already-emitted stamps, ROS 1 only held ones", () => {
    const inputs: Input<string>[] = [[0, 100 * MS, "a100"], [1, 100 * MS, "b100"], [0, 200 * MS, "a200"], [1, 90 * MS, "b90"], [1, 210 * MS, "b210"]];
    // ROS 2: b90 < latest(slot 1) = b100 (already emitted) → reset drops a200.
    expect(eventsOf(new ApproximateTime<string>(2, { maxAge: null }), inputs)).toEqual([
      "1 emit 0.100000000 0.100000000 | a100 b100",
      "3 drop s0 0.200000000 out-of-order-reset | a200",
    ]);
    // ROS 1: slot 1 holds nothing at input 3, so b90 is accepted; b210 is then closer to the
    // pivot a200 → b90 passed over → emit (a200, b210).
    expect(eventsOf(new ApproximateTime<string>(2, { maxAge: null, ros1OutOfOrder: true }), inputs)).toEqual([
      "1 emit 0.100000000 0.100000000 | a100 b100",
      "4 drop s1 0.90000000 not-selected | b90",
      "4 emit 0.200000000 0.210000000 | a200 b210",
    ]);
  });

  it.each([false, true])(
    "out of order within held messages resets both variants; equal stamps do not (ros1=%s)",
    (ros1OutOfOrder) => {
      const policy = new ApproximateTime<string>(2, { maxAge: null, ros1OutOfOrder });
      // b's stamp equals a's: in order. c is earlier: the reset drops a and b, c stays.
      expect(eventsOf(policy, [[0, 100, "a"], [0, 100, "b"], [0, 90, "c"]], String)).toEqual([
        "2 drop s0 100 out-of-order-reset | a",
        "2 drop s0 100 out-of-order-reset | b",
      ]);
      expect(policy.held(0)).toBe(1);
    },
  );

  it("epoch-scale stamps 1 ns apart stay exact", () => {
    const base = TimeBase.forFirstStamp(1_700_000_000_000_000_000n);
    expect(base.zero).toBe(-Infinity);
    const s = (ns: string) => base.fromString(ns);
    const fmt = (x: number) => base.format(x);
    const policy = new ApproximateTime<string>(2, { maxAge: null, zero: base.zero });
    // 1: pivot …013; …010 is earlier and alone → waits. 2: …012 is 1 ns from the pivot, closer
    // than …010 (3 ns) → passed over; …012 still earlier → waits. 3: …015 (2 ns) is farther.
    const inputs: Input<string>[] = [
      [0, s("1700000000000000010"), "a10"],
      [1, s("1700000000000000013"), "b13"],
      [0, s("1700000000000000012"), "a12"],
      [0, s("1700000000000000015"), "a15"],
    ];
    expect(eventsOf(policy, inputs, fmt)).toEqual([
      "2 drop s0 1700000000000000010 not-selected | a10",
      "3 emit 1700000000000000012 1700000000000000013 | a12 b13",
    ]);
    // The base's own second (relative stamp 0) is an ordinary stamp on an epoch base.
    const atBase = new ApproximateTime<string>(2, { maxAge: null, zero: base.zero });
    const second = s("1700000000000000000");
    expect(eventsOf(atBase, [[0, second, "a"], [1, second, "b"]], fmt)).toEqual([
      "1 emit 1700000000000000000 1700000000000000000 | a b",
    ]);
  });

  it("one add can emit several sets", () => {
    // Slot 1 (pivot 10) accumulates 20 and 30 while a5 waits. a21 is farther from 10 than a5 →
    // emit (a5, b10); new pivot a21 (latest head, 21 > 20); 30 is farther than 20 → emit again.
    const inputs: Input<string>[] = [[0, 5, "a5"], [1, 10, "b10"], [1, 20, "b20"], [1, 30, "b30"], [0, 21, "a21"]];
    expect(eventsOf(new ApproximateTime<string>(2, { maxAge: null }), inputs, String)).toEqual([
      "4 emit 5 10 | a5 b10",
      "4 emit 21 20 | a21 b20",
    ]);
  });

  it("age expiry: heads with `<`, queued messages with `<=`", () => {
    // Slot 2 stays empty so nothing is emitted. At input 5 (stamp 150, cutoff 100) slot 0 is
    // [a:100, b:100, c:105]: head a (== cutoff) stays, queued b (<= cutoff) expires.
    // At input 6 (cutoff 101) both 100-heads are finally below the cutoff.
    const policy = new ApproximateTime<string>(3, { maxAge: 50 });
    const inputs: Input<string>[] = [[0, 100, "a"], [0, 100, "b"], [0, 105, "c"], [1, 100, "d"], [1, 120, "e"], [1, 150, "f"], [2, 151, "g"]];
    expect(eventsOf(policy, inputs, String)).toEqual([
      "5 drop s0 100 max-age | b",
      "6 drop s0 100 max-age | a",
      "6 drop s1 100 max-age | d",
      // Then pivot g:151; slot 1 [e:120, f:150] passes over e; a and f are earlier and wait.
      "6 drop s1 120 not-selected | e",
    ]);
    expect([0, 1, 2].map((i) => policy.held(i))).toEqual([1, 1, 1]);
  });

  it.each([false, true])(
    "an add from a drop listener during age expiry keeps the outer message's stamp (ros1OutOfOrder=%s)",
    (ros1OutOfOrder) => {
      // With an age limit, add hands its stamp to the expiry and order check through a scratch
      // slot, which the nested add below writes too while the outer add (b) is expiring a. The
      // ROS 2 check must still record b's 200 as slot 0's latest stamp: d (195) then resets.
      // Expected events as before that change (68bc4d7).
      const policy = new ApproximateTime<string>(2, { maxAge: 50, ros1OutOfOrder });
      const log: string[] = [];
      let nested = false;
      policy.bind({
        emit: (items, stamps) => log.push(`set ${items.join(",")} ${stamps.join(",")}`),
        drop: (slot, stamp, item, reason) => {
          log.push(`drop s${slot} ${stamp} ${reason} | ${item}`);
          if (!nested) {
            nested = true;
            policy.add(1, 190, "n", 190);
          }
        },
      });
      for (const [slot, stamp, item] of [[0, 100, "a"], [0, 200, "b"], [1, 205, "c"], [1, 210, "e"], [0, 195, "d"]] as const) {
        policy.add(slot, stamp, item, stamp);
      }
      expect(log).toEqual([
        "drop s0 100 max-age | a",
        "drop s1 190 not-selected | n",
        "set b,c 200,205",
        ...(ros1OutOfOrder ? [] : ["drop s1 210 out-of-order-reset | e"]),
      ]);
      expect([policy.held(0), policy.held(1)]).toEqual(ros1OutOfOrder ? [1, 1] : [1, 0]);
    },
  );

  it("reset(true) reports everything held as `reset` and forgets the latest stamps", () => {
    const policy = new ApproximateTime<string>(2, { maxAge: null });
    const rec = feed(policy, [[0, 100, "a"], [0, 110, "b"]]);
    policy.reset(true);
    expect(describeEvents(rec.events, String)).toEqual(["1 drop s0 100 reset | a", "1 drop s0 110 reset | b"]);
    // No out-of-order reset after reset(): the latest stamps were forgotten.
    feed(policy, [[0, 50, "c"]], rec);
    expect(rec.events).toHaveLength(2);
    policy.reset();
    expect(policy.held(0)).toBe(0);
    expect(rec.events).toHaveLength(2);
  });
});

describe("fkie ApproximateTime: configuration", () => {
  it("has fkie's defaults and setter side effects; constructor options have none", () => {
    const d = new ApproximateTime(2);
    expect([d.maxQueueSize, d.maxAge, d.maxTimespan, d.minDistance(1)]).toEqual([0, 1e9, null, 0]);
    expect(new ApproximateTime(2, { maxQueueSize: 5 }).maxAge).toBe(1e9);
    expect(new ApproximateTime(2, { maxAge: 7, maxQueueSize: 5 }).maxQueueSize).toBe(5);
    expect(new ApproximateTime(2).setMaxQueueSize(5).maxAge).toBeNull();
    expect(new ApproximateTime(2).setMaxQueueSize(5, 3).maxAge).toBe(3);
    expect(new ApproximateTime(2, { maxQueueSize: 5 }).setMaxAge(3).maxQueueSize).toBe(0);
    expect(new ApproximateTime(2).setMaxTimespan(4).maxTimespan).toBe(4);
    const p = new ApproximateTime(2);
    expect(p.type).toBe("fkie/approximate-time");
    expect(p.acceptsHeaderless).toBe(false);
  });

  it("rejects bad options and bad input with specific errors", () => {
    expect(() => new ApproximateTime(0)).toThrow(/positive integer/);
    expect(() => new ApproximateTime(2, { minDistance: [1] })).toThrow(/1 entries .* 2 slots/);
    expect(() => new ApproximateTime(2, { maxAge: -1 })).toThrow(/maxAge/);
    expect(() => new ApproximateTime(2, { maxQueueSize: 1.5 })).toThrow(/maxQueueSize/);
    expect(() => new ApproximateTime(2).setMinDistance(2, 1)).toThrow(/slot 2 does not exist/);
    const p = new ApproximateTime<number>(2);
    p.bind(new Recorder());
    expect(adding(p, 2, 1, 1)).toThrow(/slot 2 does not exist/);
    expect(adding(p, 0, NaN, 1)).toThrow(/no-header/);
    const unbound = new ApproximateTime<number>(1, { maxAge: null });
    expect(adding(unbound, 0, 1, 1)).toThrow(/before bind/);
  });

  it("allocates queues as they fill: maxQueueSize 1e9 costs nothing up front", () => {
    // A ring sized for the limit would need 8 GB of stamps per slot (a RangeError or an
    // out-of-memory crash here).
    const policy = new ApproximateTime<number>(3, { maxQueueSize: 1e9, maxAge: null });
    const inputs: Input<number>[] = [];
    for (let i = 1; i <= 50; i++) {
      inputs.push([0, i * 10, i]);
    }
    inputs.push([1, 255, 0], [2, 255, 0]);
    const rec = feed(policy, inputs);
    expect(policy.maxQueueSize).toBe(1e9);
    expect(describeEvents(rec.tuples, String)).toEqual(["51 emit 250 255 255 | 25 0 0"]);
    expect(policy.held(0)).toBe(25);
  });

  it("grows unlimited queues without losing order", () => {
    const policy = new ApproximateTime<number>(2, { maxAge: null });
    const inputs: Input<number>[] = [];
    for (let i = 1; i <= 100; i++) {
      inputs.push([0, i * 10, i]);
    }
    inputs.push([1, 505, 0], [1, 995, 0]);
    const rec = feed(policy, inputs);
    // 100: pivot b505; slot 0 passes over 10..490 and stops at 500 (510 is as far, not closer).
    // 101: pivot b995; slot 0 passes over 510..980 and stops at 990 (1000 is as far).
    expect(describeEvents(rec.tuples, String)).toEqual([
      "100 emit 500 505 | 50 0",
      "101 emit 990 995 | 99 0",
    ]);
    expect(rec.drops).toHaveLength(49 + 48);
    expect(rec.drops.every((d) => d.reason === "not-selected")).toBe(true);
    expect(policy.held(0)).toBe(1);
  });
});
