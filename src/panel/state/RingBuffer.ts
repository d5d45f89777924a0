/** Where a ring keeps its items: a growing Array, or a Float64Array allocated up front. */
type Slots<T> = { [index: number]: T | undefined };

/**
 * A fixed-capacity FIFO that overwrites its oldest item when full: the panel's bounded store.
 *
 * Guarantees: memory is `capacity` slots forever; `push` is O(1) and allocates nothing once the
 * backing array is full; items are read oldest first; `totalPushed` counts every item ever pushed
 * (so a view can say "showing the last N of M"). `RingBuffer.float64` keeps numbers unboxed in
 * one Float64Array instead (the timeline's mark store).
 *
 * ```ts
 * const ring = new RingBuffer<number>(3);
 * ring.push(1).push(2).push(3).push(4);
 * ring.toArray(); // [2, 3, 4]
 * ```
 */
export class RingBuffer<T> {
  /** Maximum number of items held. */
  public readonly capacity: number;
  #items: Slots<T> = [];
  #start = 0;
  #size = 0;
  #total = 0;

  public constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`RingBuffer capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
  }

  /**
   * A ring of numbers stored unboxed in one Float64Array: memory is exactly 8 × capacity bytes
   * from construction on (kept by `clear`), and `push` never allocates.
   */
  public static float64(capacity: number): RingBuffer<number> {
    const ring = new RingBuffer<number>(capacity);
    ring.#items = new Float64Array(capacity);
    return ring;
  }

  /** Number of items held (<= capacity). */
  public get size(): number {
    return this.#size;
  }

  /** Number of items ever pushed since construction or the last `clear`. */
  public get totalPushed(): number {
    return this.#total;
  }

  /** Number of items pushed out because the buffer was full. */
  public get evicted(): number {
    return this.#total - this.#size;
  }

  /** Appends `item`, evicting the oldest when full. */
  public push(item: T): this {
    this.#total++;
    if (this.#size < this.capacity) {
      this.#items[(this.#start + this.#size) % this.capacity] = item;
      this.#size++;
    } else {
      this.#items[this.#start] = item;
      this.#start = (this.#start + 1) % this.capacity;
    }
    return this;
  }

  /** The i-th held item, oldest first (0 = oldest); undefined outside [0, size). */
  public at(i: number): T | undefined {
    if (i < 0 || i >= this.#size || !Number.isInteger(i)) {
      return undefined;
    }
    return this.#items[(this.#start + i) % this.capacity];
  }

  /** The newest item, or undefined when empty. */
  public last(): T | undefined {
    return this.at(this.#size - 1);
  }

  /** A copy of the held items, oldest first. */
  public toArray(): T[] {
    const out: T[] = new Array<T>(this.#size);
    for (let i = 0; i < this.#size; i++) {
      out[i] = this.#items[(this.#start + i) % this.capacity]!;
    }
    return out;
  }

  /** Drops every item and resets `totalPushed` (a Float64Array store keeps its memory). */
  public clear(): this {
    if (Array.isArray(this.#items)) {
      this.#items = [];
    }
    this.#start = 0;
    this.#size = 0;
    this.#total = 0;
    return this;
  }
}
