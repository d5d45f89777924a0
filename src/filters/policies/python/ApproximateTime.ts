import type { Duration, Stamp } from "../../../time";
import type { PolicyHost } from "../CombinerPolicy";
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
  readonly #slop: Duration = 0;
  readonly #allowHeaderless: boolean;
  readonly #syncArrival: boolean;
  readonly #offset: readonly Duration[] | undefined;
  readonly #dicts: SlotDicts<T>;
  readonly #queues: Map<number, Held<T>>[];
  /**
   * The search's working arrays, reused by every add (nothing it calls can start another search
   * before it ends): per slot, the candidate keys and their distances (grown with the slot's
   * dict) and their count, the product's position, and the combination being tried.
   */
  readonly #keys: Float64Array[];
  readonly #deltas: Float64Array[];
  readonly #counts: Int32Array;
  readonly #pick: Int32Array;
  readonly #combo: Float64Array;

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
    this.#keys = Array.from({ length: slots }, () => new Float64Array(8));
    this.#deltas = Array.from({ length: slots }, () => new Float64Array(8));
    this.#counts = new Int32Array(slots);
    this.#pick = new Int32Array(slots);
    this.#combo = new Float64Array(slots);
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

    // Candidate keys of every other slot, nearest first (a stable insertion sort by distance:
    // equal distances stay in dict order, as Python's sorted keeps them).
    const slop = this.#slop;
    const slots = this.slots;
    const counts = this.#counts;
    for (let q = 0; q < slots; q++) {
      if (q === slot) {
        continue;
      }
      const queue = this.#queues[q]!;
      let keys = this.#keys[q]!;
      let deltas = this.#deltas[q]!;
      if (keys.length < queue.size) {
        keys = this.#keys[q] = new Float64Array(2 * queue.size);
        deltas = this.#deltas[q] = new Float64Array(2 * queue.size);
      }
      let n = 0;
      for (const k of queue.keys()) {
        const delta = Math.abs(k - key);
        if (delta > slop) {
          continue;
        }
        keys[n] = k;
        deltas[n] = delta;
        n++;
      }
      if (n === 0) {
        return;
      }
      sortByDistance(keys, deltas, n);
      counts[q] = n;
    }

    // Walk the product like itertools.product (the last other slot fastest), the new message's
    // raw stamp at its own slot.
    const pick = this.#pick;
    const combo = this.#combo;
    pick.fill(0);
    for (;;) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let q = 0; q < slots; q++) {
        const k = q === slot ? raw : this.#keys[q]![pick[q]!]!;
        combo[q] = k;
        lo = Math.min(lo, k);
        hi = Math.max(hi, k);
      }
      if (hi - lo < slop && this.#allHeld()) {
        this.#emitCombo(host);
        return;
      }
      // advance the odometer
      let d = slots - 1;
      for (; d >= 0; d--) {
        if (d === slot) {
          continue;
        }
        const next = pick[d]! + 1;
        if (next < counts[d]!) {
          pick[d] = next;
          break;
        }
        pick[d] = 0;
      }
      if (d < 0) {
        return;
      }
    }
  }

  /** Whether every slot still holds the key `#combo` names for it. */
  #allHeld(): boolean {
    const combo = this.#combo;
    for (let q = 0; q < combo.length; q++) {
      if (!this.#queues[q]!.has(combo[q]!)) {
        return false;
      }
    }
    return true;
  }

  /** Takes the messages `#combo` names out of their slots and emits them. */
  #emitCombo(host: PolicyHost<T>): void {
    const combo = this.#combo;
    const queues = this.#queues;
    const items = new Array<T>(combo.length);
    const stamps = new Array<Stamp>(combo.length);
    for (let q = 0; q < combo.length; q++) {
      const held = queues[q]!.get(combo[q]!)!;
      items[q] = held.item;
      stamps[q] = held.stamp;
    }
    for (let q = 0; q < combo.length; q++) {
      queues[q]!.delete(combo[q]!);
    }
    host.emit(items, stamps);
  }

  // eslint-disable-next-line @foxglove/no-boolean-parameters -- signature fixed by CombinerPolicy
  public override reset(reportDrops = false): void {
    this.#dicts.clear(reportDrops ? this.host : undefined);
  }
}

/** Up to this many candidates are sorted by insertion; more by sorting their indices. */
const INSERTION_SORT_MAX = 16;

/**
 * Sorts the first `n` candidates by distance, stably: equal distances keep their order (dict
 * order, as Python's `sorted` keeps it). Insertion for the few candidates a queue usually offers,
 * an O(n log n) sort of indices by (distance, index) for many, so that a long queue with a wide
 * slop never costs n² per message.
 */
function sortByDistance(keys: Float64Array, deltas: Float64Array, n: number): void {
  if (n <= INSERTION_SORT_MAX) {
    for (let i = 1; i < n; i++) {
      const k = keys[i]!;
      const d = deltas[i]!;
      let j = i;
      while (j > 0 && deltas[j - 1]! > d) {
        keys[j] = keys[j - 1]!;
        deltas[j] = deltas[j - 1]!;
        j--;
      }
      keys[j] = k;
      deltas[j] = d;
    }
    return;
  }
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => {
    const d = deltas[a]! - deltas[b]!;
    return d !== 0 ? d : a - b;
  });
  const sortedKeys = order.map((i) => keys[i]!);
  const sortedDeltas = order.map((i) => deltas[i]!);
  for (let i = 0; i < n; i++) {
    keys[i] = sortedKeys[i]!;
    deltas[i] = sortedDeltas[i]!;
  }
}
