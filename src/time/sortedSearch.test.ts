import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { lowerBound, lowerBoundBy, upperBound } from "./sortedSearch";

// Oracle: a linear scan over the same range.
function linear(a: readonly number[], x: number, from: number, to: number, bound: "lower" | "upper"): number {
  for (let i = from; i < to; i++) {
    if (bound === "upper" ? a[i]! > x : a[i]! >= x) {
      return i;
    }
  }
  return to;
}

const sortedWithRange = fc
  .array(fc.integer({ min: -20, max: 20 }), { maxLength: 40 })
  .map((a) => a.sort((p, q) => p - q))
  .chain((a) =>
    fc
      .tuple(fc.nat({ max: a.length }), fc.nat({ max: a.length }), fc.integer({ min: -25, max: 25 }))
      .map(([p, q, x]) => ({ a, from: Math.min(p, q), to: Math.max(p, q), x })),
  );

describe("sortedSearch", () => {
  it("lowerBound and upperBound agree with a linear scan on any range", () => {
    fc.assert(
      fc.property(sortedWithRange, ({ a, from, to, x }) => {
        expect(lowerBound(a, x, from, to)).toBe(linear(a, x, from, to, "lower"));
        expect(upperBound(a, x, from, to)).toBe(linear(a, x, from, to, "upper"));
        expect(lowerBound(Float64Array.from(a), x)).toBe(linear(a, x, 0, a.length, "lower"));
        expect(lowerBoundBy(a.length, (i) => a[i]!, x)).toBe(linear(a, x, 0, a.length, "lower"));
      }),
    );
  });

  it("places equal keys: lower bound before them, upper bound after them", () => {
    const a = [1, 2, 2, 2, 5];
    expect(lowerBound(a, 2)).toBe(1);
    expect(upperBound(a, 2)).toBe(4);
    expect(upperBound(a, 2, 4)).toBe(4);
    expect(lowerBound(a, 9)).toBe(5);
  });
});
