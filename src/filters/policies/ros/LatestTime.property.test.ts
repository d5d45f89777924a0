/**
 * Property test of ros/latest-time against a plain model of ROS's algorithm (the estimators
 * sorted by rate for every pivot search, as ROS does), on random arrival patterns: topics at
 * shared or own rates (equal rates tie the sort), jitter, rate steps, repeated arrival times,
 * first arrivals out of slot order, random rate configs, both estimator mappings.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { LatestTime } from "./LatestTime";
import { mulberry32 } from "../../../testing/random";
import { Recorder } from "../testing/policyRecorder";
import { LatestTimeModel, type LatestTimeModelRate } from "../testing/rosLatestTimeModel";

interface Arrival {
  readonly id: number;
  readonly slot: number;
  readonly at: number;
}

const MS = 1_000_000;

const scenarioArb = fc
  .record({
    slots: fc.integer({ min: 2, max: 4 }),
    seed: fc.integer(),
    perSlot: fc.integer({ min: 1, max: 40 }),
    jitter: fc.constantFrom(0, 0, 0.1, 0.4),
    steps: fc.constantFrom(0, 0.2),
    repeats: fc.constantFrom(0, 0.05),
    sharedPeriods: fc.boolean(),
  })
  .map(({ slots, seed, perSlot, jitter, steps, repeats, sharedPeriods }) => {
    const rnd = mulberry32(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const arrivals: Arrival[] = [];
    let id = 0;
    for (let slot = 0; slot < slots; slot++) {
      // Shared periods without jitter give equal rates, which the sort must keep in index order.
      let period = sharedPeriods ? pick([10, 20]) * MS : Math.round((5 + rnd() * 60) * MS);
      let at = Math.round(rnd() * 50 * MS);
      const n = 1 + Math.floor(rnd() * perSlot);
      for (let k = 0; k < n; k++) {
        arrivals.push({ id: id++, slot, at });
        if (rnd() < steps) {
          period = Math.max(MS, Math.round(period * pick([0.25, 0.5, 2, 4])));
        }
        const step = rnd() < repeats ? 0 : period + Math.round((rnd() * 2 - 1) * jitter * period);
        at += Math.max(0, step);
      }
    }
    arrivals.sort((a, b) => (a.at !== b.at ? a.at - b.at : a.slot - b.slot));
    return { slots, arrivals };
  });

const configArb = fc.record({
  alphaRate: fc.double({ min: 0, max: 1, noNaN: true }),
  alphaError: fc.double({ min: 0, max: 1, noNaN: true }),
  margin: fc.double({ min: 0, max: 20, noNaN: true }),
});

describe("ros/latest-time properties", () => {
  it("event for event the same as a plain model of ROS's algorithm", () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.option(fc.array(configArb, { minLength: 4, maxLength: 4 }), { nil: undefined }),
        fc.boolean(),
        ({ slots, arrivals }, configs, fixFirstArrivalOrder) => {
          const rateConfig = configs?.slice(0, slots);
          const policy = new LatestTime<Arrival>(slots, { rateConfig, fixFirstArrivalOrder });
          const rec = new Recorder<Arrival>();
          policy.bind(rec);
          const defaults: LatestTimeModelRate = { alphaRate: 0.9, alphaError: 0.3, margin: 10 };
          const model = new LatestTimeModel<Arrival>(
            Array.from({ length: slots }, (_, i) => rateConfig?.[i] ?? defaults),
            { fixFirstArrivalOrder },
          );
          for (const a of arrivals) {
            policy.add(a.slot, a.at, a, a.at);
            model.add(a.slot, a.at, a);
          }
          const ids = (items: Arrival[]): string => items.map((a) => a.id).join(",");
          expect(
            rec.events.map((e) =>
              e.kind === "tuple"
                ? `emit ${ids(e.items)}`
                : `drop ${e.slot} #${e.item.id} ${e.reason}`,
            ),
          ).toEqual(
            model.events.map((e) =>
              e.kind === "emit"
                ? `emit ${ids(e.items)}`
                : `drop ${e.slot} #${e.item.id} ${e.reason}`,
            ),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});
