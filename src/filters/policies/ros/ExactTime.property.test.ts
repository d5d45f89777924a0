import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ExactTime, type PartialTuple } from "./ExactTime";
import { RecordingHost } from "../testing/RecordingHost";

interface Add {
  readonly slot: number;
  readonly stamp: number;
}

type Event =
  | { kind: "emit"; stamps: number[]; items: string[] }
  | { kind: "drop"; slot: number; stamp: number; item: string; reason: string }
  | { kind: "partial"; stamp: number; items: (string | undefined)[]; reason: string };

/**
 * ROS 2 ExactTime (reference ros-message-filters.md §2.2) as a plain model: tuples in a Map keyed
 * by stamp, sorted afresh whenever order matters. Per add: store (a replaced message is a
 * `duplicate-stamp` drop, reported first); a complete tuple is emitted and it and every older
 * tuple are erased; then the oldest tuples beyond `queueSize` are erased; erased tuples are
 * reported after the emission, oldest first, each message in slot order, then the partial tuple.
 */
function oracle(slots: number, queueSize: number, adds: readonly Add[]): Event[] {
  const tuples = new Map<number, (string | undefined)[]>();
  const out: Event[] = [];
  adds.forEach(({ slot, stamp }, k) => {
    const item = `m${k}`;
    let t = tuples.get(stamp);
    if (t == undefined) {
      t = new Array<string | undefined>(slots).fill(undefined);
      tuples.set(stamp, t);
    }
    const replaced = t[slot];
    t[slot] = item;
    const erased: [number, (string | undefined)[], string][] = [];
    let emit: Event | undefined;
    if (t.every((x) => x != undefined)) {
      emit = { kind: "emit", stamps: new Array<number>(slots).fill(stamp), items: [...t] as string[] };
      for (const s of [...tuples.keys()].sort((a, b) => a - b)) {
        if (s <= stamp) {
          if (s !== stamp) {
            erased.push([s, tuples.get(s)!, "not-selected"]);
          }
          tuples.delete(s);
        }
      }
    }
    while (queueSize > 0 && tuples.size > queueSize) {
      const oldest = Math.min(...tuples.keys());
      erased.push([oldest, tuples.get(oldest)!, "queue-overflow"]);
      tuples.delete(oldest);
    }
    if (replaced != undefined) {
      out.push({ kind: "drop", slot, stamp, item: replaced, reason: "duplicate-stamp" });
    }
    if (emit) {
      out.push(emit);
    }
    for (const [s, items, reason] of erased) {
      items.forEach((member, i) => {
        if (member != undefined) {
          out.push({ kind: "drop", slot: i, stamp: s, item: member, reason });
        }
      });
      out.push({ kind: "partial", stamp: s, items: [...items], reason });
    }
  });
  return out;
}

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
