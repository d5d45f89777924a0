import { describe, expect, it } from "vitest";

import {
  backSubstituteInPlace,
  choleskyInPlace,
  choleskySolveInPlace,
  forwardSubstituteInPlace,
  lowerEnvelope,
} from "./dense";

/** The textbook dense Cholesky (every term), the reference the envelope version must equal. */
function denseCholesky(a: Float64Array, n: number): boolean {
  for (let j = 0; j < n; j++) {
    let d = a[j * n + j]!;
    for (let k = 0; k < j; k++) {
      d -= a[j * n + k]! * a[j * n + k]!;
    }
    if (!(d > 0)) {
      return false;
    }
    const ljj = Math.sqrt(d);
    a[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let s = a[i * n + j]!;
      for (let k = 0; k < j; k++) {
        s -= a[i * n + k]! * a[j * n + k]!;
      }
      a[i * n + j] = s / ljj;
    }
  }
  return true;
}

function denseSolve(l: Float64Array, n: number, b: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) {
      s -= l[i * n + k]! * b[k]!;
    }
    b[i] = s / l[i * n + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i]!;
    for (let k = i + 1; k < n; k++) {
      s -= l[k * n + i]! * b[k]!;
    }
    b[i] = s / l[i * n + i]!;
  }
}

/** A deterministic pseudo-random generator (the tests must not depend on Math.random). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648 - 0.5;
  };
}

/**
 * JᵀJ + I for a chain-shaped J (each row couples a window of `band` neighbouring columns), with
 * some rows reaching further back (a non-monotone envelope) when `scattered`.
 */
function chainMatrix(n: number, band: number, seed: number, options: { scattered: boolean }): Float64Array {
  const rnd = lcg(seed);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    a[i * n + i] = 1;
  }
  for (let r = 0; r + band <= n; r++) {
    const cols = Array.from({ length: band }, (_, k) => r + k);
    if (options.scattered && r % 7 === 3 && r >= 5) {
      cols.push(r - 5);
    }
    const v = cols.map(() => rnd());
    cols.forEach((ci, p) => {
      cols.forEach((cj, q) => {
        a[ci * n + cj] = a[ci * n + cj]! + v[p]! * v[q]!;
      });
    });
  }
  return a;
}

describe("dense Cholesky on the envelope", () => {
  it("finds the first non-zero column of each row and the last row reaching each column", () => {
    const n = 4;
    // Lower triangle pattern: row 0 [x], row 1 [0 x], row 2 [x 0 x], row 3 [0 0 x x].
    const a = Float64Array.from([1, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1, 0, 0, 0, 3, 1]);
    const env = lowerEnvelope(a, n);
    expect(Array.from(env.first)).toEqual([0, 1, 0, 2]);
    expect(Array.from(env.last)).toEqual([2, 2, 3, 3]);
  });

  for (const [band, scattered] of [
    [3, false],
    [8, false],
    [4, true],
  ] as const) {
    it(`factors and solves bit-for-bit like the dense loops (band ${band}${scattered ? ", scattered rows" : ""})`, () => {
      const n = 40;
      const a = chainMatrix(n, band, 7 + band, { scattered });
      const want = Float64Array.from(a);
      expect(denseCholesky(want, n)).toBe(true);
      const got = Float64Array.from(a);
      expect(choleskyInPlace(got, n)).toBe(true);
      expect(Array.from(got)).toEqual(Array.from(want));

      const rnd = lcg(99);
      const b = Float64Array.from({ length: n }, () => rnd());
      const x = Float64Array.from(b);
      denseSolve(want, n, x);
      const y = Float64Array.from(b);
      choleskySolveInPlace(got, n, y);
      expect(Array.from(y)).toEqual(Array.from(x));
    });
  }

  it("forward-substitutes from the first non-zero and back-substitutes down to a row, exactly", () => {
    const n = 30;
    const a = chainMatrix(n, 5, 3, { scattered: true });
    const env = lowerEnvelope(a, n);
    expect(choleskyInPlace(a, n, env)).toBe(true);
    const b = new Float64Array(n);
    for (let i = 20; i < n; i++) {
      b[i] = i - 24.5;
    }
    const full = Float64Array.from(b);
    denseSolve(a, n, full);
    const part = Float64Array.from(b);
    forwardSubstituteInPlace(a, n, part, env, 20);
    part.fill(-1, 0, 10); // below downTo: never read, left as they are
    backSubstituteInPlace(a, n, part, env, 10);
    expect(Array.from(part.subarray(10))).toEqual(Array.from(full.subarray(10)));
    expect(Array.from(part.subarray(0, 10))).toEqual(new Array<number>(10).fill(-1));
  });

  it("reports a matrix that is not positive definite", () => {
    const a = Float64Array.from([1, 2, 2, 1]);
    expect(choleskyInPlace(a, 2)).toBe(false);
  });
});
