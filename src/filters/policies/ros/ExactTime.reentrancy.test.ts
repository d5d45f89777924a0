import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ExactTime, type PartialTuple } from "./ExactTime";
import { RecordingHost } from "../testing/RecordingHost";
import { exactTimeModel, type ModelAdd as Add, type ModelEvent as Event } from "../testing/rosExactTimeModel";

/** Runs the policy with listeners that add `nested[j]` after the events whose indices are in `nestAt`. */
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

const addArb = (slots: number, stamps: number) =>
  fc.record({ slot: fc.nat(slots - 1), stamp: fc.nat(stamps - 1).map((s) => s * 1_000_000) });

/** Runs `runNested` and the nested model on the same inputs and compares them. */
function checkAgainstModel(slots: number, queueSize: number, adds: Add[], nested: Add[], nestAt: number[]): void {
  const at = new Set(nestAt);
  const { events: got, added } = runNested(slots, queueSize, adds, nested, at);
  const expected = exactTimeModel(slots, queueSize, adds, { adds: nested, at });
  // The run ends with reset drops of what is still held; the model stops before them.
  expect(got.slice(0, expected.length)).toEqual(expected);
  const rest = got.slice(expected.length);
  expect(rest.every((e) => e.kind === "drop" && e.reason === "reset")).toBe(true);
  // Every message is a set member or a drop, exactly once.
  const seen = got.flatMap((e) => (e.kind === "emit" ? e.items : e.kind === "drop" ? [e.item] : []));
  expect(new Set(seen).size).toBe(seen.length);
  expect(seen.length).toBe(added);
}

describe("ros/exact-time with listeners that add messages from inside their callbacks", () => {
  it("reports and emits exactly as the nested model, and every message once", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }).chain((slots) =>
          fc.tuple(
            fc.constant(slots),
            fc.integer({ min: 0, max: 4 }),
            fc.array(addArb(slots, 13), { maxLength: 60 }),
            fc.array(addArb(slots, 13), { maxLength: 40 }),
            fc.uniqueArray(fc.nat(150), { maxLength: 40 }),
          ),
        ),
        ([slots, queueSize, adds, nested, nestAt]) => {
          checkAgainstModel(slots, queueSize, adds, nested, nestAt);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("likewise when more tuples are held than at first fit, so the storage grows inside callbacks", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 3 }).chain((slots) =>
          fc.tuple(
            fc.constant(slots),
            fc.constantFrom(0, 20, 40),
            fc.array(addArb(slots, 80), { minLength: 20, maxLength: 120 }),
            fc.array(addArb(slots, 80), { maxLength: 60 }),
            fc.uniqueArray(fc.nat(200), { maxLength: 60 }),
          ),
        ),
        ([slots, queueSize, adds, nested, nestAt]) => {
          checkAgainstModel(slots, queueSize, adds, nested, nestAt);
        },
      ),
      { numRuns: 200 },
    );
  });
});
