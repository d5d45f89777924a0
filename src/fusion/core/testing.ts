import { zeros, type Matrix } from "./Matrix";

/** Test helpers for the matrix code (not part of the public API). */

/** A deterministic pseudo-random stream in [-1, 1). */
export function stream(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 31 - 1;
  };
}

/** B·Bᵀ + n·I for a random B: symmetric positive definite, dense (or only its diagonal when asked). */
export function spd(n: number, rand: () => number, options?: { readonly diagonal?: boolean }): Matrix {
  const b = Array.from({ length: n * n }, () => rand());
  const m = zeros(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = i === j ? n : 0;
      if (options?.diagonal !== true || i === j) {
        for (let k = 0; k < n; k++) {
          s += b[i * n + k]! * b[j * n + k]!;
        }
      }
      m.data[i * n + j] = s;
    }
  }
  return m;
}

/** Bits of every entry, so that -0 and 0 (and each last digit) count as different. */
export function bits(a: ArrayLike<number>): string[] {
  return Array.from(a, (v) => (Object.is(v, -0) ? "-0" : v.toString()));
}
