import type { Duration, Stamp } from "../time";
import type { DropListener } from "./DropReason";

/** Options of {@link TimeSequencer}. */
export interface TimeSequencerOptions<T> {
  /** Minimum time (ns, >= 0) a message is held: it is released once `stamp + delay <= now()`. */
  delay: Duration;
  /** Max held messages (integer >= 0; 0 = unlimited). */
  queueSize: number;
  /** The clock (relative stamps, ns), read by `update()` (ROS: the node's clock). */
  now: () => Stamp;
  /**
   * How often the owner should call `update()` (ns, > 0); informational — the core runs no
   * timer. Default 10 ms.
   */
  updateRate?: Duration;
  /** Relative stamp of absolute 0 (`TimeBase.zero`): the initial "last released" stamp. Default 0. */
  zero?: Stamp;
  /** Receives each released message, in stamp order. */
  onRelease?: (item: T, stamp: Stamp) => void;
  /** Receives `too-late`, `queue-overflow`, `no-header` and `reset` drops. */
  onDrop?: DropListener<T>;
}

/**
 * ROS 2 message_filters `TimeSequencer<M>` (C++ 8.0.2; reference ros-message-filters.md §1):
 * holds messages for at least `delay` and releases them in stamp order.
 *
 * Guarantees and quirks kept: a message older than the last released stamp (initially absolute
 * 0) is dropped (`too-late`); an equal stamp is accepted. Messages with equal stamps are released
 * in arrival order. Beyond `queueSize`, ROS erases from its multiset BY VALUE, i.e. every held
 * message sharing the oldest stamp at once (`queue-overflow` for each). No timer runs inside: the
 * owner calls `update()` (alias `tick()`), for example from `setInterval(…, updateRate / 1e6)`;
 * it releases every message with `stamp + delay <= now()`. State is updated before listeners run.
 *
 * ```ts
 * const seq = new TimeSequencer<Msg>({ delay: 50e6, queueSize: 100, now: () => clock.now(),
 *   onRelease: (m) => handle(m) });
 * seq.add(stamp, msg);
 * setInterval(() => seq.update(), 10);
 * ```
 */
export class TimeSequencer<T> {
  /** How often the owner should call `update()` (ns). */
  public readonly updateRate: Duration = 0;
  readonly #delay: Duration = 0;
  readonly #queueSize: number = 0;
  readonly #now: () => Stamp;
  readonly #zero: Stamp = 0;
  #lastTime: Stamp = 0;
  #onRelease: ((item: T, stamp: Stamp) => void) | undefined;
  #onDrop: DropListener<T> | undefined;
  /** Held messages sorted by stamp; equal stamps in arrival order. */
  #stamps: Stamp[] = [];
  #items: T[] = [];

  public constructor(options: TimeSequencerOptions<T>) {
    if (!Number.isSafeInteger(options.delay) || options.delay < 0) {
      throw new RangeError(`TimeSequencer: delay must be whole nanoseconds >= 0, got ${options.delay}`);
    }
    if (!Number.isSafeInteger(options.queueSize) || options.queueSize < 0) {
      throw new RangeError(`TimeSequencer: queueSize must be an integer >= 0 (0 = unlimited), got ${options.queueSize}`);
    }
    const rate = options.updateRate ?? 10_000_000;
    if (!Number.isSafeInteger(rate) || rate <= 0) {
      throw new RangeError(`TimeSequencer: updateRate must be whole nanoseconds > 0, got ${rate}`);
    }
    this.updateRate = rate;
    this.#delay = options.delay;
    this.#queueSize = options.queueSize;
    this.#now = options.now;
    this.#zero = options.zero ?? 0;
    this.#lastTime = this.#zero;
    this.#onRelease = options.onRelease;
    this.#onDrop = options.onDrop;
  }

  /** Number of held messages. */
  public get size(): number {
    return this.#stamps.length;
  }

  /** Sets the release listener. */
  public setReleaseListener(listener: ((item: T, stamp: Stamp) => void) | undefined): this {
    this.#onRelease = listener;
    return this;
  }

  /** Sets the drop listener. */
  public setDropListener(listener: DropListener<T> | undefined): this {
    this.#onDrop = listener;
    return this;
  }

  /** Holds a message (or drops it: `no-header`, `too-late`, `queue-overflow`). */
  public add(stamp: Stamp, item: T): void {
    if (stamp !== stamp) {
      this.#onDrop?.({ slot: 0, stamp, item, reason: "no-header", detail: "TimeSequencer needs a header stamp" });
      return;
    }
    if (stamp < this.#lastTime) {
      this.#onDrop?.({ slot: 0, stamp, item, reason: "too-late" });
      return;
    }
    // upper bound: after every held message with an equal stamp (std::multiset::insert)
    let lo = 0;
    let hi = this.#stamps.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (stamp < this.#stamps[mid]!) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    this.#stamps.splice(lo, 0, stamp);
    this.#items.splice(lo, 0, item);
    if (this.#queueSize !== 0 && this.#stamps.length > this.#queueSize) {
      const oldest = this.#stamps[0]!;
      let n = 0;
      while (n < this.#stamps.length && this.#stamps[n] === oldest) {
        n++;
      }
      this.#stamps.splice(0, n);
      for (const dropped of this.#items.splice(0, n)) {
        this.#onDrop?.({ slot: 0, stamp: oldest, item: dropped, reason: "queue-overflow" });
      }
    }
  }

  /** Releases, in stamp order, every message with `stamp + delay <= now()`. Returns how many. */
  public update(): number {
    const now = this.#now();
    let n = 0;
    while (n < this.#stamps.length && this.#stamps[n]! + this.#delay <= now) {
      n++;
    }
    if (n === 0) {
      return 0;
    }
    const stamps = this.#stamps.splice(0, n);
    const items = this.#items.splice(0, n);
    this.#lastTime = stamps[n - 1]!;
    const release = this.#onRelease;
    if (release != undefined) {
      for (let i = 0; i < n; i++) {
        release(items[i]!, stamps[i]!);
      }
    }
    return n;
  }

  /** Same as `update()`. */
  public tick(): number {
    return this.update();
  }

  /** Drops every held message (`reset` drops when `reportDrops`) and forgets the last released stamp. */
  public reset({ reportDrops = false }: { reportDrops?: boolean } = {}): void {
    const stamps = this.#stamps;
    const items = this.#items;
    this.#stamps = [];
    this.#items = [];
    this.#lastTime = this.#zero;
    if (reportDrops) {
      items.forEach((item, i) => this.#onDrop?.({ slot: 0, stamp: stamps[i]!, item, reason: "reset" }));
    }
  }
}
