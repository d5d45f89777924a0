import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { JacobianColumns } from "./JacobianColumns";
import { PatternProducts } from "./PatternProducts";
import type { JacobianPattern } from "../math/JacobianPattern";

/** Patterned values that stress the extra terms: zeros of both signs and products that underflow. */
const value = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0, -0) },
  { weight: 6, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(1e-200, -1e-200, 1e-170, -3e-160, 1e300, -1e300) },
);
const nonFinite = fc.constantFrom(Infinity, -Infinity, NaN);

/**
 * A pattern, Jacobian blocks that keep to it (±0 outside it), residuals, and distinct global
 * columns for the blocks' columns in any order (a pattern's blocks need not ascend).
 */
const patterned = fc
  .record({
    m: fc.integer({ min: 1, max: 32 }),
    sizes: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }),
    maskSeed: fc.array(fc.integer(), { minLength: 1, maxLength: 20 }),
    values: fc.array(value, { minLength: 1, maxLength: 200 }),
    outside: fc.array(fc.constantFrom(0, -0), { minLength: 1, maxLength: 7 }),
    residuals: fc.array(value, { minLength: 1, maxLength: 32 }),
    shuffle: fc.array(fc.nat(), { minLength: 1, maxLength: 20 }),
    spare: fc.nat({ max: 6 }),
  })
  .map(({ m, sizes, maskSeed, values, outside, residuals, shuffle, spare }) => {
    const full = m === 32 ? -1 : (1 << m) - 1;
    let c = 0;
    const rowMasks = sizes.map((size) =>
      Array.from({ length: size }, () => maskSeed[c++ % maskSeed.length]! & full),
    );
    const pattern: JacobianPattern = { numResiduals: m, rowMasks };
    const stride = m * Math.max(...sizes) + spare;
    const jac = new Float64Array(stride * sizes.length).fill(NaN);
    let at = 0;
    let zero = 0;
    sizes.forEach((size, a) => {
      for (let q = 0; q < m; q++) {
        for (let i = 0; i < size; i++) {
          jac[a * stride + q * size + i] =
            ((rowMasks[a]![i]! >>> q) & 1) === 1
              ? values[at++ % values.length]!
              : outside[zero++ % outside.length]!;
        }
      }
    });
    const r = Float64Array.from({ length: m }, (_, q) => residuals[q % residuals.length]!);
    const count = sizes.reduce((s, x) => s + x, 0);
    const globals = Int32Array.from({ length: count }, (_, i) => i);
    for (let i = count - 1; i > 0; i--) {
      const j = shuffle[i % shuffle.length]! % (i + 1);
      [globals[i], globals[j]] = [globals[j]!, globals[i]!];
    }
    return { pattern, stride, jac, r, sizes, globals, count, m };
  });

type Case = typeof patterned extends fc.Arbitrary<infer T> ? T : never;

/** The general path: the blocks gathered by JacobianColumns and added by addToSkyline. */
function general(b: Case, h: Float64Array, rowBase: Int32Array, g: Float64Array): void {
  const jacobians = b.sizes.map((size, a) =>
    b.jac.subarray(a * b.stride, a * b.stride + b.m * size),
  );
  // Gathered column p goes to the place of its global column among the ascending ones.
  const ascending = Array.from(b.globals).sort((x, y) => x - y);
  const order = Int32Array.from(b.globals, (gc) => ascending.indexOf(gc));
  const columns = new JacobianColumns();
  columns.gather(jacobians, jacobians.length, b.sizes, b.m, order, 0);
  columns.addToSkyline(h, rowBase, g, Int32Array.from(ascending), 0, b.r);
}

/** Whether some column's Σ_q J[q, c]·r[q] (over the whole column) is not finite. */
function overflows(b: Case): boolean {
  return b.sizes.some((size, a) =>
    Array.from({ length: size }, (_, i) => i).some((i) => {
      let acc = 0;
      for (let q = 0; q < b.m; q++) {
        acc += b.jac[a * b.stride + q * size + i]! * b.r[q]!;
      }
      return !Number.isFinite(acc);
    }),
  );
}

function skyline(n: number): { rowBase: Int32Array; size: number } {
  // Full lower triangle: (i, j) at i(i+1)/2 + j.
  return {
    rowBase: Int32Array.from({ length: n }, (_, i) => (i * (i + 1)) / 2),
    size: (n * (n + 1)) / 2,
  };
}

function expectSameBits(actual: Float64Array, expected: Float64Array, what: string): void {
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i])) {
      expect.fail(`${what}[${i}] = ${actual[i]!}, the general path's ${expected[i]!}`);
    }
  }
}

describe("PatternProducts", () => {
  it("adds JᵀJ and Jᵀr bit for bit as gather + addToSkyline, block after block", () => {
    fc.assert(
      fc.property(fc.array(patterned, { minLength: 1, maxLength: 3 }), (blocks) => {
        const n = Math.max(...blocks.map((b) => b.count));
        const { rowBase, size } = skyline(n);
        const h = new Float64Array(size);
        const g = new Float64Array(n);
        const hGeneral = new Float64Array(size);
        const gGeneral = new Float64Array(n);
        for (const b of blocks) {
          const products = new PatternProducts(b.pattern, b.stride);
          expect(products.columns).toBe(b.count);
          // With finite values it declines only when a column's Jᵀr overflows (the solver then
          // takes the general path, so that is what this side does too).
          const taken = products.accumulate(b.jac, b.r, b.globals, h, rowBase, g);
          expect(taken).toBe(!overflows(b));
          if (!taken) {
            general(b, h, rowBase, g);
          }
          general(b, hGeneral, rowBase, gGeneral);
        }
        expectSameBits(h, hGeneral, "h");
        expectSameBits(g, gGeneral, "g");
      }),
      { numRuns: 1000 },
    );
  });

  it("writes nothing and returns false when a patterned entry or a residual is not finite", () => {
    fc.assert(
      fc.property(patterned, nonFinite, fc.nat(), fc.boolean(), (b, bad, which, inResiduals) => {
        const entries: number[] = [];
        b.sizes.forEach((size, a) => {
          for (let q = 0; q < b.m; q++) {
            for (let i = 0; i < size; i++) {
              if (((b.pattern.rowMasks[a]![i]! >>> q) & 1) === 1) {
                entries.push(a * b.stride + q * size + i);
              }
            }
          }
        });
        if (inResiduals || entries.length === 0) {
          b.r[which % b.m] = bad;
        } else {
          b.jac[entries[which % entries.length]!] = bad;
        }
        const { rowBase, size } = skyline(b.count);
        const h = new Float64Array(size).fill(1);
        const g = new Float64Array(b.count).fill(1);
        expect(
          new PatternProducts(b.pattern, b.stride).accumulate(b.jac, b.r, b.globals, h, rowBase, g),
        ).toBe(false);
        expect(h.every((v) => v === 1) && g.every((v) => v === 1)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses more than 32 residuals and a stride narrower than a block", () => {
    expect(() => new PatternProducts({ numResiduals: 33, rowMasks: [[1]] }, 100)).toThrow(
      RangeError,
    );
    expect(() => new PatternProducts({ numResiduals: 4, rowMasks: [[1, 2]] }, 7)).toThrow(
      RangeError,
    );
  });
});
