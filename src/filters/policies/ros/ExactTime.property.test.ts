import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ExactTime, type PartialTuple } from "./ExactTime";
import { RecordingHost } from "../testing/RecordingHost";
import { exactTimeModel as oracle, type ModelAdd as Add, type ModelEvent as Event } from "../testing/rosExactTimeModel";

function run(slots: number, queueSize: number, adds: readonly Add[]): Event[] {
  const out: Event[] = [];
  const policy = new ExactTime<string>(slots, { queueSize }).setPartialDropCallback((t: PartialTuple<string>) => {
    out.push({ kind: "partial", stamp: t.stamp, items: [...t.items], reason: t.reason });
  });
  const host = new RecordingHost<string>();
  host.emit = (items, stamps) => out.push({ kind: "emit", stamps, items });
  host.drop = (slot, stamp, item, reason) => out.push({ kind: "drop", slot, stamp, item, reason });
  policy.bind(host);
  adds.forEach(({ slot, stamp }, k) => {
    policy.add(slot, stamp, `m${k}`, stamp);
  });
  return out;
}

describe("ros/exact-time against a plain model of ROS's algorithm", () => {
  it("emits, drops and reports partial tuples exactly as the model, for any arrival order", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 0, max: 5 }),
        fc.array(fc.record({ slot: fc.nat(3), stamp: fc.integer({ min: 0, max: 12 }) }), { maxLength: 80 }),
        (slots, queueSize, raw) => {
          // Few distinct stamps: tuples complete, collide (duplicate-stamp), overflow and go stale.
          const adds = raw.map((a) => ({ slot: a.slot % slots, stamp: a.stamp * 1_000_000 }));
          expect(run(slots, queueSize, adds)).toEqual(oracle(slots, queueSize, adds));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("accounts for every message: each is a set member, a drop, or still held", () => {
    const adds: Add[] = [];
    for (let k = 0; k < 300; k++) {
      // Every 10th message missing (its tuple goes stale), every 17th sent twice (a duplicate).
      if (k % 10 !== 9) {
        adds.push({ slot: k % 3, stamp: Math.floor(k / 3) * 1_000_000 });
      }
      if (k % 17 === 0) {
        adds.push({ slot: k % 3, stamp: Math.floor(k / 3) * 1_000_000 });
      }
    }
    const events = run(3, 4, adds);
    const members = events.filter((e) => e.kind === "emit").length * 3;
    const drops = events.filter((e) => e.kind === "drop").length;
    expect(members).toBeGreaterThan(0);
    expect(drops).toBeGreaterThan(0);
    // At most queueSize tuples of at most 3 messages each are still held at the end.
    expect(adds.length - members - drops).toBeGreaterThanOrEqual(0);
    expect(adds.length - members - drops).toBeLessThanOrEqual(4 * 3);
  });
});
