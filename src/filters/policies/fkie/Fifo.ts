import type { Stamp } from "../../../time";
import { NO_STAMPS, type PolicyHost } from "../CombinerPolicy";
import { SlotPolicy } from "../SlotPolicy";
import { SlotRing } from "../SlotRing";
import { frontItems, frontStamps } from "../setArrays";
import { checkQueueSize, checkSlotCount, checkSlotIndex, rejectSlot, unboundHost } from "./checks";

/** A slot's first capacity; it doubles as needed. */
const INITIAL_CAPACITY = 8;

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
  readonly #maxQueueSize: number = 0;
  /** Slot i's FIFO, oldest first. */
  readonly #rings: SlotRing<T>[];

  /**
   * @param slots number of inputs (a positive integer)
   * @param options see {@link FifoOptions}; throws RangeError on a bad capacity
   */
  public constructor(slots: number, options: FifoOptions = {}) {
    checkSlotCount(slots, "fkie/fifo");
    super("fkie/fifo", slots, "accept", unboundHost("fkie/fifo"));
    this.#maxQueueSize = checkQueueSize(options.maxQueueSize ?? 1, "maxQueueSize");
    // Rings start small and double as they fill (a huge maxQueueSize costs nothing up front).
    this.#rings = Array.from({ length: slots }, () => new SlotRing<T>(INITIAL_CAPACITY));
  }

  /** Capacity of each slot's FIFO. */
  public get maxQueueSize(): number {
    return this.#maxQueueSize;
  }


  /** Adds one message (reference §2.3); `stamp` is carried to the output only. */
  public override add(slot: number, stamp: Stamp, item: T, _arrival?: Stamp): void {
    if (!this.isSlot(slot)) {
      rejectSlot(this, slot);
    }
    const ring = this.#rings[slot]!;
    ring.push(stamp, item);
    if (ring.len > this.#maxQueueSize) {
      const f = ring.start;
      ring.start = (f + 1) & ring.mask;
      ring.len--;
      this.host.drop(slot, ring.st[f]!, ring.it[f] as T, "queue-overflow");
    }
    const rings = this.#rings;
    for (;;) {
      // An index loop: for-of's iterator bytecode would keep add from being inlined.
      // eslint-disable-next-line @typescript-eslint/prefer-for-of
      for (let i = 0; i < rings.length; i++) {
        if (rings[i]!.len === 0) {
          return;
        }
      }
      this.#emitFronts();
    }
  }

  /** Clears all held messages (reported as `reset` if asked). */
  // eslint-disable-next-line @foxglove/no-boolean-parameters -- the CombinerPolicy contract
  public override reset(reportDrops = false): void {
    for (let i = 0; i < this.slots; i++) {
      const ring = this.#rings[i]!;
      while (ring.len > 0) {
        const s = ring.stampAt(0);
        const item = ring.itemAt(0);
        ring.it[ring.start] = undefined;
        ring.start = (ring.start + 1) & ring.mask;
        ring.len--;
        if (reportDrops) {
          this.host.drop(i, s, item, "reset");
        }
      }
    }
  }

  /** Number of messages held for `slot`; for tests and diagnostics. */
  public held(slot: number): number {
    checkSlotIndex(this, slot);
    return this.#rings[slot]!.len;
  }

  /** Emits the front message of every slot and removes them (state first, then the host). */
  #emitFronts(): void {
    const rings = this.#rings;
    const items = frontItems(rings);
    const stamps = this.readsStamps ? frontStamps(rings) : NO_STAMPS;
    for (const ring of rings) {
      ring.start = (ring.start + 1) & ring.mask;
      ring.len--;
    }
    this.host.emit(items, stamps);
  }
}
