import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { envelopeCholesky } from "./envelopeCholesky";
import { envelopeSolve, envelopeSolveRows } from "./envelopeSolve";

/** A diagonally dominant envelope (so the factorization runs to the end) in skyline storage. */
const factored = fc
  .record({
    widths: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 50 }),
    entries: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 64 }),
    boost: fc.double({ min: 25, max: 40, noNaN: true }),
  })
  .map(({ widths, entries, boost }) => {
    const n = widths.length;
    const first = Int32Array.from(widths, (w, i) => Math.max(0, i - w));
    const rowBase = new Int32Array(n);
    let size = 0;
    for (let i = 0; i < n; i++) {
      rowBase[i] = size - first[i]!;
      size += i - first[i]! + 1;
    }
    const l = Float64Array.from({ length: size }, (_, t) => entries[t % entries.length]!);
    for (let i = 0; i < n; i++) {
      l[rowBase[i]! + i] = boost + Math.abs(l[rowBase[i]! + i]!);
    }
    const inv = new Float64Array(n);
    if (!envelopeCholesky(l, n, first, rowBase, inv)) {
      throw new Error("a diagonally dominant envelope failed to factor");
    }
    return { n, first, rowBase, l, inv };
  });

/** Right-hand sides with zeros of both signs (a −0 start is where a skipped term would show) and, rarely, non-finite values. */
const rhs = fc.array(
  fc.oneof(
    { weight: 8, arbitrary: fc.double({ min: -100, max: 100, noNaN: true }) },
    { weight: 3, arbitrary: fc.constantFrom(0, -0) },
    { weight: 1, arbitrary: fc.constantFrom(Infinity, -Infinity, NaN, 1e300, -1e-300) },
  ),
  { minLength: 1, maxLength: 50 },
);

describe("envelopeSolve", () => {
  it("gives the row-by-row substitution bit for bit (−0 and non-finite right-hand sides included)", () => {
    fc.assert(
      fc.property(factored, rhs, (f, values) => {
        const paired = Float64Array.from({ length: f.n }, (_, i) => values[i % values.length]!);
        const rows = Float64Array.from(paired);
        envelopeSolveRows(f.l, f.n, f.first, f.rowBase, f.inv, rows);
        envelopeSolve(f.l, f.n, f.first, f.rowBase, f.inv, paired);
        for (let i = 0; i < f.n; i++) {
          if (!Object.is(paired[i], rows[i])) {
            expect.fail(`x[${i}] = ${paired[i]!}, row by row ${rows[i]!}`);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("solves L·Lᵀ·x = b", () => {
    fc.assert(
      fc.property(factored, (f) => {
        // b = L·Lᵀ·x for a known x, then solve and compare.
        const x = Float64Array.from({ length: f.n }, (_, i) => Math.sin(i + 1));
        const lt = new Float64Array(f.n);
        for (let i = 0; i < f.n; i++) {
          for (let k = i; k < f.n; k++) {
            if (f.first[k]! <= i) {
              lt[i] = lt[i]! + f.l[f.rowBase[k]! + i]! * x[k]!;
            }
          }
        }
        const b = new Float64Array(f.n);
        for (let i = 0; i < f.n; i++) {
          for (let k = f.first[i]!; k <= i; k++) {
            b[i] = b[i]! + f.l[f.rowBase[i]! + k]! * lt[k]!;
          }
        }
        envelopeSolve(f.l, f.n, f.first, f.rowBase, f.inv, b);
        b.forEach((v, i) => {
          expect(v).toBeCloseTo(x[i]!, 9);
        });
      }),
      { numRuns: 100 },
    );
  });
});
