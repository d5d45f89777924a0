// Internal storage of ros/exact-time (not re-exported).
import type { Stamp } from "../../../time";

/**
 * Entries sorted by ascending `stamp`, in an array that only grows: the live part is
 * `[0, length)`, so inserting and erasing from the front never allocate or resize on the hot path
 * (`splice` allocates its result, shrinking `length` can reallocate the backing store).
 * Erased positions are cleared, so no reference outlives its entry.
 */
export class StampSortedList<E extends { stamp: Stamp }> {
  #items: (E | undefined)[] = [];
  #length = 0;

  /** Number of entries. */
  public get length(): number {
    return this.#length;
  }

  /** The entry at `i` (0 = oldest stamp); `i` must be in `[0, length)`. */
  public at(i: number): E {
    return this.#items[i]!;
  }

  /** Index of the first entry whose stamp is >= `stamp` (`length` when there is none). */
  public lowerBound(stamp: Stamp): number {
    const items = this.#items;
    let lo = 0;
    let hi = this.#length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (items[mid]!.stamp < stamp) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Inserts `entry` at `i` (from `lowerBound`, so that the order holds). */
  public insert(i: number, entry: E): void {
    const items = this.#items;
    for (let k = this.#length; k > i; k--) {
      items[k] = items[k - 1];
    }
    items[i] = entry;
    this.#length++;
  }

  /** Erases the `n` oldest entries. */
  public removeFront(n: number): void {
    const items = this.#items;
    const len = this.#length;
    for (let k = n; k < len; k++) {
      items[k - n] = items[k];
    }
    for (let k = len - n; k < len; k++) {
      items[k] = undefined;
    }
    this.#length = len - n;
  }

  /** Hands out every entry, oldest first, and empties the list. */
  public drain(): E[] {
    const out = this.#items.slice(0, this.#length) as E[];
    this.#items = [];
    this.#length = 0;
    return out;
  }
}
