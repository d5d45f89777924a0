import type { Duration, Stamp } from "../../../time";
import { NO_STAMPS, type PolicyHost } from "../CombinerPolicy";
import { SlotPolicy } from "../SlotPolicy";
import { SlotRing } from "../SlotRing";
import { frontItems, frontStamps } from "../setArrays";

/** A slot's first capacity; it doubles as needed. */
const INITIAL_CAPACITY = 16;

/** Options of {@link ApproximateEpsilonTime} (config type `ros/approximate-epsilon-time`). */
export interface RosApproximateEpsilonTimeOptions {
  /** Per-slot queue limit, applied only while some slot is empty. Integer >= 0. */
  queueSize: number;
  /** Max distance (ns, inclusive) of every head from the oldest head. Integer >= 0. */
  epsilon: Duration;
}

/**
 * ROS 2 message_filters `sync_policies::ApproximateEpsilonTime` (4.6.1+, unchanged in 8.0.2;
 * reference ros-message-filters.md §2.4): a simple matcher on the queue heads.
 *
 * While every slot holds a message: take the oldest head O (lowest slot on ties); if every head
 * is <= O + epsilon, emit the heads and pop them; otherwise pop (drop, `not-selected`) every head
 * that is <= O + epsilon, O included. The `queueSize` limit is applied only when some slot is
 * empty (as in ROS): the oldest message of the slot that just received one is dropped
 * (`queue-overflow`) when it holds more than `queueSize`.
 */
export class ApproximateEpsilonTime<T> extends SlotPolicy<T> {
  readonly #queueSize: number = 0;
  readonly #epsilon: Duration = 0;
  /** Slot i's queue, oldest first. */
  readonly #rings: SlotRing<T>[];
  #numNonEmpty = 0;

  public constructor(slots: number, options: RosApproximateEpsilonTimeOptions) {
    if (!Number.isInteger(slots) || slots < 2) {
      throw new RangeError(`ros/approximate-epsilon-time: slots must be an integer >= 2, got ${slots}`);
    }
    if (!Number.isSafeInteger(options.queueSize) || options.queueSize < 0) {
      throw new RangeError(
        `ros/approximate-epsilon-time: queueSize must be an integer >= 0, got ${options.queueSize}`,
      );
    }
    if (!Number.isSafeInteger(options.epsilon) || options.epsilon < 0) {
      throw new RangeError(
        `ros/approximate-epsilon-time: epsilon must be whole nanoseconds >= 0, got ${options.epsilon}`,
      );
    }
    super("ros/approximate-epsilon-time", slots, "refuse");
    this.#queueSize = options.queueSize;
    this.#epsilon = options.epsilon;
    // Rings start small and double as they fill (a huge queueSize costs nothing up front).
    this.#rings = Array.from({ length: slots }, () => new SlotRing<T>(INITIAL_CAPACITY));
  }


  public override add(slot: number, stamp: Stamp, item: T, _arrival: Stamp): void {
    const host = this.hostForStamped(slot, stamp, item);
    if (host == undefined) {
      return;
    }
    const ring = this.#rings[slot]!;
    if (ring.len === 0) {
      this.#numNonEmpty++;
    }
    ring.push(stamp, item);
    if (this.#numNonEmpty === this.slots) {
      this.#process(host);
    } else if (ring.len > this.#queueSize) {
      this.#pop(host, slot, "queue-overflow");
    }
  }

  // eslint-disable-next-line @foxglove/no-boolean-parameters -- signature fixed by CombinerPolicy
  public override reset(reportDrops = false): void {
    for (let i = 0; i < this.slots; i++) {
      const ring = this.#rings[i]!;
      while (ring.len > 0) {
        const stamp = ring.stampAt(0);
        const item = ring.itemAt(0);
        ring.it[ring.start] = undefined;
        ring.start = (ring.start + 1) & ring.mask;
        ring.len--;
        if (reportDrops) {
          this.host?.drop(i, stamp, item, "reset");
        }
      }
      ring.clear();
    }
    this.#numNonEmpty = 0;
  }

  #head(i: number): Stamp {
    const ring = this.#rings[i]!;
    return ring.st[ring.start]!;
  }

  #process(host: PolicyHost<T>): void {
    const N = this.slots;
    while (this.#numNonEmpty === N) {
      let oldest = this.#head(0);
      for (let i = 1; i < N; i++) {
        const t = this.#head(i);
        if (t < oldest) {
          oldest = t;
        }
      }
      const limit = oldest + this.#epsilon;
      let all = true;
      for (let i = 0; i < N; i++) {
        if (!(this.#head(i) <= limit)) {
          all = false;
          break;
        }
      }
      if (all) {
        this.#emitHeads(host);
      } else {
        for (let i = 0; i < N; i++) {
          if (this.#head(i) <= limit) {
            this.#pop(host, i, "not-selected");
          }
        }
      }
    }
  }

  /** Emits the head of every slot and removes them (state first, then the host). */
  #emitHeads(host: PolicyHost<T>): void {
    const rings = this.#rings;
    const items = frontItems(rings);
    const stamps = this.readsStamps ? frontStamps(rings) : NO_STAMPS;
    for (let i = 0; i < rings.length; i++) {
      this.#advance(i);
    }
    host.emit(items, stamps);
  }

  #pop(host: PolicyHost<T>, i: number, reason: "queue-overflow" | "not-selected"): void {
    const ring = this.#rings[i]!;
    const f = ring.start;
    this.#advance(i);
    host.drop(i, ring.st[f]!, ring.it[f] as T, reason);
  }

  /** Removes slot i's head. */
  #advance(i: number): void {
    const ring = this.#rings[i]!;
    ring.start = (ring.start + 1) & ring.mask;
    if (--ring.len === 0) {
      this.#numNonEmpty--;
    }
  }
}
