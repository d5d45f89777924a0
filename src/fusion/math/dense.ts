/**
 * Small dense linear algebra over row-major `Float64Array`s with an explicit size, allocation-free
 * (callers own every buffer). Used by the solver and marginalization, where matrices are at most
 * a few hundred rows.
 */

/**
 * `s − Σ_t a[pa + t]·b[pb + t]` for t = 0 … count − 1, subtracting the terms one after another in
 * that order (four per loop step): the inner product of every factorization and substitution
 * here and in the solver, so they all round alike.
 */
export function subtractDot(s: number, a: Float64Array, pa: number, b: Float64Array, pb: number, count: number): number {
  let r = s;
  let i = pa;
  let j = pb;
  const end = pa + count;
  for (; i + 3 < end; i += 4, j += 4) {
    r -= a[i]! * b[j]!;
    r -= a[i + 1]! * b[j + 1]!;
    r -= a[i + 2]! * b[j + 2]!;
    r -= a[i + 3]! * b[j + 3]!;
  }
  for (; i < end; i++, j++) {
    r -= a[i]! * b[j]!;
  }
  return r;
}

/**
 * Where the non-zeros of a symmetric n × n matrix's lower triangle lie: `first[i]` is the first
 * column j ≤ i with a non-zero (i, j) (i itself when none), `last[j]` the last row i ≥ j whose
 * envelope reaches column j (`first[i] ≤ j`). A Cholesky factor has no non-zero outside its
 * matrix's envelope, so the routines below skip only terms that are exactly zero: their results
 * are bit-for-bit those of the plain dense loops, at O(n·b²) instead of O(n³) for bandwidth b.
 */
export interface Envelope {
  readonly first: Int32Array;
  readonly last: Int32Array;
}

/**
 * The envelope of the lower triangle of `a` (n × n), in `into` when it is large enough. With a
 * `stride` above n, that of the leading n × n block of a matrix whose rows are `stride` long.
 * `zeroBefore[i]`, when given, is a column before which row i is known to hold only zeros (the
 * scan for its first non-zero starts there; the envelope is the same).
 */
export function lowerEnvelope(
  a: Float64Array,
  n: number,
  into?: Envelope,
  stride = n,
  zeroBefore?: Int32Array,
): Envelope {
  const env = into != undefined && into.first.length >= n ? into : { first: new Int32Array(n), last: new Int32Array(n) };
  const { first, last } = env;
  for (let i = 0; i < n; i++) {
    const ri = i * stride;
    let f = zeroBefore == undefined ? 0 : Math.min(zeroBefore[i]!, i);
    while (f < i && a[ri + f] === 0) {
      f++;
    }
    first[i] = f;
    last[i] = i;
  }
  // last[j] = max{i : first[i] ≤ j}: each row raises the entry at its first column, then a
  // running maximum carries it to the later columns it also reaches.
  for (let i = 0; i < n; i++) {
    const f = first[i]!;
    if (i > last[f]!) {
      last[f] = i;
    }
  }
  for (let j = 1; j < n; j++) {
    if (last[j - 1]! > last[j]!) {
      last[j] = last[j - 1]!;
    }
  }
  return env;
}

/** Reused by the routines when the caller passes no envelope (callers are synchronous). */
let scratch: Envelope = { first: new Int32Array(0), last: new Int32Array(0) };

function envelopeOf(a: Float64Array, n: number, env: Envelope | undefined): Envelope {
  if (env != undefined) {
    return env;
  }
  if (scratch.first.length < n) {
    scratch = { first: new Int32Array(n), last: new Int32Array(n) };
  }
  return lowerEnvelope(a, n, scratch);
}

/**
 * In-place lower Cholesky factorization of the symmetric n × n matrix `a` (reads the lower
 * triangle, writes L there; the strict upper triangle is left as is). Returns false, leaving `a`
 * partly overwritten, when a pivot is not > 0 (not numerically positive definite). `env` is the
 * envelope of `a` (computed when omitted); it is also L's, for the solves.
 */
export function choleskyInPlace(a: Float64Array, n: number, env?: Envelope): boolean {
  const { first, last } = envelopeOf(a, n, env);
  for (let j = 0; j < n; j++) {
    const rj = j * n;
    const fj = first[j]!;
    const d = subtractDot(a[rj + j]!, a, rj + fj, a, rj + fj, j - fj);
    if (!(d > 0)) {
      return false;
    }
    const ljj = Math.sqrt(d);
    a[rj + j] = ljj;
    for (let i = j + 1, end = last[j]!; i <= end; i++) {
      const fi = first[i]!;
      if (fi > j) {
        continue;
      }
      const ri = i * n;
      const k = fi > fj ? fi : fj;
      a[ri + j] = subtractDot(a[ri + j]!, a, ri + k, a, rj + k, j - k) / ljj;
    }
  }
  return true;
}

/**
 * Solves `L·y = b` in place (forward substitution) with the lower factor from `choleskyInPlace`.
 * Entries of `b` before `from` must be zero (they stay zero).
 */
export function forwardSubstituteInPlace(l: Float64Array, n: number, b: Float64Array, env?: Envelope, from = 0): void {
  const { first } = envelopeOf(l, n, env);
  for (let i = from; i < n; i++) {
    const ri = i * n;
    const k = first[i]! > from ? first[i]! : from;
    b[i] = subtractDot(b[i]!, l, ri + k, b, k, i - k) / l[ri + i]!;
  }
}

/**
 * Solves `Lᵀ·x = y` in place (back substitution), computing x[n − 1] down to x[downTo] only (the
 * entries below `downTo` are left as they are; the others never depend on them).
 */
export function backSubstituteInPlace(l: Float64Array, n: number, b: Float64Array, env?: Envelope, downTo = 0): void {
  const { last } = envelopeOf(l, n, env);
  for (let i = n - 1; i >= downTo; i--) {
    let s = b[i]!;
    for (let k = i + 1, end = last[i]!; k <= end; k++) {
      s -= l[k * n + i]! * b[k]!;
    }
    b[i] = s / l[i * n + i]!;
  }
}

/** Solves `L·Lᵀ·x = b` in place in `b`, given the lower factor from `choleskyInPlace`. */
export function choleskySolveInPlace(l: Float64Array, n: number, b: Float64Array, env?: Envelope): void {
  const e = envelopeOf(l, n, env);
  forwardSubstituteInPlace(l, n, b, e);
  backSubstituteInPlace(l, n, b, e);
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
