import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { envelopeCholesky, envelopeCholeskyRows, envelopeCholeskyTrimmed } from "./envelopeCholesky";
import { arbitrarySkyline, dense, skyline, skylineWithZeros } from "./testing/skyline";

describe("envelopeCholesky", () => {
  it("gives the row-by-row factorization bit for bit, and fails exactly where it fails", () => {
    fc.assert(
      fc.property(arbitrarySkyline, (s) => {
        const paired = Float64Array.from(s.values);
        const rows = Float64Array.from(s.values);
        const invPaired = new Float64Array(s.n);
        const invRows = new Float64Array(s.n);
        const ok = envelopeCholeskyRows(rows, s.n, s.first, s.rowBase, invRows);
        expect(envelopeCholesky(paired, s.n, s.first, s.rowBase, invPaired)).toBe(ok);
        if (ok) {
          expect(Array.from(paired)).toEqual(Array.from(rows));
          expect(Array.from(invPaired)).toEqual(Array.from(invRows));
        }
      }),
      { numRuns: 500 },
    );
  });

  it("gives the row-by-row factorization bit for bit on long positive definite envelopes", () => {
    // Diagonally dominant (|off-diagonal| ≤ 1, at most 24 per row and column, diagonal ≥ 25), so
    // every factorization runs to the end and every schedule (one row, two rows, two columns)
    // is compared.
    const dominant = fc
      .record({
        widths: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 2, maxLength: 60 }),
        entries: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 64 }),
        boost: fc.double({ min: 25, max: 40, noNaN: true }),
      })
      .map(({ widths, entries, boost }) => skyline(widths.map((w, i) => Math.max(0, i - w)), entries, boost));
    fc.assert(
      fc.property(dominant, (s) => {
        const paired = Float64Array.from(s.values);
        const rows = Float64Array.from(s.values);
        const invPaired = new Float64Array(s.n);
        const invRows = new Float64Array(s.n);
        expect(envelopeCholeskyRows(rows, s.n, s.first, s.rowBase, invRows)).toBe(true);
        expect(envelopeCholesky(paired, s.n, s.first, s.rowBase, invPaired)).toBe(true);
        for (let t = 0; t < rows.length; t++) {
          if (!Object.is(paired[t], rows[t])) {
            expect.fail(`L entry ${t} is ${paired[t]!}, row by row ${rows[t]!}`);
          }
        }
        for (let i = 0; i < s.n; i++) {
          expect(Object.is(invPaired[i], invRows[i])).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("factors the matrix: L·Lᵀ reproduces it inside the envelope and L is zero outside", () => {
    fc.assert(
      fc.property(arbitrarySkyline, (s) => {
        const l = Float64Array.from(s.values);
        const inv = new Float64Array(s.n);
        fc.pre(envelopeCholesky(l, s.n, s.first, s.rowBase, inv));
        const a = dense(s, s.values);
        const lower = dense(s, l);
        for (let i = 0; i < s.n; i++) {
          expect(inv[i]).toBe(1 / lower[i]![i]!);
          for (let j = 0; j <= i; j++) {
            let sum = 0;
            for (let k = 0; k <= j; k++) {
              sum += lower[i]![k]! * lower[j]![k]!;
            }
            expect(sum).toBeCloseTo(a[i]![j]!, 9);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it("trimmed to each row's first non-zero, gives the full envelope's factor bit for bit, and fails exactly where it fails", () => {
    fc.assert(
      fc.property(skylineWithZeros, (s) => {
        fc.pre(s.values.every((v) => !Object.is(v, -0)));
        const trimmed = Float64Array.from(s.values);
        const rows = Float64Array.from(s.values);
        const invTrimmed = new Float64Array(s.n);
        const invRows = new Float64Array(s.n);
        const start = new Int32Array(s.n);
        const ok = envelopeCholeskyRows(rows, s.n, s.first, s.rowBase, invRows);
        expect(envelopeCholeskyTrimmed(trimmed, s.n, s.first, s.rowBase, invTrimmed, start)).toBe(ok);
        if (ok) {
          for (let t = 0; t < rows.length; t++) {
            if (!Object.is(trimmed[t], rows[t])) {
              expect.fail(`L entry ${t} is ${trimmed[t]!}, the full envelope's ${rows[t]!}`);
            }
          }
          for (let i = 0; i < s.n; i++) {
            expect(Object.is(invTrimmed[i], invRows[i])).toBe(true);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("rejects a matrix that is not positive definite", () => {
    const s = skyline([0, 0, 1], [1], 0);
    s.values.set([4, 2, 1, 3, 1]);
    // [[4, 2, 0], [2, 1, 3], [0, 3, 1]]: the second pivot is 1 − 1 = 0.
    expect(envelopeCholesky(Float64Array.from(s.values), 3, s.first, s.rowBase, new Float64Array(3))).toBe(false);
    expect(envelopeCholeskyRows(Float64Array.from(s.values), 3, s.first, s.rowBase, new Float64Array(3))).toBe(false);
  });
});
