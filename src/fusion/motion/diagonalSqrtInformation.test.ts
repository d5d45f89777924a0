import { describe, expect, it } from "vitest";

import { diagonalSqrtInformation } from "./diagonalSqrtInformation";
import { diagonal, whiten } from "../core";

/** The general path: Gauss–Jordan inverse and Cholesky of the diagonal covariance. */
function general(q: readonly number[]): Float64Array {
  const n = q.length;
  return whiten(diagonal(q), Array.from({ length: n }, (_, i) => i), n, "test").sqrtInformation.data;
}

/** The bits of every entry, so that +0 and −0 (and the last digit) are told apart. */
function bits(a: Float64Array): string[] {
  return Array.from(a, (v) => (Object.is(v, -0) ? "-0" : v.toString()));
}

describe("diagonalSqrtInformation", () => {
  it("equals the general whitening bit for bit", () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const cases: number[][] = [
      [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
      [1e-300, 1e300, 3, 5e-324, 1.7e308, 2 ** -1074, 0.25],
      [1],
    ];
    for (let c = 0; c < 40; c++) {
      const n = 1 + Math.floor(random() * 16);
      cases.push(Array.from({ length: n }, () => 10 ** (random() * 20 - 10) * (0.5 + random()) * 0.1));
    }
    for (const q of cases) {
      const a = diagonalSqrtInformation(q);
      expect(a?.rows).toBe(q.length);
      expect(a?.cols).toBe(q.length);
      expect(bits(a!.data)).toEqual(bits(general(q)));
    }
  });

  it("is undefined exactly when the general path finds no positive definite covariance", () => {
    for (const bad of [0, -0, -1, NaN, Infinity, -Infinity]) {
      const q = [0.1, bad, 0.3];
      expect(diagonalSqrtInformation(q)).toBeUndefined();
      expect(() => general(q)).toThrow(RangeError);
    }
  });
});
