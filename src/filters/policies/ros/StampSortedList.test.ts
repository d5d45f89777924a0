import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { StampSortedList } from "./StampSortedList";

describe("StampSortedList", () => {
  it("holds what a plain sorted array holds, through any inserts and front erasures", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.record({ insert: fc.integer({ min: 0, max: 60 }) }), fc.record({ erase: fc.nat(5) })), {
          maxLength: 400,
        }),
        (ops) => {
          const list = new StampSortedList<{ stamp: number }>();
          let model: number[] = [];
          for (const op of ops) {
            if ("insert" in op) {
              const at = list.lowerBound(op.insert);
              expect(at).toBe(model.filter((s) => s < op.insert).length);
              list.insert(at, { stamp: op.insert });
              model.splice(at, 0, op.insert);
            } else {
              const n = Math.min(op.erase, model.length);
              list.removeFront(n);
              model = model.slice(n);
            }
            expect(list.length).toBe(model.length);
            expect(Array.from({ length: list.length }, (_, i) => list.at(i).stamp)).toEqual(model);
          }
          expect(list.drain().map((e) => e.stamp)).toEqual(model);
          expect(list.length).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps the newest entries in order through many moves back to the start (a steady stream)", () => {
    const list = new StampSortedList<{ stamp: number }>();
    let most = 0;
    for (let k = 0; k < 10_000; k++) {
      list.insert(list.lowerBound(k), { stamp: k });
      most = Math.max(most, list.length);
      if (list.length > 10) {
        list.removeFront(1);
      }
    }
    expect(most).toBe(11);
    expect(Array.from({ length: list.length }, (_, i) => list.at(i).stamp)).toEqual(
      Array.from({ length: 10 }, (_, i) => 9_990 + i),
    );
  });
});
