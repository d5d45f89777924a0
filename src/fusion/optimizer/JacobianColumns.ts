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
 * value (0·∞ = NaN counts) or more rows, only the row range is used. With at most 32 columns as
 * well, `partners` lists for each column the columns it shares a non-zero row with: the only
 * pairs whose `dot` is not +0.
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
  /** Bit t of #partners[p]: columns p and t share a non-zero row (meaningful when #paired). */
  #partners = new Int32Array(0);
  #paired = false;
  /** Bit p of #rowColumns[q]: row q of column p is not zero (scratch of gather). */
  #rowColumns = new Int32Array(32);
  /** Columns gathered last. */
  #count = 0;

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
    this.#count = count;
    if (this.#local.length < count * m) {
      this.#local = new Float64Array(Math.max(count * m, 2 * this.#local.length));
    }
    if (this.#lo.length < count) {
      this.#lo = new Int32Array(Math.max(count, 2 * this.#lo.length));
      this.#hi = new Int32Array(this.#lo.length);
      this.#mask = new Int32Array(this.#lo.length);
      this.#partners = new Int32Array(this.#lo.length);
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
    this.#paired = this.#masked && count <= 32;
    if (this.#paired) {
      const rowColumns = this.#rowColumns;
      // A loop, not fill(): for m ≤ 32 entries the builtin's call costs more than the stores.
      for (let q = 0; q < m; q++) {
        rowColumns[q] = 0;
      }
      for (let c = 0; c < count; c++) {
        for (let rows = masks[c]!; rows !== 0; rows &= rows - 1) {
          const q = 31 - Math.clz32(rows & -rows);
          rowColumns[q] = rowColumns[q]! | (1 << c);
        }
      }
      const partners = this.#partners;
      for (let c = 0; c < count; c++) {
        let shared = 0;
        for (let rows = masks[c]!; rows !== 0; rows &= rows - 1) {
          shared |= rowColumns[31 - Math.clz32(rows & -rows)]!;
        }
        partners[c] = shared;
      }
    }
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

  /** Whether `partners` is valid (`masked`, and at most 32 columns). */
  public get paired(): boolean {
    return this.#paired;
  }

  /**
   * Per column p, bit t set when columns p and t are both non-zero in some row (valid when
   * `paired`); `dot(p, t)` is +0 for every other t.
   */
  public get partners(): Int32Array {
    return this.#partners;
  }

  /**
   * Adds the gathered block's `Jᵀr` to `g` and the lower triangle of its `JᵀJ` to the skyline
   * `h` (element (i, j) at `rowBase[i] + j`), column p of the block being global column
   * `cols[at + p]` (ascending in p). Each entry gets the one sum `dot` (`dotResidual`) gives, in
   * the same order as the loop over every pair p ≥ t; pairs without a common non-zero row are
   * skipped when `partners` says so, and so are all-zero columns. Skipping a +0 leaves an entry
   * as it was provided the entry is not −0, which holds for entries filled with +0 and then only
   * added to this way (a sum begun at +0 is never −0).
   */
  public addToSkyline(
    h: Float64Array,
    rowBase: Int32Array,
    g: Float64Array,
    cols: Int32Array,
    at: number,
    r: Float64Array,
  ): void {
    const m = this.#m;
    let rFinite = true;
    for (let q = 0; q < m; q++) {
      // v − v is 0 exactly for finite v.
      const v = r[q]!;
      rFinite &&= v - v === 0;
    }
    const lo = this.#lo;
    const hi = this.#hi;
    const partners = this.#paired ? this.#partners : undefined;
    for (let p = 0; p < this.#count; p++) {
      if (hi[p]! < lo[p]!) {
        continue;
      }
      const gp = cols[at + p]!;
      g[gp] = g[gp]! + (rFinite ? this.dotFiniteResidual(p, r) : this.dotResidual(p, r));
      const row = rowBase[gp]!;
      if (partners) {
        // The partners t ≤ p, in ascending t.
        for (let pairs = partners[p]! & (-1 >>> (31 - p)); pairs !== 0; pairs &= pairs - 1) {
          const t = 31 - Math.clz32(pairs & -pairs);
          const gt = cols[at + t]!;
          h[row + gt] = h[row + gt]! + this.dot(p, t);
        }
        continue;
      }
      for (let t = 0; t <= p; t++) {
        const gt = cols[at + t]!;
        h[row + gt] = h[row + gt]! + this.dot(p, t);
      }
    }
  }

  /** Whether column p is all zero. */
  public isZero(p: number): boolean {
    return this.#hi[p]! < this.#lo[p]!;
  }

  /** Σ_q J[q, p]·r[q] over column p's non-zero row range. */
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
   * `dotResidual(p, r)` bit for bit, for an `r` whose first m values the caller knows to be
   * finite: then, with the columns `masked`, only column p's non-zero rows are added (the other
   * terms are ±0).
   */
  public dotFiniteResidual(p: number, r: Float64Array): number {
    if (!this.#masked) {
      return this.dotResidual(p, r);
    }
    const local = this.#local;
    const base = p * this.#m;
    let acc = 0;
    for (let rows = this.#mask[p]!; rows !== 0; rows &= rows - 1) {
      const q = 31 - Math.clz32(rows & -rows);
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
