/**
 * A fixed-size uniform sample of a stream of numbers, for percentiles with bounded memory:
 * reservoir sampling (Vitter's Algorithm R) with a fixed-seed PRNG, so that the same input always
 * gives the same percentiles. Exact while the stream has at most `capacity` values; `min`, `max`
 * and `count` are always exact.
 */
export class Reservoir {
  readonly #capacity: number;
  readonly #values: Float64Array;
  #count = 0;
  #min = Infinity;
  #max = -Infinity;
  #seed = 0x9e3779b9;
  #sorted: Float64Array | undefined;

  /** `capacity`: values kept (default 4096). */
  public constructor(capacity = 4096) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`Reservoir capacity must be an integer >= 1, got ${capacity}`);
    }
    this.#capacity = capacity;
    this.#values = new Float64Array(capacity);
  }

  /** Values seen. */
  public get count(): number {
    return this.#count;
  }

  /** Smallest value seen (exact); NaN when empty. */
  public get min(): number {
    return this.#count === 0 ? NaN : this.#min;
  }

  /** Largest value seen (exact); NaN when empty. */
  public get max(): number {
    return this.#count === 0 ? NaN : this.#max;
  }

  /** Whether percentiles are exact (no value was sampled out). */
  public get exact(): boolean {
    return this.#count <= this.#capacity;
  }

  /** Add one value. Allocation-free. */
  public add(value: number): void {
    if (value < this.#min) {
      this.#min = value;
    }
    if (value > this.#max) {
      this.#max = value;
    }
    const n = this.#count++;
    this.#sorted = undefined;
    if (n < this.#capacity) {
      this.#values[n] = value;
      return;
    }
    const j = Math.floor(this.#random() * (n + 1));
    if (j < this.#capacity) {
      this.#values[j] = value;
    }
  }

  /**
   * The p-quantile (p in [0, 1]) by the nearest-rank method on the sample: the smallest value with
   * at least p·n values at or below it. p = 0 and p = 1 return the exact min and max. NaN when empty.
   */
  public quantile(p: number): number {
    if (this.#count === 0) {
      return NaN;
    }
    if (p <= 0) {
      return this.#min;
    }
    if (p >= 1) {
      return this.#max;
    }
    const n = Math.min(this.#count, this.#capacity);
    this.#sorted ??= this.#values.slice(0, n).sort();
    return this.#sorted[Math.max(0, Math.ceil(p * n) - 1)]!;
  }

  /** Median (nearest rank). */
  public get median(): number {
    return this.quantile(0.5);
  }

  /** mulberry32: small, fast, deterministic. */
  #random(): number {
    let t = (this.#seed = (this.#seed + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}
