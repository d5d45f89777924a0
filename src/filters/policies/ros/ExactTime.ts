import type { Stamp } from "../../../time";
import type { DropReason } from "../../DropReason";
import { NO_STAMPS, type PolicyHost } from "../CombinerPolicy";
import { StampSortedList } from "./StampSortedList";
import { SlotPolicy } from "../SlotPolicy";

/** A partial tuple as ROS's ExactTime drop callback receives it. */
export interface PartialTuple<T> {
  /** The tuple's stamp. */
  readonly stamp: Stamp;
  /** One entry per slot; `undefined` where no message had arrived (ROS: a null event). */
  readonly items: readonly (T | undefined)[];
  /** Why the tuple was dropped: "not-selected" (older than an emitted stamp) or "queue-overflow". */
  readonly reason: DropReason;
}

/** Options of {@link ExactTime} (config type `ros/exact-time`). */
export interface RosExactTimeOptions<T = unknown> {
  /** Max number of stored (incomplete) tuples; 0 = unlimited. Integer >= 0. */
  queueSize: number;
  /**
   * Called once per dropped partial tuple, after its messages were reported through
   * `host.drop` (ROS's `registerDropCallback`). Optional.
   */
  onPartialDrop?: (tuple: PartialTuple<T>) => void;
}

/** Marks a slot of a stored tuple that no message has filled yet (T may itself be undefined). */
const EMPTY: unique symbol = Symbol("empty slot");

interface Entry<T> {
  stamp: Stamp;
  /** One per slot: the message, or EMPTY. */
  items: (T | typeof EMPTY)[];
  count: number;
  /** Why the tuple was erased (set when it is). */
  reason: DropReason;
}

/** Most erased tuples kept for reuse (their arrays are allocated once, not per message). */
const POOL_SIZE = 16;

/**
 * ROS 2 message_filters `sync_policies::ExactTime` (8.0.2; reference ros-message-filters.md
 * §2.2): emits a set when every slot holds a message with the same stamp.
 *
 * Guarantees and quirks kept: tuples are keyed by stamp; a second message with the same stamp on
 * the same slot replaces the first (`duplicate-stamp` drop of the first). After an emission, every
 * stored tuple with a stamp <= the emitted one is dropped (`not-selected`). When more than
 * `queueSize` tuples are stored, the oldest BY STAMP are dropped (`queue-overflow`) — also right
 * after an emission. A late message older than the last emitted stamp is not rejected: it opens
 * a new tuple that is purged only by the next emission or by overflow. Every dropped message is
 * reported once through `host.drop`; each dropped tuple is also passed, whole and partial, to
 * `onPartialDrop` (ROS's drop callback). Drops are reported after the emission that caused them,
 * as ROS calls its drop signal after the output signal.
 *
 * ```ts
 * const policy = new ExactTime<Msg>(3, { queueSize: 10 }).setPartialDropCallback((t) => log(t));
 * ```
 */
export class ExactTime<T> extends SlotPolicy<T> {
  readonly #queueSize: number;
  #onPartialDrop: ((tuple: PartialTuple<T>) => void) | undefined;
  /** Stored tuples, sorted by stamp ascending (found by binary search: at most queueSize + 1). */
  readonly #tuples = new StampSortedList<Entry<T>>();
  #spare: (Entry<T> | undefined)[] | undefined = [];
  /** Erased tuples whose arrays nobody else holds, ready for reuse. */
  readonly #pool: Entry<T>[] = [];

  public constructor(slots: number, options: RosExactTimeOptions<T>) {
    if (!Number.isInteger(slots) || slots < 2) {
      throw new RangeError(`ros/exact-time: slots must be an integer >= 2, got ${slots}`);
    }
    if (!Number.isSafeInteger(options.queueSize) || options.queueSize < 0) {
      throw new RangeError(`ros/exact-time: queueSize must be an integer >= 0 (0 = unlimited), got ${options.queueSize}`);
    }
    super("ros/exact-time", slots, "refuse");
    this.#queueSize = options.queueSize;
    this.#onPartialDrop = options.onPartialDrop;
  }

  /** Sets (or clears) the partial-tuple drop callback (ROS `registerDropCallback`). */
  public setPartialDropCallback(callback: ((tuple: PartialTuple<T>) => void) | undefined): this {
    this.#onPartialDrop = callback;
    return this;
  }


  /** Adds one message (reference §2.2 add): store by stamp, emit when complete, purge, report. */
  public override add(slot: number, stamp: Stamp, item: T, _arrival: Stamp): void {
    const host = this.hostForStamped(slot, stamp, item);
    if (host == undefined) {
      return;
    }
    const tuples = this.#tuples;
    const at = tuples.lowerBound(stamp);
    let entry = at < tuples.length ? tuples.at(at) : undefined;
    if (entry?.stamp !== stamp) {
      entry = this.#newEntry(stamp);
      tuples.insert(at, entry);
    }
    const replaced = entry.items[slot]!;
    if (replaced === EMPTY) {
      entry.count++;
    }
    entry.items[slot] = item;

    // Tuples erased by this add, reported after the emission (ROS calls its drop signal last).
    // The list is reused from add to add; an add re-entered from a listener takes a fresh one.
    const erased = this.#spare ?? [];
    this.#spare = undefined;
    let erasedCount = 0;
    let emitted: Entry<T> | undefined;
    if (entry.count === this.slots) {
      emitted = entry;
      // Erase the tuple and every older one (stamp <= emitted, all before it in the sorted list).
      for (let k = 0; k < at; k++) {
        const old = tuples.at(k);
        old.reason = "not-selected";
        erased[erasedCount++] = old;
      }
      tuples.removeFront(at + 1);
    }
    const q = this.#queueSize;
    if (q > 0 && tuples.length > q) {
      const n = tuples.length - q;
      for (let k = 0; k < n; k++) {
        const old = tuples.at(k);
        old.reason = "queue-overflow";
        erased[erasedCount++] = old;
      }
      tuples.removeFront(n);
    }
    if (replaced !== EMPTY) {
      host.drop(slot, stamp, replaced, "duplicate-stamp");
    }
    try {
      if (emitted != undefined) {
        host.emit(emitted.items as T[], this.#stampsOf(stamp));
      }
    } finally {
      // Cleared by index, not by `length = 0` (which would free the backing store every time).
      for (let k = 0; k < erasedCount; k++) {
        const old = erased[k]!;
        erased[k] = undefined;
        this.#reportTuple(host, old, old.reason);
        this.#recycle(old);
      }
      this.#spare = erased;
    }
  }

  // eslint-disable-next-line @foxglove/no-boolean-parameters -- signature fixed by CombinerPolicy
  public override reset(reportDrops = false): void {
    const tuples = this.#tuples.drain();
        const host = this.host;
    if (reportDrops && host != undefined) {
      for (const old of tuples) {
        this.#reportTuple(host, old, "reset");
      }
    }
  }

  #newEntry(stamp: Stamp): Entry<T> {
    const entry = this.#pool.pop();
    if (entry == undefined) {
      return { stamp, items: new Array<T | typeof EMPTY>(this.slots).fill(EMPTY), count: 0, reason: "not-selected" };
    }
    entry.stamp = stamp;
    entry.count = 0;
    return entry;
  }

  /** Keeps an erased tuple for reuse; its items array was handed to no one (see #reportTuple). */
  #recycle(entry: Entry<T>): void {
    if (this.#pool.length < POOL_SIZE) {
      const items = entry.items;
      // A loop, not Array.prototype.fill: for a handful of slots the builtin call costs more.
      for (let i = 0; i < items.length; i++) {
        items[i] = EMPTY;
      }
      this.#pool.push(entry);
    }
  }

  #stampsOf(stamp: Stamp): Stamp[] {
    return this.readsStamps ? new Array<Stamp>(this.slots).fill(stamp) : NO_STAMPS;
  }

  #reportTuple(host: PolicyHost<T>, entry: Entry<T>, reason: DropReason): void {
    const items = entry.items;
    for (let i = 0; i < this.slots; i++) {
      const it = items[i]!;
      if (it !== EMPTY) {
        host.drop(i, entry.stamp, it, reason);
      }
    }
    if (reason !== "reset" && this.#onPartialDrop != undefined) {
      this.#onPartialDrop({ stamp: entry.stamp, items: items.map((it) => (it === EMPTY ? undefined : it)), reason });
    }
  }
}
