import { sameNumbers } from "../core/sameNumbers";

/**
 * The last `capacity` values built from arrays of numbers, found again by an array equal to the
 * bit (`sameNumbers`: +0 and −0 differ, NaN equals NaN) and the same `tag` (e.g. a column count).
 * Older entries are forgotten round robin. The cache is for values never changed after they are
 * built (whitenings of a constraint's square-root information), so a value found again is exactly
 * what building it again would give: sensors with a fixed covariance and motion-model segments at
 * a fixed rate repeat the same few.
 */
export class RecentByNumbers<T> {
  readonly #keys: Float64Array[] = [];
  readonly #tags: number[] = [];
  readonly #values: T[] = [];
  readonly #capacity: number = 0;
  #next = 0;

  /** @param capacity how many values are remembered (a positive integer) */
  public constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The value remembered for `key` and `tag`, or undefined. */
  public find(key: ArrayLike<number>, tag: number): T | undefined {
    const keys = this.#keys;
    for (let i = 0; i < keys.length; i++) {
      if (this.#tags[i] === tag && sameNumbers(keys[i]!, key)) {
        return this.#values[i];
      }
    }
    return undefined;
  }

  /**
   * Remembers `value` under `key` (kept as it is: the caller's private copy, never changed) and
   * `tag`, forgetting the oldest entry when full; returns `value`.
   */
  public remember(key: Float64Array, tag: number, value: T): T {
    const at = this.#next;
    this.#keys[at] = key;
    this.#tags[at] = tag;
    this.#values[at] = value;
    this.#next = (at + 1) % this.#capacity;
    return value;
  }
}
