import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { wrapAngle } from "./angles";

describe("wrapAngle", () => {
  it("maps worked examples into [-π, π)", () => {
    expect(wrapAngle(0)).toBe(0);
    expect(wrapAngle(1)).toBe(1);
    expect(wrapAngle(Math.PI)).toBe(-Math.PI);
    expect(wrapAngle(-Math.PI)).toBe(-Math.PI);
    expect(wrapAngle(3 * Math.PI)).toBeCloseTo(-Math.PI, 12);
    expect(wrapAngle(7)).toBeCloseTo(7 - 2 * Math.PI, 12);
    expect(wrapAngle(-7)).toBeCloseTo(-7 + 2 * Math.PI, 12);
    expect(wrapAngle(2 * Math.PI + 0.25)).toBeCloseTo(0.25, 12);
  });

  it("is in range and differs from the input by a multiple of 2π", () => {
    fc.assert(
      fc.property(fc.double({ min: -1e4, max: 1e4, noNaN: true }), (a) => {
        const w = wrapAngle(a);
        expect(w).toBeGreaterThanOrEqual(-Math.PI);
        expect(w).toBeLessThan(Math.PI);
        const turns = (a - w) / (2 * Math.PI);
        expect(Math.abs(turns - Math.round(turns))).toBeLessThan(1e-9);
      }),
      { seed: 7, numRuns: 500 },
    );
  });
});
