// Internal storage of ros/exact-time (not re-exported).
import type { Stamp } from "../../../time";

/**
 * Entries sorted by ascending `stamp`, in an array that only grows: the live part is
 * `[start, start + length)`, so erasing from the front is O(1) and appending (the common case:
 * stamps arrive in order) never shifts anything; the live part is moved back to position 0 when
 * it reaches the end of the array behind an erased prefix at least as long as itself. Nothing on the hot path allocates or resizes (`splice`
 * allocates its result, shrinking `length` can reallocate the backing store). Erased positions
 * are cleared, so no reference outlives its entry.
 */
export class StampSortedList<E extends { stamp: Stamp }> {
  #items: (E | undefined)[] = [];
  #start = 0;
  #length = 0;

  /** Number of entries. */
  public get length(): number {
    return this.#length;
  }

  /** The entry at `i` (0 = oldest stamp); `i` must be in `[0, length)`. */
  public at(i: number): E {
    return this.#items[this.#start + i]!;
  }

  /** Index of the first entry whose stamp is >= `stamp` (`length` when there is none). */
  public lowerBound(stamp: Stamp): number {
    const items = this.#items;
    const start = this.#start;
    let hi = this.#length;
    // In-order arrival, the common case, lands after the newest entry: one comparison.
    if (hi === 0 || items[start + hi - 1]!.stamp < stamp) {
      return hi;
    }
    let lo = 0;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (items[start + mid]!.stamp < stamp) {
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
    // At the end of the array: move back to 0 once the erased prefix is as long as the live part
    // (at least 16), else grow. So a move costs O(1) per erased entry, and the array stays within
    // twice the live part (or 33 entries).
    if (this.#start + this.#length === items.length && this.#start >= Math.max(this.#length, 16)) {
      this.#compact();
    }
    const start = this.#start;
    for (let k = start + this.#length; k > start + i; k--) {
      items[k] = items[k - 1];
    }
    items[start + i] = entry;
    this.#length++;
  }

  /** Erases the `n` oldest entries. */
  public removeFront(n: number): void {
    const items = this.#items;
    const start = this.#start;
    for (let k = start; k < start + n; k++) {
      items[k] = undefined;
    }
    this.#length -= n;
    this.#start = this.#length === 0 ? 0 : start + n;
  }

  /** Hands out every entry, oldest first, and empties the list. */
  public drain(): E[] {
    const out = this.#items.slice(this.#start, this.#start + this.#length) as E[];
    this.#items = [];
    this.#start = 0;
    this.#length = 0;
    return out;
  }

  /** Moves the live part to position 0 (clearing what it leaves behind). */
  #compact(): void {
    const items = this.#items;
    const start = this.#start;
    const len = this.#length;
    for (let k = 0; k < len; k++) {
      items[k] = items[start + k];
    }
    for (let k = len; k < start + len; k++) {
      items[k] = undefined;
    }
    this.#start = 0;
  }
}
