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
