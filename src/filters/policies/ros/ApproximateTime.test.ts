import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ApproximateTime, type RosApproximateTimeOptions } from "./ApproximateTime";
import { mulberry32Uint } from "../../../testing/random";
import { recordingHostOf, type RecordingHost } from "../testing/RecordingHost";

const S = 1_000_000_000; // 1 s in ns, as the upstream tests use

/** Feeds `[seconds, topic]` events (upstream's TimeAndTopic) and returns tuples in seconds. */
function run(
  slots: number,
  options: RosApproximateTimeOptions,
  input: readonly (readonly [number, number])[],
): { tuples: number[][]; host: RecordingHost<string> } {
  const policy = new ApproximateTime<string>(slots, options);
  const host = recordingHostOf(policy);
  input.forEach(([sec, topic], k) => {
    policy.add(topic, sec * S, `${topic}@${sec}#${k}`, sec * S);
  });
  const tuples = host.tuples.map((t) => t.map((ns) => ns / S));
  // Account for every message: emitted once, dropped once, or still held (reported by reset).
  const emittedBefore = host.tuples.length;
  policy.reset(true);
  expect(host.tuples.length).toBe(emittedBefore);
  expect(host.accounted()).toBe(input.length);
  const seen = new Set<string>();
  for (const item of [...host.items.flat(), ...host.drops.map((d) => d.item)]) {
    expect(seen.has(item)).toBe(false);
    seen.add(item);
  }
  return { tuples, host };
}

// Upstream: ros2/message_filters test/test_approximate_time_policy.cpp. Inputs and expected
// outputs are the upstream ones (t = 0, s = 1 s, queue 10, age penalty 0.1 unless stated).
describe("ros/approximate-time upstream scenarios", () => {
  it("ExactMatch", () => {
    const { tuples } = run(2, { queueSize: 10 }, [
      [0, 0], [0, 1], [3, 0], [3, 1], [6, 0], [6, 1],
    ]);
    expect(tuples).toEqual([[0, 0], [3, 3], [6, 6]]);
  });

  it("PerfectMatch", () => {
    const { tuples } = run(2, { queueSize: 10 }, [
      [0, 0], [1, 1], [3, 0], [4, 1], [6, 0], [7, 1],
    ]);
    expect(tuples).toEqual([[0, 1], [3, 4]]);
  });

  it("ImperfectMatch, with the skipped messages reported", () => {
    const { tuples, host } = run(2, { queueSize: 10 }, [
      [0, 0], [1, 1], [2, 0], [3, 0], [5, 1], [6, 0], [7, 1],
    ]);
    expect(tuples).toEqual([[0, 1], [6, 5]]);
    // Hand trace (§2.1): x(2) is discarded when {b,B} replaces {x,B}; b(3) is discarded when
    // c(6) arrives and {c,B} beats {b,B} ((6-5)*1.1 < 5-3). C(7) is still held (reset drop).
    expect(host.drops.map((d) => [d.slot, d.stamp / S, d.reason])).toEqual([
      [0, 2, "not-selected"],
      [0, 3, "not-selected"],
      [1, 7, "reset"],
    ]);
  });

  it("Acceleration", () => {
    const { tuples } = run(2, { queueSize: 10 }, [
      [0, 0], [7, 1], [12, 0], [15, 1], [17, 0], [18, 1],
    ]);
    expect(tuples).toEqual([[12, 7], [17, 18]]);
  });

  const dropped = [
    [0, 0], [1, 1], [3, 1], [4, 0], [7, 1], [8, 0], [10, 0], [11, 1], [13, 0], [14, 1],
  ] as const;

  it("DroppedMessages, queue 1 (too small)", () => {
    const { tuples, host } = run(2, { queueSize: 1 }, dropped);
    expect(tuples).toEqual([[4, 3], [10, 11]]);
    expect(host.drops.some((d) => d.reason === "queue-overflow")).toBe(true);
  });

  it("DroppedMessages, queue 2 (just enough)", () => {
    const { tuples } = run(2, { queueSize: 2 }, dropped);
    expect(tuples).toEqual([[0, 1], [4, 3], [8, 7], [10, 11]]);
  });

  it("LongQueue, queue 5", () => {
    const input: [number, number][] = [];
    for (let t = 0; t <= 8; t++) {
      input.push([t, 0]);
    }
    input.push([3, 1], [9, 0], [10, 0], [11, 0], [12, 0], [10, 1], [13, 0]);
    const { tuples } = run(2, { queueSize: 5 }, input);
    expect(tuples).toEqual([[10, 10]]);
  });

  it("DoublePublish: one add emits two sets", () => {
    const policy = new ApproximateTime<string>(2, { queueSize: 10 });
    const host = recordingHostOf(policy);
    policy.add(0, 0, "a", 0);
    policy.add(1, 1 * S, "A", 1 * S);
    policy.add(1, 3 * S, "B", 3 * S);
    expect(host.tuples).toEqual([]);
    policy.add(0, 3 * S, "b", 3 * S);
    expect(host.items).toEqual([["a", "A"], ["b", "B"]]);
    expect(host.drops).toEqual([]);
  });

  it("FourTopics", () => {
    const { tuples } = run(4, { queueSize: 10 }, [
      [0, 0], [1, 1], [2, 2], [3, 3], [5, 0], [5, 3], [6, 1], [6, 2],
      [8, 0], [9, 1], [10, 2], [11, 3], [10, 0], [13, 0], [14, 1],
    ]);
    expect(tuples).toEqual([[0, 1, 2, 3], [5, 6, 6, 5], [10, 9, 10, 11]]);
  });

  it("EarlyPublish", () => {
    const { tuples } = run(4, { queueSize: 10 }, [[0, 0], [1, 1], [2, 2], [3, 3], [7, 0]]);
    expect(tuples).toEqual([[0, 1, 2, 3]]);
  });

  const rateInput = [[0, 0], [1, 1], [3, 0], [4, 1], [6, 0], [7, 1]] as const;

  it("RateBound 1.5 s on slot 0", () => {
    const { tuples } = run(2, { queueSize: 10, interMessageLowerBound: [1.5 * S, 0] }, rateInput);
    expect(tuples).toEqual([[0, 1], [3, 4]]);
  });

  it("RateBound 2 s on slot 0 proves the last set early", () => {
    const { tuples } = run(2, { queueSize: 10, interMessageLowerBound: [2 * S, 0] }, rateInput);
    expect(tuples).toEqual([[0, 1], [3, 4], [6, 7]]);
  });

  // ROS 1 only (RateBoundAll used the all-topics overload); the same bounds set per slot.
  it("RateBoundAll (ROS 1 overload, as per-slot bounds)", () => {
    const a = run(2, { queueSize: 10, interMessageLowerBound: [1.5 * S, 1.5 * S] }, rateInput);
    expect(a.tuples).toEqual([[0, 1], [3, 4]]);
    const b = run(2, { queueSize: 10, interMessageLowerBound: [2 * S, 2 * S] }, rateInput);
    expect(b.tuples).toEqual([[0, 1], [3, 4], [6, 7]]);
  });
});

describe("ros/approximate-time details", () => {
  it("max interval filters only new candidates and reports max-timespan", () => {
    // a(0) / A(5): span 5 s > 2 s, so a is deleted; b(4)/A(5) spans 1 s and becomes the candidate;
    // B(6) arrives; heads b(4), A... hand trace: {b,A} candidate (pivot slot 1, pivot time 5),
    // b moves to past; virtual search cannot prove it (c may still come at 5); c(5) arrives:
    // heads c(5), A(5): end tie -> slot 1 (highest), start c... equal -> slot 0; (5-5)*1.1 = 0
    // < 5-4 = 1 -> {c,A} better; A is start? no: start = slot 0 (c, lowest on tie) -> c to past;
    // age 0 >= 5-5 = 0 -> publish {c,A}. b was discarded as not-selected.
    const { tuples, host } = run(2, { queueSize: 10, maxIntervalDuration: 2 * S }, [
      [0, 0], [5, 1], [4, 0], [5, 0],
    ]);
    expect(tuples).toEqual([[5, 5]]);
    expect(host.drops.map((d) => [d.slot, d.stamp / S, d.reason])).toEqual([
      [0, 0, "max-timespan"],
      [0, 4, "not-selected"],
    ]);
  });

  it("an end tie picks the HIGHEST slot as pivot (C++ `(t < time) ^ end`), which clears a drop flag", () => {
    // Hand trace of approximate_time.hpp, 3 slots, queue 1 (§2.1 says "lowest"; the code says
    // highest, and that changes the output here):
    // b(1) s1; b'(5) s1 overflows: b dropped, has_dropped[1] = true; c(5) s2; a(0) s0 -> heads
    // 0/5/5: start slot 0, end slot 2 (tie 5/5 -> highest), flags cleared except slot 2; {a,b',c}
    // becomes the candidate (pivot 2, time 5), a moves to the past; the virtual search cannot
    // prove it. a'(6) s0 -> heads 6/5/5: start slot 1 (tie -> lowest), end slot 0;
    // (6-5)*1.1 < 5-0 so {a',b',c} is better (a dropped); b' moves to the past;
    // (6-6)*1.1 >= 5-5 -> publish {a', b', c}.
    // With "lowest" the pivot would have been slot 1 (flagged), a would have been deleted at once
    // and the set {a', b', c} would still be waiting after a'.
    const { tuples, host } = run(3, { queueSize: 1 }, [[1, 1], [5, 1], [5, 2], [0, 0], [6, 0]]);
    expect(tuples).toEqual([[6, 5, 5]]);
    expect(host.drops.map((d) => [d.slot, d.stamp / S, d.reason])).toEqual([
      [1, 1, "queue-overflow"],
      [0, 0, "not-selected"],
    ]);
  });

  it("age penalty products are truncated to whole nanoseconds", () => {
    // Candidate {a(0), A(10ns)}; then b(19ns): heads b(19)/A(10): start A = pivot. Before that the
    // comparison (19-10)*1.1 = 9.9 -> 9 ns vs (10-0) = 10 -> 9 < 10, {b,A} is better; publish
    // {b, A}. With rounding instead of truncation the result would be the same here, so also
    // check the boundary: b(20ns): (20-10)*1.1 = 11 >= 10 -> {a,A} kept.
    const setsWithBAt = (b: number): string[][] => {
      const policy = new ApproximateTime<string>(2, { queueSize: 10 });
      const host = recordingHostOf(policy);
      policy.add(0, 0, "a", 0);
      policy.add(1, 10, "A", 10);
      policy.add(0, b, "b", b);
      return host.items;
    };
    expect(setsWithBAt(19)).toEqual([["b", "A"]]);
    expect(setsWithBAt(20)).toEqual([["a", "A"]]);
  });

  it("a headerless message is reported as no-header", () => {
    const p = new ApproximateTime<string>(2, { queueSize: 2 });
    const h = recordingHostOf(p);
    p.add(0, NaN, "x", 5);
    expect(h.drops.map((d) => d.reason)).toEqual(["no-header"]);
  });

  it("rejects bad options with the field named", () => {
    expect(() => new ApproximateTime(2, { queueSize: 0 })).toThrow(/queueSize/);
    expect(() => new ApproximateTime(2, { queueSize: 3, agePenalty: -1 })).toThrow(/agePenalty/);
    expect(() => new ApproximateTime(2, { queueSize: 3, interMessageLowerBound: [1] })).toThrow(
      /interMessageLowerBound/,
    );
    expect(() => new ApproximateTime(2, { queueSize: 3, maxIntervalDuration: -5 })).toThrow(
      /maxIntervalDuration/,
    );
    const p = new ApproximateTime(2, { queueSize: 3 });
    expect(p.setAgePenalty(0.5).setMaxIntervalDuration(null).setInterMessageLowerBound(1, 7)).toBe(p);
  });

  it("grows its rings for large queues and keeps order", () => {
    const input: [number, number][] = [];
    for (let t = 0; t < 100; t++) {
      input.push([t, 0]);
    }
    input.push([50, 1]);
    const { tuples } = run(2, { queueSize: 1000 }, input);
    expect(tuples).toEqual([[50, 50]]);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties of §2.1 (ROS wiki guarantees) against a brute-force oracle written here.

interface Msg {
  topic: number;
  index: number;
  stamp: number;
}

/** Per-topic strictly increasing stamps (small integers so that cross-topic ties happen). */
const streamsArb = fc
  .integer({ min: 2, max: 4 })
  .chain((n) =>
    fc.array(
      fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 7 }).map((a) => a.sort((x, y) => x - y)),
      { minLength: n, maxLength: n },
    ),
  );

/** Interleaves per-topic streams using a list of topic picks, keeping each topic's order. */
function interleave(streams: number[][], picks: number[]): Msg[] {
  const pos = streams.map(() => 0);
  const out: Msg[] = [];
  let p = 0;
  const total = streams.reduce((a, s) => a + s.length, 0);
  while (out.length < total) {
    const want = picks.length > 0 ? picks[p++ % picks.length]! % streams.length : 0;
    // the first topic at or after `want` that still has messages
    for (let k = 0; k < streams.length; k++) {
      const t = (want + k) % streams.length;
      if (pos[t]! < streams[t]!.length) {
        out.push({ topic: t, index: pos[t]!, stamp: streams[t]![pos[t]!]! });
        pos[t]!++;
        break;
      }
    }
  }
  return out;
}

/** Output as per-topic message indices. */
function feed(streams: number[][], order: Msg[], agePenalty: number): number[][] {
  const policy = new ApproximateTime<Msg>(streams.length, { queueSize: 1000, agePenalty });
  const host = recordingHostOf(policy);
  for (const m of order) {
    policy.add(m.topic, m.stamp, m, m.stamp);
  }
  // No overflow: nothing is dropped except skipped messages, and stamps match items.
  for (const d of host.drops) {
    expect(d.reason).toBe("not-selected");
  }
  host.items.forEach((set, k) => { set.forEach((m, i) => { expect(host.tuples[k]![i]).toBe(m.stamp); }); });
  policy.reset(true);
  expect(host.accounted()).toBe(order.length);
  return host.items.map((set) =>
    set.map((m, i) => {
      expect(m.topic).toBe(i);
      return m.index;
    }),
  );
}

/** Three far-future messages per topic, topic by topic in stamp order. */
function tail(streams: number[][]): Msg[] {
  const out: Msg[] = [];
  [1000, 2000, 3000].forEach((stamp, r) => { streams.forEach((s, topic) => out.push({ topic, index: s.length + r, stamp })); },
  );
  return out;
}

function size(streams: number[][], set: number[]): number {
  const stamps = set.map((idx, i) => streams[i]![idx]!);
  return Math.max(...stamps) - Math.min(...stamps);
}

/** Brute force: the minimal size over all sets contiguous to `prev` (-1s before the first set). */
function minContiguousSize(streams: number[][], prev: number[]): number {
  let best = Infinity;
  const cur = prev.map((p) => p + 1);
  const rec = (i: number): void => {
    if (i === streams.length) {
      if (cur.some((c, k) => c === prev[k]! + 1)) {
        best = Math.min(best, size(streams, cur));
      }
      return;
    }
    for (let idx = prev[i]! + 1; idx < streams[i]!.length; idx++) {
      cur[i] = idx;
      rec(i + 1);
    }
  };
  rec(0);
  return best;
}

describe("ros/approximate-time guarantees (fast-check vs brute force)", () => {
  it("sets use each message once, do not cross, are contiguous, and are minimal (age penalty 0)", () => {
    fc.assert(
      fc.property(streamsArb, fc.array(fc.nat(), { maxLength: 40 }), (streams, picks) => {
        const out = feed(streams, interleave(streams, picks), 0);
        let prev = streams.map(() => -1);
        for (const set of out) {
          // do not cross (implies each message used once)
          set.forEach((idx, i) => { expect(idx).toBeGreaterThan(prev[i]!); });
          // contiguous: some topic skipped nothing since the previous set
          expect(set.some((idx, i) => idx === prev[i]! + 1)).toBe(true);
          // minimal among the sets contiguous to the previous one
          expect(size(streams, set)).toBe(minContiguousSize(streams, prev));
          prev = set;
        }
      }),
      { numRuns: 1500 },
    );
  });

  it("output depends only on the stamps, not on the arrival order across topics", () => {
    fc.assert(
      fc.property(
        streamsArb,
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.constantFrom(0, 0.1, 0.5),
        (streams, picksA, picksB, agePenalty) => {
          // C++ runs the search only when a deque becomes non-empty, so when the stream stops one
          // order may still hold a set the other already emitted: one output is a prefix of the
          // other. Once far-future messages arrive on every topic (same order for both), the
          // sets made of real messages are identical.
          const a = feed(streams, interleave(streams, picksA), agePenalty);
          const b = feed(streams, interleave(streams, picksB), agePenalty);
          const k = Math.min(a.length, b.length);
          expect(a.slice(0, k)).toEqual(b.slice(0, k));
          const flushed = streams.map((s) => [...s, 1000, 2000, 3000]);
          const real = (out: number[][]) => out.filter((set) => set.every((idx, i) => idx < streams[i]!.length));
          const fa = real(feed(flushed, [...interleave(streams, picksA), ...tail(streams)], agePenalty));
          const fb = real(feed(flushed, [...interleave(streams, picksB), ...tail(streams)], agePenalty));
          expect(fa).toEqual(fb);
          expect(fa.slice(0, Math.max(a.length, b.length))).toEqual(a.length > b.length ? a : b);
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe("ros/approximate-time under overflow and max interval", () => {
  it("accounts for every message exactly once and never crosses sets", () => {
    fc.assert(
      fc.property(
        streamsArb,
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.integer({ min: 1, max: 3 }),
        fc.option(fc.integer({ min: 0, max: 15 }), { nil: null }),
        (streams, picks, queueSize, maxInterval) => {
          const order = interleave(streams, picks);
          const policy = new ApproximateTime<Msg>(streams.length, {
            queueSize,
            maxIntervalDuration: maxInterval,
          });
          const host = recordingHostOf(policy);
          for (const m of order) {
            policy.add(m.topic, m.stamp, m, m.stamp);
          }
          policy.reset(true);
          const seen = new Set<Msg>();
          for (const m of [...host.items.flat(), ...host.drops.map((d) => d.item)]) {
            expect(seen.has(m)).toBe(false);
            seen.add(m);
          }
          expect(seen.size).toBe(order.length);
          let prev = streams.map(() => -1);
          for (const set of host.items) {
            set.forEach((m, i) => {
              expect(m.topic).toBe(i);
              expect(m.index).toBeGreaterThan(prev[i]!);
            });
            if (maxInterval != null) {
              const stamps = set.map((m) => m.stamp);
              expect(Math.max(...stamps) - Math.min(...stamps)).toBeLessThanOrEqual(maxInterval);
            }
            prev = set.map((m) => m.index);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("ros/approximate-time on W3 (shared/bench/W3.md), N = 100,000", () => {
  it("reproduces the stream hash and emits one set per topic-A message", () => {
    const next = mulberry32Uint(42);
    const N = 100_000;
    const rates = [30, 100, 50];
    const nominal = (i: number, k: number) => 1e9 + Math.floor((k * 1e9) / rates[i]!);
    const count = [0, 0, 0];
    const per: number[][] = [[], [], []];
    for (let step = 0; step < N; step++) {
      let best = 0;
      for (let i = 1; i < 3; i++) {
        if (nominal(i, count[i]!) < nominal(best, count[best]!)) {
          best = i;
        }
      }
      const j = (next() % 4_000_001) - 2_000_000;
      const prevStamp = per[best]![per[best]!.length - 1] ?? -Infinity;
      per[best]!.push(Math.max(nominal(best, count[best]!) + j, prevStamp + 1));
      count[best]!++;
    }
    const pos = [0, 0, 0];
    const policy = new ApproximateTime<number>(3, { queueSize: 10 });
    let tuples = 0;
    policy.bind({
      emit: () => {
        tuples++;
      },
      drop: () => undefined,
    });
    let h = 1469598103934665603n;
    const mask = (1n << 64n) - 1n;
    for (let n = 0; n < N; n++) {
      let best = -1;
      for (let i = 0; i < 3; i++) {
        if (pos[i]! < per[i]!.length && (best < 0 || per[i]![pos[i]!]! < per[best]![pos[best]!]!)) {
          best = i;
        }
      }
      const stamp = per[best]![pos[best]!++]!;
      h = ((h ^ (BigInt(stamp) * 4n + BigInt(best))) * 1099511628211n) & mask;
      policy.add(best, stamp, n, stamp);
    }
    expect(h.toString(16)).toBe("26e623e5432f3e50");
    expect(count).toEqual([16_667, 55_555, 27_778]);
    expect(tuples).toBe(16_667);
  });
});
