/**
 * A constraint's square-root information `A` (`k × n`, row-major) applied to a raw error and its
 * Jacobians: `r = A·e`, `J = A·∂e`. Square-root informations are triangular or scattered (partial
 * measurements), and raw Jacobians are mostly zero rows, so `jacobian` visits only the non-zero
 * entries of both. Every output entry still sums its terms in ascending column order of `A`, so
 * the results are bit-for-bit those of the plain triple loop. A diagonal A (see `diagonal`) takes
 * one product per entry instead, with the same bits. Allocates nothing per call.
 */
export class Whitener {
  /** `k`: rows of A (the number of residuals). */
  public readonly rows: number = 0;
  /** `n`: columns of A (the raw error length). */
  public readonly cols: number = 0;
  /** A, row-major `k × n` (a private copy). */
  public readonly a: Float64Array;
  /** Per column q of A, the rows r with A[r, q] ≠ 0: #colRows[#colStart[q] … #colStart[q + 1]). */
  readonly #colStart: Int32Array;
  readonly #colRows: Int32Array;
  /** Per row r of A, the columns q with A[r, q] ≠ 0: #rowCols[#rowStart[r] … #rowStart[r + 1]). */
  readonly #rowStart: Int32Array;
  readonly #rowCols: Int32Array;
  /**
   * A's diagonal when A is square, ±0 off the diagonal and finite and non-zero on it (a diagonal
   * covariance, the usual case), else null. Then `vector` and `jacobian` are one product per
   * entry, `0 + A[q, q]·x`: the general path's single term added to +0, so the same bits.
   */
  public readonly diagonal: Float64Array | null;

  /**
   * @param a row-major `k × n`; its length must be a whole number of rows of `n`.
   * @param options.diagonalPath false: `diagonal` stays null and the general path is used for
   * every A (the reference the diagonal path is checked against). Default true.
   */
  public constructor(a: ArrayLike<number>, n: number, options?: { readonly diagonalPath?: boolean }) {
    // Copied and indexed with plain loops: a cost function (and its Whitener) is built for every
    // new constraint, thousands per recording.
    const copy = new Float64Array(a.length);
    for (let i = 0; i < copy.length; i++) {
      copy[i] = a[i]!;
    }
    this.a = copy;
    this.cols = n;
    this.rows = copy.length / n;
    const k = this.rows;
    let nonZeros = 0;
    for (const v of copy) {
      if (v !== 0) {
        nonZeros++;
      }
    }
    // Columns: q outer (stride 1), r inner (stride n); rows: r outer (stride n), q inner (stride 1).
    const byColumn = nonZeroPattern(copy, nonZeros, n, 1, k, n);
    this.#colStart = byColumn.start;
    this.#colRows = byColumn.indices;
    const byRow = nonZeroPattern(copy, nonZeros, k, n, n, 1);
    this.#rowStart = byRow.start;
    this.#rowCols = byRow.indices;
    this.diagonal = options?.diagonalPath === false ? null : diagonalOf(copy, k, n);
  }

  /**
   * out[0 … k) ← A·e, bit for bit the plain row-by-column loop. With every `e` component finite
   * the zero entries of A are skipped (their terms are ±0, which leave a sum started at +0
   * unchanged); otherwise every term is added, so a non-finite component shows as the plain loop
   * shows it (0·∞ = NaN).
   */
  public vector(e: ArrayLike<number>, out: Float64Array): void {
    const a = this.a;
    const n = this.cols;
    let finite = true;
    for (let c = 0; c < n && finite; c++) {
      finite = Number.isFinite(e[c]);
    }
    const diagonal = this.diagonal;
    if (finite && diagonal != null) {
      for (let r = 0; r < n; r++) {
        out[r] = 0 + diagonal[r]! * e[r]!;
      }
      return;
    }
    if (finite) {
      const rowStart = this.#rowStart;
      const rowCols = this.#rowCols;
      for (let r = 0; r < this.rows; r++) {
        let s = 0;
        for (let p = rowStart[r]!, end = rowStart[r + 1]!; p < end; p++) {
          const c = rowCols[p]!;
          s += a[r * n + c]! * e[c]!;
        }
        out[r] = s;
      }
      return;
    }
    for (let r = 0; r < this.rows; r++) {
      let s = 0;
      for (let c = 0; c < n; c++) {
        s += a[r * n + c]! * e[c]!;
      }
      out[r] = s;
    }
  }

  /**
   * out ← A·raw for a raw Jacobian `raw` (`n × l`, row-major) into `out` (`k × l`), skipping the
   * zero entries of A and the all-zero rows of `raw` (whose terms are exactly zero).
   */
  public jacobian(raw: Float64Array, l: number, out: Float64Array): void {
    const a = this.a;
    const n = this.cols;
    const diagonal = this.diagonal;
    if (diagonal != null) {
      // With A[q, q] finite and non-zero, a zero row of `raw` gives 0 + A[q, q]·±0 = +0, what the
      // general path leaves there, so no row needs the zero test.
      for (let q = 0; q < n; q++) {
        const av = diagonal[q]!;
        for (let p = q * l, end = p + l; p < end; p++) {
          out[p] = 0 + av * raw[p]!;
        }
      }
      return;
    }
    const colStart = this.#colStart;
    const colRows = this.#colRows;
    out.fill(0, 0, this.rows * l);
    for (let q = 0; q < n; q++) {
      const base = q * l;
      let zero = true;
      for (let c = 0; c < l && zero; c++) {
        zero = raw[base + c] === 0;
      }
      if (zero) {
        continue;
      }
      for (let p = colStart[q]!; p < colStart[q + 1]!; p++) {
        const r = colRows[p]!;
        const av = a[r * n + q]!;
        const o = r * l;
        for (let c = 0; c < l; c++) {
          out[o + c] = out[o + c]! + av * raw[base + c]!;
        }
      }
    }
  }
}

/** The diagonal of the k × n `a` if it is square, ±0 off the diagonal, finite and non-zero on it. */
function diagonalOf(a: Float64Array, k: number, n: number): Float64Array | null {
  if (k !== n) {
    return null;
  }
  const diagonal = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const v = a[r * n + c]!;
      if (r === c) {
        if (v === 0 || !Number.isFinite(v)) {
          return null;
        }
        diagonal[r] = v;
      } else if (v !== 0) {
        return null;
      }
    }
  }
  return diagonal;
}

/**
 * The non-zero pattern of `a` (holding `nonZeros` non-zero entries) along one direction: for each
 * of `outer` lines (line o starts at o·`outerStride`), the positions p < `inner` whose entry
 * (at o·`outerStride` + p·`innerStride`) is not zero, in ascending order, as
 * `indices[start[o]] … indices[start[o + 1]]`.
 */
function nonZeroPattern(
  a: Float64Array,
  nonZeros: number,
  outer: number,
  outerStride: number,
  inner: number,
  innerStride: number,
): { start: Int32Array; indices: Int32Array } {
  const start = new Int32Array(outer + 1);
  const indices = new Int32Array(nonZeros);
  let at = 0;
  for (let o = 0; o < outer; o++) {
    start[o] = at;
    for (let p = 0; p < inner; p++) {
      if (a[o * outerStride + p * innerStride] !== 0) {
        indices[at++] = p;
      }
    }
  }
  start[outer] = at;
  return { start, indices };
}
