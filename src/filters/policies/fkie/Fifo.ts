import type { Stamp } from "../../../time";
import { NO_STAMPS, type PolicyHost } from "../CombinerPolicy";
import { SlotPolicy } from "../SlotPolicy";
import { checkQueueSize, checkSlotCount, unboundHost } from "./checks";

/** Options of {@link Fifo}. */
export interface FifoOptions {
  /**
   * Capacity of each slot's FIFO (default 1). Pushing to a full FIFO drops its oldest message
   * (`queue-overflow`). 0 follows fkie 2.x: a slot never holds anything, so nothing is ever
   * emitted and every message is dropped on arrival.
   */
  maxQueueSize?: number;
}

/**
 * fkie_message_filters' `combiner_policies::Fifo` (reference fkie-message-filters.md §2.3, the
 * 2.x form): pairs the i-th held message of every slot, in arrival order, ignoring stamps (so it
 * accepts headerless messages). After each push, while every slot is non-empty, one message is
 * taken from each and the set is emitted.
 *
 * Drops: a push to a full FIFO drops the oldest message of that slot (`queue-overflow`);
 * `reset(true)` → `reset`.
 *
 * ```ts
 * const policy = new Fifo<Msg>(2, { maxQueueSize: 1 });
 * policy.bind(host);
 * policy.add(0, NaN, msg, arrival);
 * ```
 */
export class Fifo<T> extends SlotPolicy<T, PolicyHost<T>> {
  readonly #maxQueueSize: number;
  // Slot i's FIFO: `#items[i]` / `#stamps[i]` from `#front[i]` on (compacted when drained).
  readonly #items: (T | undefined)[][];
  readonly #stamps: Stamp[][];
  readonly #front: number[];

  /**
   * @param slots number of inputs (a positive integer)
   * @param options see {@link FifoOptions}; throws RangeError on a bad capacity
   */
  public constructor(slots: number, options: FifoOptions = {}) {
    checkSlotCount(slots, "fkie/fifo");
    super("fkie/fifo", slots, "accept", unboundHost("fkie/fifo"));
    this.#maxQueueSize = checkQueueSize(options.maxQueueSize ?? 1, "maxQueueSize");
    this.#items = Array.from({ length: slots }, () => []);
    this.#stamps = Array.from({ length: slots }, () => []);
    this.#front = new Array<number>(slots).fill(0);
  }

  /** Capacity of each slot's FIFO. */
  public get maxQueueSize(): number {
    return this.#maxQueueSize;
  }


  /** Adds one message (reference §2.3); `stamp` is carried to the output only. */
  public override add(slot: number, stamp: Stamp, item: T, _arrival?: Stamp): void {
    if (slot >>> 0 !== slot || slot >= this.slots) {
      throw new RangeError(
        `fkie/fifo: slot ${slot} does not exist (the policy has slots 0..${this.slots - 1})`,
      );
    }
    this.#items[slot]!.push(item);
    this.#stamps[slot]!.push(stamp);
    if (this.#length(slot) > this.#maxQueueSize) {
      const f = this.#front[slot]!;
      const s = this.#stamps[slot]![f]!;
      const dropped = this.#items[slot]![f] as T;
      this.#advance(slot);
      this.host.drop(slot, s, dropped, "queue-overflow");
    }
    for (;;) {
      for (let i = 0; i < this.slots; i++) {
        if (this.#length(i) === 0) {
          return;
        }
      }
      const items = new Array<T>(this.slots);
      const stamps = this.readsStamps ? new Array<Stamp>(this.slots) : NO_STAMPS;
      for (let i = 0; i < this.slots; i++) {
        const f = this.#front[i]!;
        if (stamps !== NO_STAMPS) {
          stamps[i] = this.#stamps[i]![f]!;
        }
        items[i] = this.#items[i]![f] as T;
        this.#advance(i);
      }
      this.host.emit(items, stamps);
    }
  }

  /** Clears all held messages (reported as `reset` if asked). */
  // eslint-disable-next-line @foxglove/no-boolean-parameters -- the CombinerPolicy contract
  public override reset(reportDrops = false): void {
    for (let i = 0; i < this.slots; i++) {
      while (this.#length(i) > 0) {
        const f = this.#front[i]!;
        const s = this.#stamps[i]![f]!;
        const item = this.#items[i]![f] as T;
        this.#advance(i);
        if (reportDrops) {
          this.host.drop(i, s, item, "reset");
        }
      }
    }
  }

  /** Number of messages held for `slot`; for tests and diagnostics. */
  public held(slot: number): number {
    return this.#length(slot);
  }

  #length(i: number): number {
    return this.#items[i]!.length - this.#front[i]!;
  }

  /** Releases slot i's front message (read it first). */
  #advance(i: number): void {
    const items = this.#items[i]!;
    const stamps = this.#stamps[i]!;
    const f = this.#front[i]! + 1;
    items[f - 1] = undefined;
    // Compacted every 64 messages or so, never emptied with `length = 0`: that frees the backing
    // store, which the next push allocates again.
    if (f >= 64 && f * 2 >= items.length) {
      items.splice(0, f);
      stamps.splice(0, f);
      this.#front[i] = 0;
    } else {
      this.#front[i] = f;
    }
  }
}
