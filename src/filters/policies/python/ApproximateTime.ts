import type { Duration, Stamp } from "../../../time";
import { SlotPolicy } from "../SlotPolicy";
import { SlotDicts, type Held } from "./SlotDicts";
import { checkQueueSize, checkSlotCount } from "./checks";

/** Options of {@link ApproximateTime} (config type `python/approximate-time`). */
export interface PythonApproximateTimeOptions {
  /** Max messages kept per slot (the smallest key is evicted beyond it). Integer >= 1. */
  queueSize: number;
  /** Matching tolerance (ns): candidates within `slop` (inclusive), sets spanning less (strict). */
  slop: Duration;
  /** Accept headerless messages (NaN stamp) and time them by `arrival`. Default false. */
  allowHeaderless?: boolean;
  /**
   * Per-slot offset (ns, may be negative) subtracted from each stamp before matching
   * (`queue_offset`). Default: none.
   */
  queueOffset?: readonly Duration[];
  /** Match by arrival time instead of header stamps (also accepts headerless). Default false. */
  syncArrivalTime?: boolean;
}

/**
 * rclpy message_filters `ApproximateTimeSynchronizer` (8.x; reference ros-message-filters.md
 * §2.5): a greedy "slop" matcher, a different algorithm from the C++ policy.
 *
 * For each message on slot i: its key is the header stamp (or the arrival time when headerless
 * with `allowHeaderless`, or always with `syncArrivalTime`) minus `queueOffset[i]`. It is stored
 * under that key (an equal key replaces the held message: `duplicate-stamp`, keeping the key's
 * place in insertion order as a Python dict does); beyond `queueSize` the smallest key is evicted
 * (`queue-overflow`). Then, for every other slot in index order, the keys within `slop` of the
 * new key (inclusive) sorted by distance (stable); if a slot has none, nothing happens. The
 * Cartesian product of those lists is walked in order (first slot slowest) with the new
 * message's RAW key (before the offset — a latent upstream bug kept for parity: with a non-zero
 * offset on the arriving slot the lookup of its own message fails) inserted at position i; the
 * first combination spanning strictly less than `slop` whose keys are all held is emitted and
 * removed. At most one set per message. The walk is exponential in the number of slots.
 *
 * Drops: `no-header` (headerless without the options), `duplicate-stamp`, `queue-overflow`,
 * `reset`. Emitted stamps are the messages' header stamps (NaN when headerless).
 */
export class ApproximateTime<T> extends SlotPolicy<T> {
  readonly #slop: Duration;
  readonly #allowHeaderless: boolean;
  readonly #syncArrival: boolean;
  readonly #offset: readonly Duration[] | undefined;
  readonly #dicts: SlotDicts<T>;
  readonly #queues: Map<number, Held<T>>[];

  public constructor(slots: number, options: PythonApproximateTimeOptions) {
    checkSlotCount(slots, "python/approximate-time");
    checkQueueSize(options.queueSize, "python/approximate-time");
    if (!Number.isSafeInteger(options.slop) || options.slop < 0) {
      throw new RangeError(`python/approximate-time: slop must be whole nanoseconds >= 0, got ${options.slop}`);
    }
    const offset = options.queueOffset;
    if (offset != undefined) {
      if (offset.length !== slots) {
        throw new RangeError(
          `python/approximate-time: queueOffset has ${offset.length} entries; it needs one per slot (${slots})`,
        );
      }
      offset.forEach((o, i) => {
        if (!Number.isSafeInteger(o)) {
          throw new RangeError(`python/approximate-time: queueOffset[${i}] must be whole nanoseconds, got ${o}`);
        }
      });
    }
    // rclpy accepts headerless messages when either option is set.
    super("python/approximate-time", slots, (options.allowHeaderless ?? false) || (options.syncArrivalTime ?? false) ? "accept" : "refuse");
    this.#slop = options.slop;
    this.#allowHeaderless = options.allowHeaderless ?? false;
    this.#syncArrival = options.syncArrivalTime ?? false;
    // Python tests `if self.queue_offset:`: an empty list means no offset.
    this.#offset = offset != undefined && offset.length > 0 ? [...offset] : undefined;
    this.#dicts = new SlotDicts<T>(slots, options.queueSize);
    this.#queues = this.#dicts.maps;
  }

  public override add(slot: number, stamp: Stamp, item: T, arrival: Stamp): void {
    const host = this.hostFor(slot);
    let raw: number;
    if (stamp !== stamp || this.#syncArrival) {
      if (!this.#allowHeaderless && !this.#syncArrival) {
        host.drop(slot, stamp, item, "no-header", "python/approximate-time: set allowHeaderless to time it by arrival");
        return;
      }
      raw = arrival;
    } else {
      raw = stamp;
    }
    const key = this.#offset != undefined ? raw - this.#offset[slot]! : raw;
    this.#dicts.store(host, slot, key, stamp, item);

    // Candidate keys of every other slot, nearest first.
    const slop = this.#slop;
    const lists: number[][] = [];
    for (let q = 0; q < this.slots; q++) {
      if (q === slot) {
        continue;
      }
      const near: { key: number; delta: number }[] = [];
      for (const k of this.#queues[q]!.keys()) {
        const delta = Math.abs(k - key);
        if (!(delta > slop)) {
          near.push({ key: k, delta });
        }
      }
      if (near.length === 0) {
        return;
      }
      near.sort((a, b) => a.delta - b.delta);
      lists.push(near.map((c) => c.key));
    }

    // Walk the product (last list fastest) like itertools.product.
    const pick = new Array<number>(lists.length).fill(0);
    const combo = new Array<number>(this.slots);
    for (;;) {
      let c = 0;
      let lo = Infinity;
      let hi = -Infinity;
      for (let q = 0; q < this.slots; q++) {
        const k = q === slot ? raw : lists[c]![pick[c++]!]!;
        combo[q] = k;
        lo = Math.min(lo, k);
        hi = Math.max(hi, k);
      }
      if (hi - lo < slop && combo.every((k, q) => this.#queues[q]!.has(k))) {
        const held = combo.map((k, q) => this.#queues[q]!.get(k)!);
        combo.forEach((k, q) => this.#queues[q]!.delete(k));
        host.emit(
          held.map((h) => h.item),
          held.map((h) => h.stamp),
        );
        return;
      }
      // advance the odometer
      let d = lists.length - 1;
      while (d >= 0) {
        const next = pick[d]! + 1;
        if (next < lists[d]!.length) {
          pick[d] = next;
          break;
        }
        pick[d] = 0;
        d--;
      }
      if (d < 0) {
        return;
      }
    }
  }

  // eslint-disable-next-line @foxglove/no-boolean-parameters -- signature fixed by CombinerPolicy
  public override reset(reportDrops = false): void {
    this.#dicts.clear(reportDrops ? this.host : undefined);
  }
}
