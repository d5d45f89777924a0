/**
 * Property test of ros/approximate-time against a plain model of ROS's algorithm (every head,
 * count and candidate found afresh), on random streams: 2–4 topics, jitter, repeated stamps,
 * stamps on a grid (ties across topics), cross-topic interleavings, small queues (overflow and
 * search recovery), age penalties, max intervals, and inter-message lower bounds that are
 * correct, zero or too large.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ApproximateTime } from "./ApproximateTime";
import { mulberry32 } from "../../../testing/random";
import type { Stamp } from "../../../time";
import { eventLines } from "../testing/policyModel";
import { Recorder } from "../testing/policyRecorder";
import { RosApproximateTimeModel } from "../testing/rosApproximateTimeModel";

interface Msg {
  readonly id: number;
  readonly slot: number;
  readonly stamp: Stamp;
}

const scenarioArb = fc
  .record({
    slots: fc.integer({ min: 2, max: 4 }),
    seed: fc.integer(),
    perSlot: fc.integer({ min: 1, max: 30 }),
    repeats: fc.constantFrom(0, 0, 0.2),
    maxLatency: fc.constantFrom(0, 5, 40),
    // Stamps on a coarse grid tie across topics, which exercises every tie rule.
    grid: fc.constantFrom(1, 1, 5, 10),
  })
  .map(({ slots, seed, perSlot, repeats, maxLatency, grid }) => {
    const rnd = mulberry32(seed);
    const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
    const streams: Msg[][] = [];
    const minGap: number[] = [];
    let id = 0;
    for (let slot = 0; slot < slots; slot++) {
      const period = int(2, 40);
      const jitter = int(0, Math.floor(period / 2));
      const msgs: Msg[] = [];
      let prev = 0;
      let gap = Infinity;
      const n = int(1, perSlot);
      for (let k = 0; k < n; k++) {
        let stamp = 1 + int(0, 20) + k * period * int(1, 2) + int(-jitter, jitter);
        stamp =
          rnd() < repeats && k > 0 ? prev : Math.max(Math.round(stamp / grid) * grid, prev + grid);
        if (k > 0) {
          gap = Math.min(gap, stamp - prev);
        }
        msgs.push({ id: id++, slot, stamp });
        prev = stamp;
      }
      streams.push(msgs);
      minGap.push(gap === Infinity ? 0 : gap);
    }
    // Arrival: each topic in its own order, topics interleaved by stamp plus a random latency.
    const keyed: { m: Msg; key: number }[] = [];
    for (const msgs of streams) {
      let last = -Infinity;
      for (const m of msgs) {
        last = Math.max(last, m.stamp + int(0, maxLatency));
        keyed.push({ m, key: last });
      }
    }
    keyed.sort((a, b) => (a.key !== b.key ? a.key - b.key : a.m.slot - b.m.slot));
    return { slots, arrival: keyed.map((x) => x.m), minGap };
  });

describe("ros/approximate-time properties", () => {
  it("event for event the same as a plain model of ROS's algorithm", () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.record({
          queueSize: fc.constantFrom(1, 2, 3, 5, 10),
          agePenalty: fc.constantFrom(0, 0.1, 0.5, 2),
          maxInterval: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
          boundFactor: fc.constantFrom(0, 0, 0.5, 1, 3), // 3 = a bound that is too large
        }),
        ({ slots, arrival, minGap }, cfg) => {
          const lowerBound = minGap.map((g) => Math.floor(g * cfg.boundFactor));
          const policy = new ApproximateTime<Msg>(slots, {
            queueSize: cfg.queueSize,
            agePenalty: cfg.agePenalty,
            maxIntervalDuration: cfg.maxInterval,
            interMessageLowerBound: lowerBound,
          });
          const rec = new Recorder<Msg>();
          policy.bind(rec);
          const model = new RosApproximateTimeModel<Msg>(slots, {
            queueSize: cfg.queueSize,
            agePenalty: cfg.agePenalty,
            lowerBound,
            maxInterval: cfg.maxInterval ?? Infinity,
          });
          for (const m of arrival) {
            policy.add(m.slot, m.stamp, m, m.stamp);
            model.add(m.slot, m.stamp, m);
          }
          const id = (m: Msg): number => m.id;
          expect(eventLines(rec.events, id)).toEqual(eventLines(model.events, id));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
