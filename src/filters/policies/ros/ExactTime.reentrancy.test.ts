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
 * The plain model of ExactTime.property.test.ts, with nesting: each add first updates the tuples
 * (a Map keyed by stamp) and only then reports its events; when the event with a global index in
 * `nestAt` has been reported, the next of `nested` is added right there, before the remaining
 * events of the add that reported it, as a listener calling back into the policy would.
 */
function nestedOracle(
  slots: number,
  queueSize: number,
  adds: readonly Add[],
  nested: readonly Add[],
  nestAt: ReadonlySet<number>,
): Event[] {
  const tuples = new Map<number, (string | undefined)[]>();
  const out: Event[] = [];
  let nextNested = 0;
  let nextItem = 0;
  const process = ({ slot, stamp }: Add): void => {
    const item = `m${nextItem++}`;
    let t = tuples.get(stamp);
    if (t == undefined) {
      t = new Array<string | undefined>(slots).fill(undefined);
      tuples.set(stamp, t);
    }
    const replaced = t[slot];
    t[slot] = item;
    const events: Event[] = [];
    if (replaced != undefined) {
      events.push({ kind: "drop", slot, stamp, item: replaced, reason: "duplicate-stamp" });
    }
    const erased: [number, (string | undefined)[], string][] = [];
    if (t.every((x) => x != undefined)) {
      events.push({ kind: "emit", stamps: new Array<number>(slots).fill(stamp), items: [...t] as string[] });
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
    for (const [s, items, reason] of erased) {
      items.forEach((member, i) => {
        if (member != undefined) {
          events.push({ kind: "drop", slot: i, stamp: s, item: member, reason });
        }
      });
      events.push({ kind: "partial", stamp: s, items: [...items], reason });
    }
    for (const e of events) {
      out.push(e);
      if (nestAt.has(out.length - 1) && nextNested < nested.length) {
        process(nested[nextNested++]!);
      }
    }
  };
  for (const a of adds) {
    process(a);
  }
  return out;
}

function runNested(
  slots: number,
  queueSize: number,
  adds: readonly Add[],
  nested: readonly Add[],
  nestAt: ReadonlySet<number>,
): { events: Event[]; added: number } {
  const out: Event[] = [];
  let nextNested = 0;
  let nesting = true;
  let nextItem = 0;
  const policy = new ExactTime<string>(slots, { queueSize });
  const add = ({ slot, stamp }: Add): void => {
    policy.add(slot, stamp, `m${nextItem++}`, stamp);
  };
  const record = (e: Event): void => {
    out.push(e);
    if (nesting && nestAt.has(out.length - 1) && nextNested < nested.length) {
      add(nested[nextNested++]!);
    }
  };
  policy.setPartialDropCallback((t: PartialTuple<string>) => {
    record({ kind: "partial", stamp: t.stamp, items: [...t.items], reason: t.reason });
  });
  const host = new RecordingHost<string>();
  host.emit = (items, stamps) => { record({ kind: "emit", stamps, items }); };
  host.drop = (slot, stamp, item, reason) => { record({ kind: "drop", slot, stamp, item, reason }); };
  policy.bind(host);
  for (const a of adds) {
    add(a);
  }
  // Whatever is still held comes out once, as reset drops.
  nesting = false;
  policy.reset(true);
  return { events: out, added: nextItem };
}

const addArb = (slots: number) =>
  fc.record({ slot: fc.nat(slots - 1), stamp: fc.integer({ min: 0, max: 12 }).map((s) => s * 1_000_000) });

describe("ros/exact-time with listeners that add messages from inside their callbacks", () => {
  it("reports and emits exactly as the nested model, and every message once", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }).chain((slots) =>
          fc.tuple(
            fc.constant(slots),
            fc.integer({ min: 0, max: 4 }),
            fc.array(addArb(slots), { maxLength: 60 }),
            fc.array(addArb(slots), { maxLength: 40 }),
            fc.uniqueArray(fc.nat(150), { maxLength: 40 }),
          ),
        ),
        ([slots, queueSize, adds, nested, nestAt]) => {
          const at = new Set(nestAt);
          const { events: got, added } = runNested(slots, queueSize, adds, nested, at);
          const expected = nestedOracle(slots, queueSize, adds, nested, at);
          // The run ends with reset drops of what is still held; the model stops before them.
          expect(got.slice(0, expected.length)).toEqual(expected);
          const rest = got.slice(expected.length);
          expect(rest.every((e) => e.kind === "drop" && e.reason === "reset")).toBe(true);
          // Every message is a set member or a drop, exactly once.
          const seen = got.flatMap((e) => (e.kind === "emit" ? e.items : e.kind === "drop" ? [e.item] : []));
          expect(new Set(seen).size).toBe(seen.length);
          expect(seen.length).toBe(added);
        },
      ),
      { numRuns: 400 },
    );
  });
});
