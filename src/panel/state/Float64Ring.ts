/**
 * A fixed-capacity FIFO of numbers in one Float64Array, overwriting the oldest when full: the
 * timeline's mark store. Same reading API as RingBuffer, but numbers are stored unboxed, so
 * memory is exactly 8 × capacity bytes from construction on and `push` never allocates.
 */
export class Float64Ring {
  /** Maximum number of values held. */
  public readonly capacity: number;
  readonly #values: Float64Array;
  #start = 0;
  #size = 0;
  #total = 0;

  public constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(`Float64Ring capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#values = new Float64Array(capacity);
  }

  /** Number of values held (<= capacity). */
  public get size(): number {
    return this.#size;
  }

  /** Values ever pushed since construction or the last `clear`. */
  public get totalPushed(): number {
    return this.#total;
  }

  /** Appends `value`, evicting the oldest when full. */
  public push(value: number): this {
    this.#total++;
    if (this.#size < this.capacity) {
      this.#values[(this.#start + this.#size) % this.capacity] = value;
      this.#size++;
    } else {
      this.#values[this.#start] = value;
      this.#start = (this.#start + 1) % this.capacity;
    }
    return this;
  }

  /** The i-th held value, oldest first; undefined outside [0, size). */
  public at(i: number): number | undefined {
    if (i < 0 || i >= this.#size || !Number.isInteger(i)) {
      return undefined;
    }
    return this.#values[(this.#start + i) % this.capacity];
  }

  /** The newest value, or undefined when empty. */
  public last(): number | undefined {
    return this.at(this.#size - 1);
  }

  /** Forgets every value (the memory stays allocated). */
  public clear(): this {
    this.#start = 0;
    this.#size = 0;
    this.#total = 0;
    return this;
  }
}
