import type { Stamp } from "../../../time";
import type { DropReason } from "../../DropReason";
import type { PolicyHost } from "../CombinerPolicy";
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

interface Entry<T> {
  stamp: Stamp;
  items: (T | undefined)[];
  /** 1 where a slot is filled (T may itself be undefined, so presence is tracked apart). */
  present: Uint8Array;
  count: number;
}

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
  /** Stored tuples, sorted by stamp ascending. */
  #tuples: Entry<T>[] = [];
  readonly #byStamp = new Map<Stamp, Entry<T>>();

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

  public override add(slot: number, stamp: Stamp, item: T, _arrival: Stamp): void {
    const host = this.hostFor(slot);
    if (stamp !== stamp) {
      host.drop(slot, stamp, item, "no-header", "ros/exact-time needs a header stamp");
      return;
    }
    let entry = this.#byStamp.get(stamp);
    let replaced: T | undefined;
    let hadReplaced = false;
    if (entry == undefined) {
      entry = {
        stamp,
        items: new Array<T | undefined>(this.slots).fill(undefined),
        present: new Uint8Array(this.slots),
        count: 0,
      };
      this.#insert(entry);
    }
    if (entry.present[slot] === 1) {
      replaced = entry.items[slot];
      hadReplaced = true;
    } else {
      entry.count++;
    }
    entry.items[slot] = item;
    entry.present[slot] = 1;

    const dropped: [Entry<T>, DropReason][] = [];
    let emitted: Entry<T> | undefined;
    if (entry.count === this.slots) {
      emitted = entry;
      // Remove the tuple and every older one (stamp <= emitted; the emitted one is first removed).
      let k = 0;
      while (k < this.#tuples.length && this.#tuples[k]!.stamp <= stamp) {
        k++;
      }
      for (const old of this.#tuples.splice(0, k)) {
        this.#byStamp.delete(old.stamp);
        if (old !== entry) {
          dropped.push([old, "not-selected"]);
        }
      }
    }
    if (this.#queueSize > 0 && this.#tuples.length > this.#queueSize) {
      const excess = this.#tuples.splice(0, this.#tuples.length - this.#queueSize);
      for (const old of excess) {
        this.#byStamp.delete(old.stamp);
        dropped.push([old, "queue-overflow"]);
      }
    }
    if (hadReplaced) {
      host.drop(slot, stamp, replaced as T, "duplicate-stamp");
    }
    try {
      if (emitted != undefined) {
        host.emit(emitted.items as T[], new Array<number>(this.slots).fill(stamp));
      }
    } finally {
      for (const [old, reason] of dropped) {
        this.#reportTuple(host, old, reason);
      }
    }
  }

  // eslint-disable-next-line @foxglove/no-boolean-parameters -- signature fixed by CombinerPolicy
  public override reset(reportDrops = false): void {
    const tuples = this.#tuples;
    this.#tuples = [];
    this.#byStamp.clear();
    const host = this.host;
    if (reportDrops && host != undefined) {
      for (const old of tuples) {
        this.#reportTuple(host, old, "reset");
      }
    }
  }

  #reportTuple(host: PolicyHost<T>, entry: Entry<T>, reason: DropReason): void {
    const present = entry.present;
    for (let i = 0; i < this.slots; i++) {
      if (present[i] === 1) {
        host.drop(i, entry.stamp, entry.items[i] as T, reason);
      }
    }
    if (reason !== "reset") {
      this.#onPartialDrop?.({ stamp: entry.stamp, items: entry.items, reason });
    }
  }

  #insert(entry: Entry<T>): void {
    const tuples = this.#tuples;
    let lo = 0;
    let hi = tuples.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (tuples[mid]!.stamp < entry.stamp) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    tuples.splice(lo, 0, entry);
    this.#byStamp.set(entry.stamp, entry);
  }
}
