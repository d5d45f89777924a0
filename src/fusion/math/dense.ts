/**
 * Small dense linear algebra over row-major `Float64Array`s with an explicit size, allocation-free
 * (callers own every buffer). Used by the solver and marginalization, where matrices are at most
 * a few hundred rows.
 */

/**
 * In-place lower Cholesky factorization of the symmetric n × n matrix `a` (reads the lower
 * triangle, writes L there; the strict upper triangle is left as is). Returns false, leaving `a`
 * partly overwritten, when a pivot is not > 0 (not numerically positive definite).
 */
export function choleskyInPlace(a: Float64Array, n: number): boolean {
  for (let j = 0; j < n; j++) {
    const rj = j * n;
    let d = a[rj + j]!;
    for (let k = 0; k < j; k++) {
      const v = a[rj + k]!;
      d -= v * v;
    }
    if (!(d > 0)) {
      return false;
    }
    const ljj = Math.sqrt(d);
    a[rj + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      const ri = i * n;
      let s = a[ri + j]!;
      for (let k = 0; k < j; k++) {
        s -= a[ri + k]! * a[rj + k]!;
      }
      a[ri + j] = s / ljj;
    }
  }
  return true;
}

/** Solves `L·Lᵀ·x = b` in place in `b`, given the lower factor from `choleskyInPlace`. */
export function choleskySolveInPlace(l: Float64Array, n: number, b: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    const ri = i * n;
    for (let k = 0; k < i; k++) {
      s -= l[ri + k]! * b[k]!;
    }
    b[i] = s / l[ri + i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i]!;
    for (let k = i + 1; k < n; k++) {
      s -= l[k * n + i]! * b[k]!;
    }
    b[i] = s / l[i * n + i]!;
  }
}

/** Solves `L·y = b` in place (forward substitution only). */
export function forwardSubstituteInPlace(l: Float64Array, n: number, b: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    const ri = i * n;
    for (let k = 0; k < i; k++) {
      s -= l[ri + k]! * b[k]!;
    }
    b[i] = s / l[ri + i]!;
  }
}

/**
 * Eigen-decomposition of a symmetric n × n matrix by cyclic Jacobi rotations: on return
 * `values[i]` are the eigenvalues (unsorted) and column i of `vectors` (row-major n × n) the unit
 * eigenvector. `a` is destroyed. Meant for the small, possibly singular matrices of
 * marginalization, where Cholesky cannot be used.
 */
export function symmetricEigenInPlace(
  a: Float64Array,
  n: number,
  values: Float64Array,
  vectors: Float64Array,
): void {
  vectors.fill(0, 0, n * n);
  for (let i = 0; i < n; i++) {
    vectors[i * n + i] = 1;
  }
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    let diag = 0;
    for (let p = 0; p < n; p++) {
      diag += a[p * n + p]! * a[p * n + p]!;
      for (let q = p + 1; q < n; q++) {
        off += a[p * n + q]! * a[p * n + q]!;
      }
    }
    if (off <= 1e-30 * diag || off === 0) {
      break;
    }
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (apq === 0) {
          continue;
        }
        const app = a[p * n + p]!;
        const aqq = a[q * n + q]!;
        const theta = (aqq - app) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = vectors[k * n + p]!;
          const vkq = vectors[k * n + q]!;
          vectors[k * n + p] = c * vkp - s * vkq;
          vectors[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  for (let i = 0; i < n; i++) {
    values[i] = a[i * n + i]!;
  }
}
