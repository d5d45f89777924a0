import { zeros, type Matrix } from "../core";

/**
 * `chol_upper(diag(q)⁻¹)` for a diagonal covariance: `diag(√(1/qᵢ))` with +0 elsewhere, the n × n
 * matrix `whiten(diagonal(q), [0, …, n), n, …)` returns as `sqrtInformation`, to the last bit
 * (Gauss–Jordan on a diagonal matrix divides each unit pivot row by qᵢ and eliminates nothing, and
 * Cholesky then takes the square root of each diagonal entry minus zeros), without the O(n³)
 * factorizations. Undefined when an entry is not positive and finite: the general path then
 * reports the covariance as not positive definite.
 */
export function diagonalSqrtInformation(q: ArrayLike<number>): Matrix | undefined {
  const n = q.length;
  for (let i = 0; i < n; i++) {
    const v = q[i]!;
    if (!(v > 0) || !Number.isFinite(v)) {
      return undefined;
    }
  }
  const a = zeros(n, n);
  for (let i = 0; i < n; i++) {
    a.data[i * n + i] = Math.sqrt(1 / q[i]!);
  }
  return a;
}
