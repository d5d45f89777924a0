import type { JacobianPattern } from "../math/JacobianPattern";

/**
 * The normal-equation terms of one residual block whose cost states its Jacobian's pattern
 * (`JacobianPattern`), worked out once per pattern: for each column the products of `Jᵀr`, for
 * each pair of columns that share a patterned row the products of `JᵀJ`, as offsets into the
 * Jacobian blocks laid out one after the other `stride` values apart (block a at `a·stride`,
 * row-major `m × size_a`). Accumulating then reads only the patterned entries, without gathering
 * the Jacobian column by column first.
 *
 * Guarantee: when every patterned entry and every residual is finite, `accumulate` leaves `h` and
 * `g` bit for bit as `JacobianColumns.gather` + `addToSkyline` would. Each entry gets one sum,
 * its terms in ascending row as there; the extra terms (patterned rows that hold ±0) are ±0, and
 * adding ±0 leaves a sum begun at +0 as it was (such a sum is never −0), so the sum and the
 * entries it is added to are unchanged by them. Otherwise `accumulate` writes nothing and
 * returns false, and the caller takes the general path.
 */
export class PatternProducts {
  /** The pattern these products were worked out for. */
  public readonly pattern: JacobianPattern;
  /** The distance between consecutive Jacobian blocks in the buffer `accumulate` reads. */
  public readonly stride: number = 0;
  /**
   * A Jacobian buffer laid out as `accumulate` reads it (block a at `a·stride`), all +0 when
   * made, and its blocks as views (what to hand to `evaluate`): written only by costs of this
   * pattern, it holds ±0 outside the pattern for good, so `evaluatePattern` may fill it.
   */
  public readonly values: Float64Array;
  public readonly blocks: readonly Float64Array[];
  /** Number of columns (the blocks' tangent sizes added up), in block order. */
  public readonly columns: number = 0;
  /** Per column: its term count, then (Jacobian offset, residual row) per term, rows ascending. */
  readonly #gradient: Int32Array;
  /** Per pair of columns (c1 ≥ c2) sharing one row: c1, c2 and the two entries' offsets. */
  readonly #single: Int32Array;
  /** Per pair sharing more rows: c1, c2, the term count, then the two entries' offsets per term. */
  readonly #pairs: Int32Array;
  /** Jᵀr of the columns, summed before any is added (a non-finite one means a non-finite entry). */
  readonly #sums: Float64Array;
  /** Number of pairs in #pairs. */
  readonly #pairCount: number = 0;

  /**
   * `stride` defaults to the largest block (m × its size).
   * @throws RangeError when the pattern has more than 32 residuals or `stride` is too small.
   */
  public constructor(pattern: JacobianPattern, stride?: number) {
    const m = pattern.numResiduals;
    if (m > 32) {
      throw new RangeError(`PatternProducts: ${m} residuals, at most 32`);
    }
    this.pattern = pattern;
    const width = stride ?? m * Math.max(0, ...pattern.rowMasks.map((block) => block.length));
    this.stride = width;
    const values = new Float64Array(width * pattern.rowMasks.length);
    this.values = values;
    this.blocks = pattern.rowMasks.map((block, a) => values.subarray(a * width, a * width + m * block.length));
    const masks: number[] = [];
    const offsets: number[] = [];
    const sizes: number[] = [];
    pattern.rowMasks.forEach((block, a) => {
      if (m * block.length > width) {
        throw new RangeError(
          `PatternProducts: block ${a} (${m} × ${block.length}) exceeds the stride ${width}`,
        );
      }
      block.forEach((mask, i) => {
        masks.push(mask);
        // Offset of row 0 of the column; row q adds q times the block's width.
        offsets.push(a * width + i);
        sizes.push(block.length);
      });
    });
    const entry = (c: number, q: number): number => offsets[c]! + q * sizes[c]!;
    const rows = (mask: number): number[] => {
      const out: number[] = [];
      for (let q = 0; q < m; q++) {
        if (((mask >>> q) & 1) === 1) {
          out.push(q);
        }
      }
      return out;
    };
    const gradient: number[] = [];
    const single: number[] = [];
    const pairs: number[] = [];
    for (let c = 0; c < masks.length; c++) {
      const own = rows(masks[c]!);
      gradient.push(own.length);
      for (const q of own) {
        gradient.push(entry(c, q), q);
      }
      for (let t = 0; t <= c; t++) {
        const shared = rows(masks[c]! & masks[t]!);
        if (shared.length === 0) {
          continue;
        }
        if (shared.length === 1) {
          single.push(c, t, entry(c, shared[0]!), entry(t, shared[0]!));
          continue;
        }
        pairs.push(c, t, shared.length);
        for (const q of shared) {
          pairs.push(entry(c, q), entry(t, q));
        }
      }
    }
    this.columns = masks.length;
    this.#gradient = Int32Array.from(gradient);
    this.#single = Int32Array.from(single);
    this.#pairs = Int32Array.from(pairs);
    this.#sums = new Float64Array(masks.length);
    let count = 0;
    for (let k = 0; k < pairs.length; k += 3 + 2 * pairs[k + 2]!) {
      count++;
    }
    this.#pairCount = count;
  }

  /** How many entries `positions` writes: one per column, one per pair of columns sharing a row. */
  public get positionCount(): number {
    return this.columns + this.#single.length / 4 + this.#pairCount;
  }

  /**
   * Where the sums go, for column c at global column `globals[c]` (distinct columns: each entry
   * gets one sum) and the skyline's `rowBase` (element (i, j) at `rowBase[i] + j`): each
   * column's index in g, then each pair's index in h, written to `out` from `at`
   * (`positionCount` entries). Valid while the problem's columns and envelope stay.
   */
  public positions(globals: Int32Array, rowBase: Int32Array, out: Int32Array, at: number): void {
    let w = at;
    for (let c = 0; c < this.columns; c++) {
      out[w++] = globals[c]!;
    }
    const single = this.#single;
    for (let k = 0; k < single.length; k += 4) {
      const a = globals[single[k]!]!;
      const b = globals[single[k + 1]!]!;
      out[w++] = a >= b ? rowBase[a]! + b : rowBase[b]! + a;
    }
    const pairs = this.#pairs;
    for (let k = 0; k < pairs.length; k += 3 + 2 * pairs[k + 2]!) {
      const a = globals[pairs[k]!]!;
      const b = globals[pairs[k + 1]!]!;
      out[w++] = a >= b ? rowBase[a]! + b : rowBase[b]! + a;
    }
  }

  /**
   * Adds `Jᵀr` to `g` and the lower triangle of `JᵀJ` to the skyline `h` (element (i, j) at
   * `rowBase[i] + j`), column c being global column `globals[c]` (distinct columns: each entry
   * gets one sum); the Jacobian blocks in `jac` as the constructor's stride says, the residuals
   * in `r`. Returns false, having written nothing, when a patterned entry or one of the
   * pattern's residuals is not finite (or a column's `Jᵀr` overflows: the general path then
   * gives the same result).
   */
  public accumulate(
    jac: Float64Array,
    r: Float64Array,
    globals: Int32Array,
    h: Float64Array,
    rowBase: Int32Array,
    g: Float64Array,
  ): boolean {
    const where = new Int32Array(this.positionCount);
    this.positions(globals, rowBase, where, 0);
    return this.accumulateAt(jac, r, where, 0, h, g);
  }

  /** `accumulate` with its sums' places worked out by `positions` (in `where` from `at`). */
  public accumulateAt(
    jac: Float64Array,
    r: Float64Array,
    where: Int32Array,
    at: number,
    h: Float64Array,
    g: Float64Array,
  ): boolean {
    const m = this.pattern.numResiduals;
    for (let q = 0; q < m; q++) {
      // v − v is 0 exactly for finite v.
      const v = r[q]!;
      if (v - v !== 0) {
        return false;
      }
    }
    // Every patterned entry is a factor of exactly one of these sums, times a finite residual:
    // a non-finite entry makes its sum non-finite (∞·0 is NaN), so finite sums vouch for J.
    const gradient = this.#gradient;
    const sums = this.#sums;
    const columns = this.columns;
    let k = 0;
    for (let c = 0; c < columns; c++) {
      const end = k + 1 + 2 * gradient[k]!;
      let acc = 0;
      for (k++; k < end; k += 2) {
        acc += jac[gradient[k]!]! * r[gradient[k + 1]!]!;
      }
      if (acc - acc !== 0) {
        return false;
      }
      sums[c] = acc;
    }
    let w = at;
    for (let c = 0; c < columns; c++) {
      const gc = where[w++]!;
      g[gc] = g[gc]! + sums[c]!;
    }
    const single = this.#single;
    for (k = 0; k < single.length; k += 4) {
      // One term: the sum 0 + x is x, but for x = −0 (+0 then): the same as adding x itself
      // to an entry that is not −0.
      const x = jac[single[k + 2]!]! * jac[single[k + 3]!]!;
      const e = where[w++]!;
      h[e] = h[e]! + x;
    }
    const pairs = this.#pairs;
    k = 0;
    while (k < pairs.length) {
      const end = k + 3 + 2 * pairs[k + 2]!;
      let acc = 0;
      for (k += 3; k < end; k += 2) {
        acc += jac[pairs[k]!]! * jac[pairs[k + 1]!]!;
      }
      const e = where[w++]!;
      h[e] = h[e]! + acc;
    }
    return true;
  }
}
