/**
 * A FIFO list that keeps at most `limit` of the newest entries (Infinity = all): pushing past the
 * limit forgets the oldest at once. Pushing, forgetting and draining cost O(1) amortized (the
 * forgotten prefix is released once it is at least half of the storage).
 */
export class BoundedQueue<T> {
  #items: T[] = [];
  #head = 0;
  #limit = 0;

  /** Throws RangeError (naming `what`) for a negative or fractional limit. */
  public constructor(limit = Infinity, what = "limit") {
    this.#limit = BoundedQueue.#check(limit, what);
  }

  static #check(limit: number, what: string): number {
    if (!(limit >= 0) || (limit !== Infinity && !Number.isInteger(limit))) {
      throw new RangeError(`${what} must be a non-negative integer or Infinity, got ${String(limit)}`);
    }
    return limit;
  }

  /** The limit in force. */
  public get limit(): number {
    return this.#limit;
  }

  /** Changes the limit (forgetting the oldest entries beyond it now). Throws like the constructor. */
  public setLimit(limit: number, what = "limit"): void {
    this.#limit = BoundedQueue.#check(limit, what);
    this.#trim();
  }

  /** Number of entries kept. */
  public get length(): number {
    return this.#items.length - this.#head;
  }

  /** Appends an entry (forgetting the oldest when over the limit). */
  public push(item: T): void {
    if (this.#limit === 0) {
      return;
    }
    this.#items.push(item);
    this.#trim();
  }

  /** The kept entries, oldest first (a fresh array). */
  public toArray(): T[] {
    return this.#items.slice(this.#head);
  }

  /** Visits the kept entries, oldest first. */
  public *[Symbol.iterator](): IterableIterator<T> {
    for (let i = this.#head; i < this.#items.length; i++) {
      yield this.#items[i]!;
    }
  }

  /** Hands out the kept entries, oldest first, and forgets them. */
  public drain(): T[] {
    const out = this.toArray();
    this.#items = [];
    this.#head = 0;
    return out;
  }

  #trim(): void {
    const excess = this.#items.length - this.#head - this.#limit;
    if (excess > 0) {
      for (let i = this.#head; i < this.#head + excess; i++) {
        this.#items[i] = undefined as T; // released for the collector before compaction
      }
      this.#head += excess;
    }
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }
}
