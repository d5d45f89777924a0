import { QueueAgePolicy } from "./QueueAgePolicy";
import { checkSlotIndex, rejectInput } from "./checks";
import { lowerBound, type Duration, type Stamp } from "../../../time";
import type { DropReason } from "../../DropReason";

/** Options of {@link ExactTime}. */
export interface ExactTimeOptions {
  /**
   * Maximum number of messages held per slot; when a slot exceeds it, its oldest stamp is dropped
   * (`queue-overflow`, at most one per message). 0 (the default) means unlimited.
   */
  maxQueueSize?: number;
  /**
   * Maximum age in ns, measured against the stamp of each incoming message: held messages with
   * stamp `<= incoming − maxAge` are dropped (`max-age`). Default 1 s; `null` = unlimited.
   */
  maxAge?: Duration | null;
  /** `TimeBase.zero`. Accepted for a uniform construction; exact matching has no zero quirk. */
  zero?: Stamp;
}

/**
 * fkie_message_filters' `combiner_policies::ExactTime` (reference fkie-message-filters.md §2.2;
 * the ROS 2 form, whose output equals 1.x's): emits a set when every slot holds a message with
 * the same stamp.
 *
 * Per message: (1) a stamp already held on the slot is dropped (`duplicate-stamp`) and nothing
 * else happens; (2) it is inserted; (3) on a match every held message with stamp `<=` the match
 * is discarded (`not-selected`), otherwise, with a max age, every held message with stamp
 * `<= stamp − maxAge` (`max-age`); the cutoff follows the incoming stamp even when it is old, and
 * `maxAge = 0` discards the message that just arrived; (4) with a max queue size, the slot's
 * oldest message goes if the slot is over the limit (`queue-overflow`); (5) the match is emitted.
 * Emitted stamps are strictly increasing when at least one input arrives in order.
 *
 * Setters follow fkie: `setMaxAge` also sets `maxQueueSize = 0`; `setMaxQueueSize(n)` without a
 * second argument sets `maxAge = null`. Constructor options apply together, without those effects.
 *
 * ```ts
 * const policy = new ExactTime<Msg>(2, { maxAge: 10_000_000_000 });
 * policy.bind(host);
 * policy.add(0, stamp, msg, stamp);
 * ```
 */
export class ExactTime<T> extends QueueAgePolicy<T> {
  readonly #queues: SortedSlot<T>[];

  /**
   * @param slots number of inputs (a positive integer)
   * @param options see {@link ExactTimeOptions}; throws RangeError naming a bad option
   */
  public constructor(slots: number, options: ExactTimeOptions = {}) {
    super("fkie/exact-time", slots, options);
    this.#queues = Array.from({ length: slots }, () => new SortedSlot<T>());
  }


  /** Adds one message (reference §2.2 add). */
  public override add(slot: number, stamp: Stamp, item: T, _arrival?: Stamp): void {
    if (slot >>> 0 !== slot || slot >= this.slots || stamp !== stamp) {
      rejectInput(slot, stamp, this.slots, "fkie/exact-time");
    }
    const queues = this.#queues;
    const host = this.host;
    if (!queues[slot]!.insert(stamp, item)) {
      host.drop(slot, stamp, item, "duplicate-stamp");
      return;
    }
    let complete = true;
    for (const q of queues) {
      if (!q.has(stamp)) {
        complete = false;
        break;
      }
    }
    let items: T[] | undefined;
    if (complete) {
      // The matched messages leave first (ROS 2); everything older is then purged.
      items = new Array<T>(queues.length);
      for (let i = 0; i < queues.length; i++) {
        this.#purgeBefore(i, stamp);
        items[i] = queues[i]!.popFrontItem();
      }
    } else if (this.ageLimit != undefined) {
      const cutoff = stamp - this.ageLimit;
      for (let i = 0; i < queues.length; i++) {
        this.#purgeUpTo(i, cutoff);
      }
    }
    const q = this.queueLimit;
    if (q > 0 && queues[slot]!.length > q) {
      this.#dropFront(slot, "queue-overflow");
    }
    if (items != undefined) {
      const stamps = new Array<number>(queues.length).fill(stamp);
      host.emit(items, stamps);
    }
  }

  /** Clears all held messages (reported as `reset` if asked); keeps the configuration. */
  // eslint-disable-next-line @foxglove/no-boolean-parameters -- the CombinerPolicy contract
  public override reset(reportDrops = false): void {
    for (let i = 0; i < this.#queues.length; i++) {
      const q = this.#queues[i]!;
      while (q.length > 0) {
        if (reportDrops) {
          this.#dropFront(i, "reset");
        } else {
          q.popFrontItem();
        }
      }
    }
  }

  /** Number of messages held for `slot`; for tests and diagnostics. */
  public held(slot: number): number {
    checkSlotIndex(slot, this.slots, "fkie/exact-time");
    return this.#queues[slot]!.length;
  }

  /** Drops slot i's messages older than a match (`not-selected`). */
  #purgeBefore(i: number, stamp: Stamp): void {
    const q = this.#queues[i]!;
    while (q.length > 0 && q.frontStamp() < stamp) {
      this.#dropFront(i, "not-selected");
    }
  }

  /** Drops slot i's messages with stamp `<= cutoff` (`max-age`). */
  #purgeUpTo(i: number, cutoff: Stamp): void {
    const q = this.#queues[i]!;
    while (q.length > 0 && q.frontStamp() <= cutoff) {
      this.#dropFront(i, "max-age");
    }
  }

  #dropFront(i: number, reason: DropReason): void {
    const q = this.#queues[i]!;
    const s = q.frontStamp();
    const item = q.popFrontItem();
    this.host.drop(i, s, item, reason);
  }
}

/**
 * One slot of ExactTime: stamps kept sorted and unique (fkie's `std::map<Time, T>`), stored as
 * parallel arrays with a moving front so that in-order arrival and front removal are O(1).
 */
class SortedSlot<T> {
  #stamps: number[] = [];
  #items: (T | undefined)[] = [];
  #front = 0;

  public get length(): number {
    return this.#stamps.length - this.#front;
  }

  public frontStamp(): number {
    return this.#stamps[this.#front]!;
  }

  public popFrontItem(): T {
    const item = this.#items[this.#front] as T;
    this.#items[this.#front] = undefined;
    this.#front++;
    if (this.#front === this.#stamps.length) {
      this.#stamps.length = 0;
      this.#items.length = 0;
      this.#front = 0;
    } else if (this.#front >= 1024 && this.#front * 2 >= this.#stamps.length) {
      this.#stamps.splice(0, this.#front);
      this.#items.splice(0, this.#front);
      this.#front = 0;
    }
    return item;
  }

  /** Inserts in order; false (and no change) if the stamp is already held. */
  public insert(stamp: number, item: T): boolean {
    const stamps = this.#stamps;
    const n = stamps.length;
    if (n === this.#front || stamp > stamps[n - 1]!) {
      stamps.push(stamp);
      this.#items.push(item);
      return true;
    }
    const at = this.#lowerBound(stamp);
    if (at < n && stamps[at] === stamp) {
      return false;
    }
    stamps.splice(at, 0, stamp);
    this.#items.splice(at, 0, item);
    return true;
  }

  public has(stamp: number): boolean {
    const stamps = this.#stamps;
    const n = stamps.length;
    if (n === this.#front) {
      return false;
    }
    const last = stamps[n - 1]!;
    if (stamp >= last) {
      return stamp === last;
    }
    const at = this.#lowerBound(stamp);
    return at < n && stamps[at] === stamp;
  }

  /** First index >= front whose stamp is >= `stamp`. */
  #lowerBound(stamp: number): number {
    return lowerBound(this.#stamps, stamp, this.#front);
  }
}
