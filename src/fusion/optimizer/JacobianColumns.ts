/**
 * One residual block's Jacobian (its parameter blocks' row-major `m × size` pieces) gathered
 * column-major, each column with its first and last non-zero row, for the normal equations `JᵀJ`
 * and `Jᵀr`: a dot product only runs over the rows where both columns can be non-zero (the
 * kinematic constraints' Jacobians are mostly zero), adding the same terms in the same order as
 * the full sum. Buffers grow as needed and are reused, so gathering allocates nothing.
 *
 * When every gathered value is finite and m ≤ 32, each column also gets a bit mask of its non-zero
 * rows (`rowMasks`, `masked`), and `dot` adds only the rows where both columns are non-zero: the
 * other terms are a finite number times a zero, ±0, and adding ±0 leaves a sum begun at +0 as it
 * was (such a sum is never −0), so the result is bit for bit the row-range sum. With a non-finite
 * value (0·∞ = NaN counts) or more rows, only the row range is used.
 */
export class JacobianColumns {
  /** Rows per column (the residual count m). */
  #m = 0;
  /** Column p at [p·m, (p + 1)·m). */
  #local = new Float64Array(0);
  #lo = new Int32Array(0);
  #hi = new Int32Array(0);
  /** Bit q of #mask[p]: row q of column p is not zero (meaningful when #masked). */
  #mask = new Int32Array(0);
  #masked = false;

  /**
   * Gathers the non-null `jacobians[a]` (`m × sizes[a]`, row-major) of the first `blocks` blocks
   * column by column. The n-th gathered column goes to position `order[at + n]`. Returns the
   * number of columns.
   */
  public gather(
    jacobians: readonly (Float64Array | null)[],
    blocks: number,
    sizes: readonly number[],
    m: number,
    order: Int32Array,
    at: number,
  ): number {
    let count = 0;
    for (let a = 0; a < blocks; a++) {
      if (jacobians[a]) {
        count += sizes[a]!;
      }
    }
    this.#m = m;
    if (this.#local.length < count * m) {
      this.#local = new Float64Array(Math.max(count * m, 2 * this.#local.length));
    }
    if (this.#lo.length < count) {
      this.#lo = new Int32Array(Math.max(count, 2 * this.#lo.length));
      this.#hi = new Int32Array(this.#lo.length);
      this.#mask = new Int32Array(this.#lo.length);
    }
    const local = this.#local;
    const lo = this.#lo;
    const hi = this.#hi;
    const masks = this.#mask;
    let finite = true;
    let p = 0;
    for (let a = 0; a < blocks; a++) {
      const ja = jacobians[a];
      if (!ja) {
        continue;
      }
      const sa = sizes[a]!;
      for (let i = 0; i < sa; i++, p++) {
        const sl = order[at + p]!;
        const base = sl * m;
        let first = m;
        let last = -1;
        let mask = 0;
        for (let q = 0; q < m; q++) {
          const v = ja[q * sa + i]!;
          local[base + q] = v;
          if (v !== 0) {
            if (first === m) {
              first = q;
            }
            last = q;
            mask |= 1 << q;
            // v − v is 0 exactly for finite v (NaN for ±∞ and NaN).
            finite &&= v - v === 0;
          }
        }
        lo[sl] = first;
        hi[sl] = last;
        masks[sl] = mask;
      }
    }
    this.#masked = finite && m <= 32;
    return count;
  }

  /** The gathered columns, column p at [p·m, (p + 1)·m) (valid until the next gather). */
  public get values(): Float64Array {
    return this.#local;
  }

  /** First non-zero row of each column (m when none). */
  public get firstRows(): Int32Array {
    return this.#lo;
  }

  /** Last non-zero row of each column (−1 when none). */
  public get lastRows(): Int32Array {
    return this.#hi;
  }

  /**
   * Whether `rowMasks` hold the columns' non-zero rows and the dot products may skip the other
   * rows (every value finite, m ≤ 32).
   */
  public get masked(): boolean {
    return this.#masked;
  }

  /** Per column, bit q set when row q is not zero (valid when `masked`). */
  public get rowMasks(): Int32Array {
    return this.#mask;
  }

  /** Whether column p is all zero. */
  public isZero(p: number): boolean {
    return this.#hi[p]! < this.#lo[p]!;
  }

  /** Σ_q J[q, p]·r[q] over column p's non-zero rows. */
  public dotResidual(p: number, r: Float64Array): number {
    const local = this.#local;
    const base = p * this.#m;
    let acc = 0;
    for (let q = this.#lo[p]!, end = this.#hi[p]!; q <= end; q++) {
      acc += local[base + q]! * r[q]!;
    }
    return acc;
  }

  /**
   * Σ_q J[q, p]·J[q, t] over the rows where both columns can be non-zero (+0 when none), in
   * ascending q: bit for bit the sum over the intersection of the columns' row ranges.
   */
  public dot(p: number, t: number): number {
    const local = this.#local;
    const bp = p * this.#m;
    const bt = t * this.#m;
    if (this.#masked) {
      let both = this.#mask[p]! & this.#mask[t]!;
      let acc = 0;
      while (both !== 0) {
        const q = 31 - Math.clz32(both & -both);
        acc += local[bp + q]! * local[bt + q]!;
        both &= both - 1;
      }
      return acc;
    }
    const lo = this.#lo;
    const hi = this.#hi;
    const qLo = lo[p]! > lo[t]! ? lo[p]! : lo[t]!;
    const qHi = hi[p]! < hi[t]! ? hi[p]! : hi[t]!;
    let acc = 0;
    for (let q = qLo; q <= qHi; q++) {
      acc += local[bp + q]! * local[bt + q]!;
    }
    return acc;
  }
}
