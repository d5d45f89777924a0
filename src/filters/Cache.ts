import type { Stamp } from "../time";
import type { DropListener } from "./DropReason";

/** Options of {@link Cache}. */
export interface CacheOptions<T> {
  /** Max number of cached messages (integer >= 1). Default 1, as ROS. */
  cacheSize?: number;
  /** Cache headerless messages (NaN stamp) under their arrival time. Default false. */
  allowHeaderless?: boolean;
  /** Relative stamp of absolute 0 (`TimeBase.zero`): what the time getters return when empty. Default 0. */
  zero?: Stamp;
  /** Receives every eviction (`queue-overflow`) and refused message (`no-header`). */
  onDrop?: DropListener<T>;
}

/**
 * ROS 2 message_filters `Cache<M>` (C++, 8.0.2; reference ros-message-filters.md §1): the latest
 * `cacheSize` messages, kept SORTED by stamp (unlike rclpy's append-only Cache), with the time
 * interval queries. Each added message is passed on to the listeners.
 *
 * Parity details: before inserting, the OLDEST-stamped messages are evicted until there is room
 * — even when the new message is older than all of them (it is then kept and an older-looking
 * set remains); a new message goes BEFORE cached messages with an equal stamp; shrinking the size
 * takes effect at the next `add`; `setCacheSize(0)` is ignored; the time getters return `zero`
 * (ROS's `rclcpp::Time()`) when empty. Evictions are reported as `queue-overflow` drops; a
 * headerless message without `allowHeaderless` is refused as `no-header`.
 *
 * ```ts
 * const cache = new Cache<Imu>({ cacheSize: 100 });
 * cache.add(stamp, msg);
 * const window = cache.getInterval(t0, t1);
 * ```
 */
export class Cache<T> {
  #size = 0;
  readonly #allowHeaderless: boolean;
  readonly #zero: Stamp = 0;
  readonly #onDrop: DropListener<T> | undefined;
  // Sorted ring: [head, head+len) in a power-of-two buffer.
  #stamps: Float64Array;
  #items: (T | undefined)[];
  #head = 0;
  #len = 0;
  #mask = 0;
  readonly #listeners = new Set<(item: T, stamp: Stamp) => void>();

  public constructor(options: CacheOptions<T> = {}) {
    this.#size = 1;
    this.setCacheSize(options.cacheSize ?? 1);
    this.#allowHeaderless = options.allowHeaderless ?? false;
    this.#zero = options.zero ?? 0;
    this.#onDrop = options.onDrop;
    const cap = pow2(this.#size + 1);
    this.#stamps = new Float64Array(cap);
    this.#items = new Array<T | undefined>(cap).fill(undefined);
    this.#mask = cap - 1;
  }

  /** Number of cached messages. */
  public get size(): number {
    return this.#len;
  }

  /** The cache size limit. */
  public get cacheSize(): number {
    return this.#size;
  }

  /**
   * Sets the size limit (integer >= 1; 0 is ignored, as ROS does). Throws RangeError for other
   * values. A smaller size evicts at the next `add`.
   */
  public setCacheSize(size: number): this {
    if (size === 0) {
      return this;
    }
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new RangeError(`Cache: cacheSize must be an integer >= 1, got ${size}`);
    }
    this.#size = size;
    return this;
  }

  /** Registers a listener for every added message; returns a function that removes it. */
  public addListener(listener: (item: T, stamp: Stamp) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Adds a message under `stamp` (or `arrival` when headerless and allowed), evicting the
   * oldest-stamped messages first, then signals the listeners with the message and its stamp.
   */
  public add(stamp: Stamp, item: T, arrival: Stamp = stamp): void {
    let t = stamp;
    if (t !== t) {
      if (!this.#allowHeaderless) {
        this.#onDrop?.({
          slot: 0,
          stamp,
          item,
          reason: "no-header",
          detail: "Cache: headerless messages need allowHeaderless",
        });
        return;
      }
      t = arrival;
    }
    while (this.#len >= this.#size) {
      const at = this.#head;
      const old = this.#items[at] as T;
      const oldStamp = this.#stamps[at]!;
      this.#items[at] = undefined;
      this.#head = (at + 1) & this.#mask;
      this.#len--;
      this.#onDrop?.({ slot: 0, stamp: oldStamp, item: old, reason: "queue-overflow" });
    }
    if (this.#len + 1 > this.#mask) {
      this.#grow();
    }
    // lower_bound: first index with stamp >= t; shift the tail right by one.
    const pos = this.#lowerBound(t);
    const mask = this.#mask;
    for (let k = this.#len; k > pos; k--) {
      const to = (this.#head + k) & mask;
      const from = (this.#head + k - 1) & mask;
      this.#stamps[to] = this.#stamps[from]!;
      this.#items[to] = this.#items[from];
    }
    const at = (this.#head + pos) & mask;
    this.#stamps[at] = t;
    this.#items[at] = item;
    this.#len++;
    for (const listener of this.#listeners) {
      listener(item, t);
    }
  }

  /** Messages with `start <= stamp <= end`, oldest first. */
  public getInterval(start: Stamp, end: Stamp): T[] {
    const from = this.#lowerBound(start);
    const to = this.#upperBound(end);
    return this.#slice(from, Math.max(from, to));
  }

  /**
   * The smallest run of messages that surrounds [start, end]: from the last message at or before
   * `start` (ROS: one before the first >= start) to the first message at or after `end`. When the
   * cache does not surround the interval, the run that gets closest.
   */
  public getSurroundingInterval(start: Stamp, end: Stamp): T[] {
    if (this.#len === 0) {
      return [];
    }
    let from = this.#lowerBound(start);
    if (from > 0) {
      from--;
    }
    let to = Math.max(from, this.#lowerBound(end));
    if (to < this.#len) {
      to++;
    }
    return this.#slice(from, to);
  }

  /** The newest message with a stamp strictly before `time`, if any. */
  public getElemBeforeTime(time: Stamp): T | undefined {
    const i = this.#lowerBound(time);
    return i === 0 ? undefined : this.#items[(this.#head + i - 1) & this.#mask];
  }

  /** The oldest message with a stamp strictly after `time`, if any. */
  public getElemAfterTime(time: Stamp): T | undefined {
    const i = this.#upperBound(time);
    return i === this.#len ? undefined : this.#items[(this.#head + i) & this.#mask];
  }

  /** Stamp of the newest message, or `zero` when empty. */
  public getLatestTime(): Stamp {
    return this.#len === 0 ? this.#zero : this.#stamps[(this.#head + this.#len - 1) & this.#mask]!;
  }

  /** Stamp of the oldest message, or `zero` when empty. */
  public getOldestTime(): Stamp {
    return this.#len === 0 ? this.#zero : this.#stamps[this.#head]!;
  }

  /** Empties the cache (no drops reported: nothing was lost that the owner did not ask for). */
  public clear(): void {
    this.#items.fill(undefined);
    this.#head = 0;
    this.#len = 0;
  }

  #stampAt(i: number): number {
    return this.#stamps[(this.#head + i) & this.#mask]!;
  }

  #lowerBound(t: number): number {
    let lo = 0;
    let hi = this.#len;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#stampAt(mid) < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  #upperBound(t: number): number {
    let lo = 0;
    let hi = this.#len;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (t < this.#stampAt(mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  #slice(from: number, to: number): T[] {
    const out: T[] = [];
    for (let i = from; i < to; i++) {
      out.push(this.#items[(this.#head + i) & this.#mask] as T);
    }
    return out;
  }

  #grow(): void {
    const cap = (this.#mask + 1) * 2;
    const stamps = new Float64Array(cap);
    const items = new Array<T | undefined>(cap).fill(undefined);
    for (let i = 0; i < this.#len; i++) {
      stamps[i] = this.#stampAt(i);
      items[i] = this.#items[(this.#head + i) & this.#mask];
    }
    this.#stamps = stamps;
    this.#items = items;
    this.#head = 0;
    this.#mask = cap - 1;
  }
}

function pow2(n: number): number {
  let p = 2;
  while (p < n && p < 1024) {
    p *= 2;
  }
  return p;
}
