import type { Duration, Stamp } from "../../../time";
import { NO_STAMPS, type PolicyHost } from "../CombinerPolicy";
import { SlotPolicy } from "../SlotPolicy";

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
  readonly #queueSize: number;
  readonly #epsilon: Duration;
  readonly #stamps: Stamp[][];
  readonly #items: T[][];
  readonly #heads: Int32Array;
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
    this.#stamps = Array.from({ length: slots }, () => []);
    this.#items = Array.from({ length: slots }, () => []);
    this.#heads = new Int32Array(slots);
  }


  public override add(slot: number, stamp: Stamp, item: T, _arrival: Stamp): void {
    const host = this.hostForStamped(slot, stamp, item);
    if (host == undefined) {
      return;
    }
    if (this.#size(slot) === 0) {
      this.#numNonEmpty++;
    }
    this.#stamps[slot]!.push(stamp);
    this.#items[slot]!.push(item);
    if (this.#numNonEmpty === this.slots) {
      this.#process(host);
    } else if (this.#size(slot) > this.#queueSize) {
      this.#pop(host, slot, "queue-overflow");
    }
  }

  // eslint-disable-next-line @foxglove/no-boolean-parameters -- signature fixed by CombinerPolicy
  public override reset(reportDrops = false): void {
    for (let i = 0; i < this.slots; i++) {
      while (this.#size(i) > 0) {
        const h = this.#heads[i]!;
        const stamp = this.#stamps[i]![h]!;
        const item = this.#items[i]![h] as T;
        this.#heads[i] = h + 1;
        if (reportDrops) {
          this.host?.drop(i, stamp, item, "reset");
        }
      }
      this.#stamps[i]!.length = 0;
      this.#items[i]!.length = 0;
      this.#heads[i] = 0;
    }
    this.#numNonEmpty = 0;
  }

  #size(i: number): number {
    return this.#stamps[i]!.length - this.#heads[i]!;
  }

  #head(i: number): Stamp {
    return this.#stamps[i]![this.#heads[i]!]!;
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
        const items = new Array<T>(N);
        const stamps = this.readsStamps ? new Array<number>(N) : NO_STAMPS;
        for (let i = 0; i < N; i++) {
          const h = this.#heads[i]!;
          items[i] = this.#items[i]![h]!;
          if (stamps !== NO_STAMPS) {
            stamps[i] = this.#stamps[i]![h]!;
          }
          this.#advance(i);
        }
        host.emit(items, stamps);
      } else {
        for (let i = 0; i < N; i++) {
          if (this.#head(i) <= limit) {
            this.#pop(host, i, "not-selected");
          }
        }
      }
    }
  }

  #pop(host: PolicyHost<T>, i: number, reason: "queue-overflow" | "not-selected"): void {
    const h = this.#heads[i]!;
    const stamp = this.#stamps[i]![h]!;
    const item = this.#items[i]![h]!;
    this.#advance(i);
    host.drop(i, stamp, item, reason);
  }

  /** Removes slot i's head, compacting the backing arrays now and then. */
  #advance(i: number): void {
    const h = this.#heads[i]! + 1;
    const stamps = this.#stamps[i]!;
    const items = this.#items[i]!;
    (items as (T | undefined)[])[h - 1] = undefined;
    if (h === stamps.length) {
      this.#numNonEmpty--;
    }
    // Compacted every 64 messages or so, never emptied with `length = 0`: that frees the backing
    // store, which the next push allocates again.
    if (h >= 64 && h * 2 >= stamps.length) {
      stamps.splice(0, h);
      items.splice(0, h);
      this.#heads[i] = 0;
    } else {
      this.#heads[i] = h;
    }
  }
}
