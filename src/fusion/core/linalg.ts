import { zeros, type Matrix } from "./Matrix";

/** Transpose. */
export function transpose(a: Matrix): Matrix {
  const out = zeros(a.cols, a.rows);
  for (let i = 0; i < a.rows; i++) {
    for (let j = 0; j < a.cols; j++) {
      out.data[j * a.rows + i] = a.data[i * a.cols + j]!;
    }
  }
  return out;
}

/** Matrix product `a · b`. Throws RangeError on a shape mismatch. */
export function multiply(a: Matrix, b: Matrix): Matrix {
  if (a.cols !== b.rows) {
    throw new RangeError(`cannot multiply ${a.rows}x${a.cols} by ${b.rows}x${b.cols}`);
  }
  const out = zeros(a.rows, b.cols);
  for (let i = 0; i < a.rows; i++) {
    for (let k = 0; k < a.cols; k++) {
      const aik = a.data[i * a.cols + k]!;
      if (aik === 0) {
        continue;
      }
      for (let j = 0; j < b.cols; j++) {
        out.data[i * b.cols + j] = out.data[i * b.cols + j]! + aik * b.data[k * b.cols + j]!;
      }
    }
  }
  return out;
}

/** Element-wise sum of same-shaped matrices. */
export function add(a: Matrix, b: Matrix): Matrix {
  const out = zeros(a.rows, a.cols);
  for (let i = 0; i < a.data.length; i++) {
    out.data[i] = a.data[i]! + b.data[i]!;
  }
  return out;
}

/** `a · b · aᵀ` (covariance propagation). */
export function sandwich(a: Matrix, b: Matrix): Matrix {
  return multiply(multiply(a, b), transpose(a));
}

/** `a` scaled by `s`. */
export function scale(a: Matrix, s: number): Matrix {
  const out = zeros(a.rows, a.cols);
  for (let i = 0; i < a.data.length; i++) {
    out.data[i] = a.data[i]! * s;
  }
  return out;
}

/** The square sub-matrix at the given row/column indices (covariance sub-selection). */
export function subMatrix(a: Matrix, indices: readonly number[]): Matrix {
  const n = indices.length;
  const out = zeros(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      out.data[i * n + j] = a.data[indices[i]! * a.cols + indices[j]!]!;
    }
  }
  return out;
}

/**
 * Lower Cholesky factor L of a symmetric matrix (a = L·Lᵀ), reading the lower triangle only (as
 * Eigen's LLT does). Returns undefined when the matrix is not (numerically) positive definite.
 */
export function choleskyLower(a: Matrix): Matrix | undefined {
  const l = zeros(a.rows, a.rows);
  return choleskyLowerInto(a.data, a.rows, l.data) ? l : undefined;
}

/**
 * `choleskyLower` of the n × n row-major `a` into `l`, writing its lower triangle (diagonal
 * included) only: the upper triangle of `l` keeps what it held. False when not positive definite
 * (`l` then holds a partial factor).
 */
export function choleskyLowerInto(a: Float64Array, n: number, l: Float64Array): boolean {
  for (let j = 0; j < n; j++) {
    let d = a[j * n + j]!;
    for (let k = 0; k < j; k++) {
      const v = l[j * n + k]!;
      d -= v * v;
    }
    if (!(d > 0)) {
      return false;
    }
    const ljj = Math.sqrt(d);
    l[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let s = a[i * n + j]!;
      for (let k = 0; k < j; k++) {
        s -= l[i * n + k]! * l[j * n + k]!;
      }
      l[i * n + j] = s / ljj;
    }
  }
  return true;
}

/** Upper Cholesky factor U (a = Uᵀ·U), i.e. Eigen's `llt().matrixU()`; undefined when not PD. */
export function choleskyUpper(a: Matrix): Matrix | undefined {
  const l = choleskyLower(a);
  return l ? transpose(l) : undefined;
}

/**
 * Inverse of a square matrix by Gauss–Jordan elimination with partial pivoting. Returns undefined
 * when the matrix is singular (a zero pivot).
 */
export function inverse(a: Matrix): Matrix | undefined {
  const n = a.rows;
  const inv = zeros(n, n);
  return inverseInto(a.data, n, inv.data, new Float64Array(n * n)) ? inv : undefined;
}

/**
 * `inverse` of the n × n row-major `a` into `inv` (n² entries), eliminating in `work` (n²
 * entries, overwritten): no allocation. False when singular (`inv` then holds partial results).
 */
export function inverseInto(a: Float64Array, n: number, inv: Float64Array, work: Float64Array): boolean {
  const m = work;
  m.set(a.subarray(0, n * n));
  inv.fill(0, 0, n * n);
  for (let i = 0; i < n; i++) {
    inv[i * n + i] = 1;
  }
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) {
      if (Math.abs(m[r * n + c]!) > Math.abs(m[p * n + c]!)) {
        p = r;
      }
    }
    const pivot = m[p * n + c]!;
    if (pivot === 0 || !Number.isFinite(pivot)) {
      return false;
    }
    if (p !== c) {
      for (let j = 0; j < n; j++) {
        swap(m, p * n + j, c * n + j);
        swap(inv, p * n + j, c * n + j);
      }
    }
    for (let j = 0; j < n; j++) {
      m[c * n + j] = m[c * n + j]! / pivot;
      inv[c * n + j] = inv[c * n + j]! / pivot;
    }
    for (let r = 0; r < n; r++) {
      const f = m[r * n + c]!;
      if (r === c || f === 0) {
        continue;
      }
      for (let j = 0; j < n; j++) {
        m[r * n + j] = m[r * n + j]! - f * m[c * n + j]!;
        inv[r * n + j] = inv[r * n + j]! - f * inv[c * n + j]!;
      }
    }
  }
  return true;
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

/** Largest |a(i,j) − a(j,i)|; 0 for a symmetric matrix. */
export function asymmetry(a: Matrix): number {
  let worst = 0;
  for (let i = 0; i < a.rows; i++) {
    for (let j = i + 1; j < a.cols; j++) {
      const d = Math.abs(a.data[i * a.cols + j]! - a.data[j * a.cols + i]!);
      if (!(d <= worst)) {
        worst = d;
      }
    }
  }
  return worst;
}

/**
 * True when every eigenvalue of the symmetric matrix is > 0 (fuse's `isPositiveDefinite` uses
 * the self-adjoint eigen solver; for a symmetric matrix a successful Cholesky factorization is
 * the same test).
 */
export function isPositiveDefinite(a: Matrix): boolean {
  return choleskyLower(a) != undefined;
}

/** True when every entry is finite. */
export function allFinite(values: ArrayLike<number>): boolean {
  return Array.prototype.every.call(values, (v) => Number.isFinite(v));
}
