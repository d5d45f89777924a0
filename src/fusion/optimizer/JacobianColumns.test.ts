import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { JacobianColumns } from "./JacobianColumns";

/**
 * The dot product as it was before the row masks (the oracle): the terms over the intersection of
 * the two columns' non-zero row ranges, in ascending row order.
 */
function rangeDot(columns: readonly Float64Array[], p: number, t: number): number {
  const range = (col: Float64Array): [number, number] => {
    let first = col.length;
    let last = -1;
    for (let q = 0; q < col.length; q++) {
      if (col[q] !== 0) {
        first = Math.min(first, q);
        last = q;
      }
    }
    return [first, last];
  };
  const [loP, hiP] = range(columns[p]!);
  const [loT, hiT] = range(columns[t]!);
  let acc = 0;
  for (let q = Math.max(loP, loT); q <= Math.min(hiP, hiT); q++) {
    acc += columns[p]![q]! * columns[t]![q]!;
  }
  return acc;
}

/** Entries that stress the skipped terms: zeros of both signs, products that underflow, and (rarely) non-finite values. */
const entry = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(0, -0) },
  { weight: 4, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(1e-200, -1e-200, 1e-170, -3e-160, 1e300, -1e300) },
  { weight: 1, arbitrary: fc.constantFrom(Infinity, -Infinity, NaN) },
);

const block = fc
  .record({
    m: fc.integer({ min: 1, max: 40 }),
    sizes: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
    finiteOnly: fc.boolean(),
    seed: fc.array(entry, { minLength: 1, maxLength: 200 }),
  })
  .map(({ m, sizes, finiteOnly, seed }) => {
    let at = 0;
    const next = (): number => {
      const v = seed[at++ % seed.length]!;
      return finiteOnly && !Number.isFinite(v) ? 0 : v;
    };
    const jacobians = sizes.map((s) => Float64Array.from({ length: m * s }, next));
    return { m, sizes, jacobians };
  });

describe("JacobianColumns", () => {
  it("dot is bit for bit the row-range sum (masked or not), over every pair of columns", () => {
    const columns = new JacobianColumns();
    fc.assert(
      fc.property(block, ({ m, sizes, jacobians }) => {
        const count = sizes.reduce((a, b) => a + b, 0);
        const order = Int32Array.from({ length: count }, (_, i) => i);
        expect(columns.gather(jacobians, jacobians.length, sizes, m, order, 0)).toBe(count);
        // The same columns, gathered by hand.
        const plain: Float64Array[] = [];
        jacobians.forEach((j, a) => {
          for (let i = 0; i < sizes[a]!; i++) {
            plain.push(Float64Array.from({ length: m }, (_, q) => j[q * sizes[a]! + i]!));
          }
        });
        const finite = jacobians.every((j) => j.every((v) => Number.isFinite(v)));
        expect(columns.masked).toBe(finite && m <= 32);
        for (let p = 0; p < count; p++) {
          for (let t = 0; t < count; t++) {
            const expected = rangeDot(plain, p, t);
            const actual = columns.dot(p, t);
            if (!Object.is(actual, expected)) {
              expect.fail(`dot(${p}, ${t}) = ${actual}, the row-range sum ${expected}`);
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
