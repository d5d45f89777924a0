import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ExactTime } from "./ExactTime";
import { RecordingHost } from "../testing/RecordingHost";

interface Add {
  readonly slot: number;
  readonly stamp: number;
}

type Event =
  | { kind: "emit"; stamps: number[]; items: string[] }
  | { kind: "drop"; slot: number; stamp: number; item: string; reason: string };

/**
 * rclpy's TimeSynchronizer.add (8.x) transcribed literally: one dict per slot; store (a replaced
 * message is `duplicate-stamp`, then the smallest keys beyond `queueSize` are `queue-overflow`);
 * search slot 0's keys for the smallest stamp every dict holds; emit it and delete it and every
 * older key of every slot (`not-selected`, reported after the emission, slot by slot in dict
 * order).
 */
function oracle(slots: number, queueSize: number, adds: readonly Add[]): Event[] {
  const dicts = Array.from({ length: slots }, () => new Map<number, string>());
  const out: Event[] = [];
  adds.forEach(({ slot, stamp }, k) => {
    const item = `m${k}`;
    const mine = dicts[slot]!;
    const replaced = mine.get(stamp);
    mine.set(stamp, item);
    if (replaced != undefined) {
      out.push({ kind: "drop", slot, stamp, item: replaced, reason: "duplicate-stamp" });
    }
    while (mine.size > queueSize) {
      const min = Math.min(...mine.keys());
      out.push({ kind: "drop", slot, stamp: min, item: mine.get(min)!, reason: "queue-overflow" });
      mine.delete(min);
    }
    const common = [...dicts[0]!.keys()].filter((t) => dicts.every((d) => d.has(t)));
    if (common.length === 0) {
      return;
    }
    const t = Math.min(...common);
    out.push({ kind: "emit", stamps: dicts.map(() => t), items: dicts.map((d) => d.get(t)!) });
    const older: Event[] = [];
    dicts.forEach((d, s) => {
      d.delete(t);
      for (const [key, held] of [...d]) {
        if (key < t) {
          d.delete(key);
          older.push({ kind: "drop", slot: s, stamp: key, item: held, reason: "not-selected" });
        }
      }
    });
    out.push(...older);
  });
  return out;
}

function run(slots: number, queueSize: number, adds: readonly Add[]): Event[] {
  const policy = new ExactTime<string>(slots, { queueSize });
  const host = new RecordingHost<string>();
  policy.bind(host);
  adds.forEach(({ slot, stamp }, k) => {
    policy.add(slot, stamp, `m${k}`, stamp);
  });
  const out: Event[] = [];
  let e = 0;
  let d = 0;
  for (const kind of host.log) {
    if (kind === "emit") {
      out.push({ kind, stamps: host.tuples[e]!, items: host.items[e]! });
      e++;
    } else {
      const { slot, stamp, item, reason } = host.drops[d]!;
      out.push({ kind, slot, stamp, item, reason });
      d++;
    }
  }
  return out;
}

const scenario = fc.integer({ min: 1, max: 4 }).chain((slots) =>
  fc.record({
    slots: fc.constant(slots),
    queueSize: fc.integer({ min: 1, max: 5 }),
    // Few distinct stamps, in any order: duplicates, overflow and stale stamps are frequent.
    adds: fc.array(
      fc.record({
        slot: fc.integer({ min: 0, max: slots - 1 }),
        stamp: fc.integer({ min: 0, max: 12 }),
      }),
      { maxLength: 80 },
    ),
  }),
);

describe("python/exact-time against a literal transcription of rclpy", () => {
  it("emits, drops and their order are the transcription's", () => {
    fc.assert(
      fc.property(scenario, ({ slots, queueSize, adds }) => {
        expect(run(slots, queueSize, adds)).toEqual(oracle(slots, queueSize, adds));
      }),
      { numRuns: 500 },
    );
  });
});
