import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { Whitener } from "./Whitener";

/** The plain triple loop r × c × q (skipping zero entries of A, as the 3D costs always did). */
function plainJacobian(a: Float64Array, k: number, n: number, raw: Float64Array, l: number): number[] {
  const out: number[] = [];
  for (let r = 0; r < k; r++) {
    for (let c = 0; c < l; c++) {
      let s = 0;
      for (let q = 0; q < n; q++) {
        if (a[r * n + q] !== 0) {
          s += a[r * n + q]! * raw[q * l + c]!;
        }
      }
      out.push(s);
    }
  }
  return out;
}

describe("Whitener", () => {
  // Upper-triangular A with scattered zeros; raw Jacobian with all-zero rows and stray zeros.
  const n = 6;
  const k = 5;
  const l = 3;
  const a = new Float64Array(k * n);
  for (let r = 0; r < k; r++) {
    for (let q = r; q < n; q++) {
      a[r * n + q] = (q + r) % 4 === 1 ? 0 : 0.3 + 0.7 * Math.sin(r * 7 + q);
    }
  }
  const raw = new Float64Array(n * l);
  for (let q = 0; q < n; q++) {
    for (let c = 0; c < l; c++) {
      raw[q * l + c] = q === 1 || q === 4 || (q + c) % 5 === 0 ? 0 : Math.cos(q * 3 + c) / 3;
    }
  }

  it("whitens a Jacobian bit-for-bit like the plain loop", () => {
    const out = new Float64Array(k * l).fill(42);
    new Whitener(a, n).jacobian(raw, l, out);
    expect(Array.from(out)).toEqual(plainJacobian(a, k, n, raw, l));
  });

  it("whitens a vector with every term, so a non-finite component shows", () => {
    const w = new Whitener(a, n);
    const e = Float64Array.from([1, 2, 3, 4, 5, 6]);
    const out = new Float64Array(k);
    w.vector(e, out);
    for (let r = 0; r < k; r++) {
      let s = 0;
      for (let q = 0; q < n; q++) {
        s += a[r * n + q]! * e[q]!;
      }
      expect(out[r]).toBe(s);
    }
    e[0] = NaN; // column 0 of A is zero below row 0, yet every residual sees it
    w.vector(e, out);
    expect(Array.from(out).every((v) => Number.isNaN(v))).toBe(true);
  });

  it("whitens finite vectors bit for bit like the plain loop (signed zeros included)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.double({ min: -4, max: 4, noNaN: true })), { minLength: k * n, maxLength: k * n }),
        fc.array(fc.oneof(fc.constant(0), fc.constant(-0), fc.double({ min: -1e3, max: 1e3, noNaN: true })), { minLength: n, maxLength: n }),
        (entries, values) => {
          const matrix = Float64Array.from(entries);
          const e = Float64Array.from(values);
          const out = new Float64Array(k);
          new Whitener(matrix, n).vector(e, out);
          for (let r = 0; r < k; r++) {
            let s = 0;
            for (let q = 0; q < n; q++) {
              s += matrix[r * n + q]! * e[q]!;
            }
            expect(Object.is(out[r], s)).toBe(true);
          }
        },
      ),
    );
  });
});

describe("Whitener on a diagonal A", () => {
  const special = [0, -0, NaN, Infinity, -Infinity, 5e-324, -5e-324, 1e308];
  const value = fc.oneof(
    fc.constantFrom(...special),
    fc.double({ min: -1e3, max: 1e3, noNaN: true }),
    fc.double({ noNaN: false }),
  );
  const nonZeroFinite = fc.oneof(
    fc.double({ min: -1e3, max: 1e3, noNaN: true }).filter((v) => v !== 0),
    fc.constantFrom(5e-324, -1e-300, 1e300, -2),
  );
  const cases = fc
    .integer({ min: 1, max: 15 })
    .chain((n) =>
      fc.record({
        n: fc.constant(n),
        l: fc.integer({ min: 1, max: 4 }),
        diagonal: fc.array(nonZeroFinite, { minLength: n, maxLength: n }),
        offDiagonalNegativeZero: fc.boolean(),
        e: fc.array(fc.oneof(value, value, fc.double({ min: -10, max: 10, noNaN: true })), { minLength: n, maxLength: n }),
        finiteE: fc.boolean(),
        rawRows: fc.array(fc.oneof(fc.constant(null), fc.array(value, { minLength: 4, maxLength: 4 })), {
          minLength: n,
          maxLength: n,
        }),
      }),
    );

  it("gives the general path's bits (signed zeros, NaN, underflow) for vectors and Jacobians", () => {
    fc.assert(
      fc.property(cases, ({ n, l, diagonal, offDiagonalNegativeZero, e, finiteE, rawRows }) => {
        const a = new Float64Array(n * n).fill(offDiagonalNegativeZero ? -0 : 0);
        diagonal.forEach((v, q) => (a[q * n + q] = v));
        const fast = new Whitener(a, n);
        const general = new Whitener(a, n, { diagonalPath: false });
        expect(fast.diagonal).not.toBeNull();
        expect(general.diagonal).toBeNull();

        const ev = Float64Array.from(e, (v) => (finiteE && !Number.isFinite(v) ? 1.5 : v));
        const fastR = new Float64Array(n).fill(7);
        const generalR = new Float64Array(n).fill(9);
        fast.vector(ev, fastR);
        general.vector(ev, generalR);
        for (let r = 0; r < n; r++) {
          expect(Object.is(fastR[r], generalR[r])).toBe(true);
        }

        const raw = new Float64Array(n * l);
        rawRows.forEach((row, q) => {
          for (let c = 0; c < l; c++) {
            raw[q * l + c] = row == null ? (c % 2 === 0 ? 0 : -0) : row[c]!;
          }
        });
        const fastJ = new Float64Array(n * l).fill(7);
        const generalJ = new Float64Array(n * l).fill(9);
        fast.jacobian(raw, l, fastJ);
        general.jacobian(raw, l, generalJ);
        for (let i = 0; i < n * l; i++) {
          expect(Object.is(fastJ[i], generalJ[i])).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps the general path for a zero or non-finite diagonal entry and for off-diagonal entries", () => {
    expect(new Whitener([2, 0, 0, 0], 2).diagonal).toBeNull();
    expect(new Whitener([2, 0, 0, Infinity], 2).diagonal).toBeNull();
    expect(new Whitener([2, NaN, 0, 3], 2).diagonal).toBeNull();
    expect(new Whitener([2, 0, 1e-300, 3], 2).diagonal).toBeNull();
    expect(new Whitener([2, 0, 3], 3).diagonal).toBeNull();
    expect(Array.from(new Whitener([2, -0, 0, 3], 2).diagonal ?? [])).toEqual([2, 3]);
  });
});
