import type { Stamp } from "../../../time";
import { NO_STAMPS } from "../CombinerPolicy";
import { SlotPolicy } from "../SlotPolicy";
import { SlotDicts, type Held } from "./SlotDicts";
import { checkQueueSize, checkSlotCount } from "./checks";

/** Options of {@link ExactTime} (config type `python/exact-time`). */
export interface PythonExactTimeOptions {
  /** Max messages kept per slot (the smallest stamp is evicted beyond it). Integer >= 1. */
  queueSize: number;
}

/**
 * rclpy message_filters `TimeSynchronizer` with 8.x semantics (7.3.5+, ros2/message_filters#238;
 * reference ros-message-filters.md §1 Python and §3): one dict per slot keyed by stamp.
 *
 * On each message: store it under its stamp (an equal stamp on the same slot replaces the held
 * message: `duplicate-stamp`); beyond `queueSize` evict the smallest stamp of that slot
 * (`queue-overflow`). If some stamp is held by every slot, emit only the SMALLEST such stamp,
 * then delete every held message older than it on every slot (`not-selected`), as C++ ExactTime
 * does. (Up to 7.3.4 every common stamp was emitted, in order; not offered.) Headerless messages
 * are not accepted (rclpy raises; callers drop them as `no-header`).
 */
export class ExactTime<T> extends SlotPolicy<T> {
  readonly #dicts: SlotDicts<T>;
  readonly #queues: Map<number, Held<T>>[];

  public constructor(slots: number, options: PythonExactTimeOptions) {
    checkSlotCount(slots, "python/exact-time");
    checkQueueSize(options.queueSize, "python/exact-time");
    super("python/exact-time", slots, "refuse");
    this.#dicts = new SlotDicts<T>(slots, options.queueSize);
    this.#queues = this.#dicts.maps;
  }

  public override add(slot: number, stamp: Stamp, item: T, _arrival: Stamp): void {
    const host = this.hostForStamped(slot, stamp, item);
    if (host == undefined) {
      return;
    }
    this.#dicts.store(host, slot, stamp, stamp, item);
    // rclpy searches slot 0's keys for the smallest stamp every slot holds. No stamp is held by
    // every slot before this message (each add emits the one it completes, and eviction or a
    // replaced message never completes one), so the only candidate is the stamp just stored.
    const queues = this.#queues;
    for (const q of queues) {
      if (!q.has(stamp)) {
        return;
      }
    }
    const items = new Array<T>(queues.length);
    let olderSlots: number[] | undefined;
    let older: Held<T>[] | undefined;
    for (let s = 0; s < queues.length; s++) {
      const q = queues[s]!;
      items[s] = q.get(stamp)!.item;
      q.delete(stamp);
      for (const [t, h] of q) {
        if (t < stamp) {
          q.delete(t);
          (olderSlots ??= []).push(s);
          (older ??= []).push(h);
        }
      }
    }
    try {
      host.emit(items, this.readsStamps ? new Array<Stamp>(queues.length).fill(stamp) : NO_STAMPS);
    } finally {
      if (older != undefined) {
        for (let k = 0; k < older.length; k++) {
          host.drop(olderSlots![k]!, older[k]!.stamp, older[k]!.item, "not-selected");
        }
      }
    }
  }

  // eslint-disable-next-line @foxglove/no-boolean-parameters -- signature fixed by CombinerPolicy
  public override reset(reportDrops = false): void {
    this.#dicts.clear(reportDrops ? this.host : undefined);
  }
}
