import { QueueAgePolicy } from "./QueueAgePolicy";
import { checkSlotIndex, rejectInput } from "./checks";
import { lowerBound, type Duration, type Stamp } from "../../../time";
import type { DropReason } from "../../DropReason";
import { DOUBLE_SEED, packedDoubles, packedSlots } from "../packedArrays";

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
   * The stamp being added, for the steps of add written out of it: a double field (see
   * DOUBLE_SEED), so that it reaches them without a double argument, which a call that is not
   * inlined boxes.
   */
  #incoming = DOUBLE_SEED;

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
    if (!this.isSlot(slot) || stamp !== stamp) {
      rejectInput(this, slot, stamp);
    }
    const queues = this.#queues;
    this.#incoming = stamp;
    if (!queues[slot]!.insert(stamp, item)) {
      this.#dropDuplicate(slot, item);
      return;
    }
    let complete = true;
    // An index loop: for-of's bytecode would make add too large to inline.
    // eslint-disable-next-line @typescript-eslint/prefer-for-of
    for (let i = 0; i < queues.length; i++) {
      if (!queues[i]!.has(stamp)) {
        complete = false;
        break;
      }
    }
    if (complete) {
      this.#emitMatch(slot);
      return;
    }
    // Steps 3 and 4 without a match. The queue limit is tested here, not in a method of its own:
    // with the drop behind one more call, the order in which TurboFan optimized the pipeline's
    // functions decided whether the drop's callees were inlined, and a W3 pipeline ran 22–31 ns
    // from one process to the next (22–27 with the test here).
    if (this.ageLimit != undefined) {
      this.#expire();
    }
    const q = this.queueLimit;
    if (q > 0 && queues[slot]!.length > q) {
      this.#dropFront(slot, "queue-overflow");
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
    checkSlotIndex(this, slot);
    return this.#queues[slot]!.length;
  }

  /**
   * Steps 3 to 5 of add when the stamp in `#incoming` completed a set: out of add, so that add
   * stays small enough to be inlined into its callers.
   */
  #emitMatch(slot: number): void {
    const stamp = this.#incoming;
    const queues = this.#queues;
    // The matched messages leave first (ROS 2); everything older is then purged.
    const items = new Array<T>(queues.length);
    for (let i = 0; i < queues.length; i++) {
      this.#purgeBefore(i, stamp);
      items[i] = queues[i]!.popFrontItem();
    }
    const q = this.queueLimit;
    if (q > 0 && queues[slot]!.length > q) {
      this.#dropFront(slot, "queue-overflow");
    }
    const stamps = new Array<number>(queues.length).fill(stamp);
    this.host.emit(items, stamps);
  }

  /** Step 3 of add without a match: the age limit against the stamp in `#incoming`. */
  #expire(): void {
    const queues = this.#queues;
    const cutoff = this.#incoming - this.ageLimit!;
    for (let i = 0; i < queues.length; i++) {
      this.#purgeUpTo(i, cutoff);
    }
  }

  /** Step 1 of add: the stamp in `#incoming` is already held on `slot`. */
  #dropDuplicate(slot: number, item: T): void {
    this.host.drop(slot, this.#incoming, item, "duplicate-stamp");
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

/** A slot's first capacity; it doubles as needed (never shrinks). */
const INITIAL_CAPACITY = 64;

/**
 * One slot of ExactTime: stamps kept sorted and unique (fkie's `std::map<Time, T>`), in a packed
 * array of doubles and a parallel array of items between a moving front and end, so that
 * in-order arrival and front removal are O(1) and allocate nothing. When the end reaches the
 * capacity, the held messages move back to the start if they fill at most a quarter of it, else
 * the capacity doubles, so each move of n messages follows at least n appends. Released
 * positions are cleared.
 */
class SortedSlot<T> {
  #stamps: number[] = packedDoubles(INITIAL_CAPACITY);
  #items: (T | undefined)[] = packedSlots<T>(INITIAL_CAPACITY);
  #front = 0;
  #end = 0;

  public get length(): number {
    return this.#end - this.#front;
  }

  public frontStamp(): number {
    return this.#stamps[this.#front]!;
  }

  public popFrontItem(): T {
    const front = this.#front;
    const item = this.#items[front] as T;
    this.#items[front] = undefined;
    if (front + 1 === this.#end) {
      this.#front = 0;
      this.#end = 0;
    } else {
      this.#front = front + 1;
    }
    return item;
  }

  /** Inserts in order; false (and no change) if the stamp is already held. */
  public insert(stamp: number, item: T): boolean {
    const end = this.#end;
    if (end !== this.#front && !(stamp > this.#stamps[end - 1]!)) {
      return this.#insertEarlier(stamp, item);
    }
    if (end === this.#stamps.length) {
      this.#makeRoom();
    }
    const at = this.#end;
    this.#stamps[at] = stamp;
    this.#items[at] = item;
    this.#end = at + 1;
    return true;
  }

  /**
   * `insert` for a stamp not after the newest held one (out of line: appending, the common case,
   * stays small enough to be inlined, so its stamp is never boxed).
   */
  #insertEarlier(stamp: number, item: T): boolean {
    const end = this.#end;
    const offset = lowerBound(this.#stamps, stamp, this.#front, end) - this.#front;
    if (this.#stamps[this.#front + offset] === stamp) {
      return false;
    }
    if (end === this.#stamps.length) {
      this.#makeRoom();
    }
    const at = this.#front + offset;
    this.#stamps.copyWithin(at + 1, at, this.#end);
    this.#items.copyWithin(at + 1, at, this.#end);
    this.#stamps[at] = stamp;
    this.#items[at] = item;
    this.#end++;
    return true;
  }

  public has(stamp: number): boolean {
    const end = this.#end;
    if (end === this.#front) {
      return false;
    }
    const last = this.#stamps[end - 1]!;
    return stamp >= last ? stamp === last : this.#holdsEarlier(stamp);
  }

  /** `has` for a stamp before the newest held one (out of line, as #insertEarlier). */
  #holdsEarlier(stamp: number): boolean {
    return this.#stamps[lowerBound(this.#stamps, stamp, this.#front, this.#end)] === stamp;
  }

  /** Frees at least one position after the end (see the class comment). */
  #makeRoom(): void {
    const front = this.#front;
    const n = this.#end - front;
    const capacity = this.#stamps.length;
    if (4 * n > capacity) {
      const stamps = packedDoubles(2 * capacity);
      const items = packedSlots<T>(2 * capacity);
      for (let k = 0; k < n; k++) {
        stamps[k] = this.#stamps[front + k]!;
        items[k] = this.#items[front + k];
      }
      this.#stamps = stamps;
      this.#items = items;
    } else {
      // Plain loops: for a few elements, the builtins' calls cost more than the moves.
      const stamps = this.#stamps;
      const items = this.#items;
      for (let k = 0; k < n; k++) {
        stamps[k] = stamps[front + k]!;
        items[k] = items[front + k];
      }
      for (let k = n; k < this.#end; k++) {
        items[k] = undefined;
      }
    }
    this.#front = 0;
    this.#end = n;
  }
}
