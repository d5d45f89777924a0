import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { wrapAngle } from "./angles";

/** fuse_core::wrapAngle2D as written in fuse (reference/fuse.md §6), the oracle. */
function fuseWrapAngle2D(angle: number): number {
  return angle - 2 * Math.PI * Math.floor((angle + Math.PI) / (2 * Math.PI));
}

/** The double `steps` ulps away from `x` in magnitude (away from 0 for steps > 0). */
function ulpsFrom(x: number, steps: number): number {
  const bits = new Float64Array([x]);
  new BigInt64Array(bits.buffer)[0]! += BigInt(steps);
  return bits[0]!;
}

/** Angles where the fast path's boundary lies: a few ulps either side of ±π, 3π, ±2π and 0. */
const boundaryAngles = fc
  .tuple(fc.constantFrom(Math.PI, 3 * Math.PI, 2 * Math.PI, 1e-300), fc.integer({ min: -4, max: 4 }), fc.boolean())
  .map(([x, steps, negative]) => (negative ? -1 : 1) * ulpsFrom(x, steps));

describe("wrapAngle", () => {
  it("maps worked examples into [-π, π)", () => {
    expect(wrapAngle(0)).toBe(0);
    expect(Object.is(wrapAngle(-0), -0)).toBe(true);
    expect(wrapAngle(1)).toBe(1);
    expect(wrapAngle(Math.PI)).toBe(-Math.PI);
    expect(wrapAngle(-Math.PI)).toBe(-Math.PI);
    expect(wrapAngle(3 * Math.PI)).toBeCloseTo(-Math.PI, 12);
    expect(wrapAngle(7)).toBeCloseTo(7 - 2 * Math.PI, 12);
    expect(wrapAngle(-7)).toBeCloseTo(-7 + 2 * Math.PI, 12);
    expect(wrapAngle(2 * Math.PI + 0.25)).toBeCloseTo(0.25, 12);
    expect(wrapAngle(Infinity)).toBeNaN();
    expect(wrapAngle(NaN)).toBeNaN();
  });

  it("takes the double just below π one ulp below −π, as fuse's formula does", () => {
    const belowPi = ulpsFrom(Math.PI, -1);
    expect(wrapAngle(belowPi)).toBe(ulpsFrom(Math.PI, 1) * -1);
    expect(wrapAngle(belowPi)).toBeLessThan(-Math.PI);
  });

  it("is fuse's wrapAngle2D bit for bit, at the fast path's boundaries and anywhere", () => {
    fc.assert(
      fc.property(fc.oneof(boundaryAngles, fc.double({ min: -1e4, max: 1e4 }), fc.double()), (a) => {
        expect(Object.is(wrapAngle(a), fuseWrapAngle2D(a))).toBe(true);
      }),
      { seed: 7, numRuns: 2000 },
    );
  });

  it("is in range and differs from the input by a multiple of 2π", () => {
    const belowPi = ulpsFrom(Math.PI, -1);
    fc.assert(
      fc.property(fc.double({ min: -1e4, max: 1e4, noNaN: true }), (a) => {
        const w = wrapAngle(a);
        expect(w).toBeGreaterThanOrEqual(a === belowPi ? ulpsFrom(-Math.PI, 1) : -Math.PI);
        expect(w).toBeLessThan(Math.PI);
        const turns = (a - w) / (2 * Math.PI);
        expect(Math.abs(turns - Math.round(turns))).toBeLessThan(1e-9);
      }),
      { seed: 7, numRuns: 500 },
    );
  });
});
