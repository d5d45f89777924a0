import type { Stamp } from "../../../time";
import type { PolicyHost } from "../CombinerPolicy";

/** One held message of an rclpy policy. */
export interface Held<T> {
  readonly item: T;
  readonly stamp: Stamp;
}

/**
 * The rclpy synchronizers' per-slot dicts: one `Map` per slot keyed by stamp (insertion order and
 * replace-on-equal-key, as a Python dict), bounded by `queueSize`. Internal to the python policies.
 */
export class SlotDicts<T> {
  /** Slot i's dict. The policies read and delete entries directly. */
  public readonly maps: Map<number, Held<T>>[];
  readonly #queueSize: number = 0;

  public constructor(slots: number, queueSize: number) {
    this.maps = Array.from({ length: slots }, () => new Map<number, Held<T>>());
    this.#queueSize = queueSize;
  }

  /**
   * Stores `item` under `key` on `slot`: a message held under the same key is dropped
   * (`duplicate-stamp`); then, beyond `queueSize`, the smallest key goes (`queue-overflow`).
   */
  public store(host: PolicyHost<T>, slot: number, key: number, stamp: Stamp, item: T): void {
    const mine = this.maps[slot]!;
    const previous = mine.get(key);
    mine.set(key, { item, stamp });
    if (previous != undefined) {
      host.drop(slot, previous.stamp, previous.item, "duplicate-stamp");
    }
    while (mine.size > this.#queueSize) {
      let min = Infinity;
      for (const k of mine.keys()) {
        if (k < min) {
          min = k;
        }
      }
      const evicted = mine.get(min)!;
      mine.delete(min);
      host.drop(slot, evicted.stamp, evicted.item, "queue-overflow");
    }
  }

  /** Empties every dict, reporting each held message as `reset` to `host` when one is given. */
  public clear(host: PolicyHost<T> | undefined): void {
    this.maps.forEach((q, slot) => {
      if (host != undefined) {
        for (const h of q.values()) {
          host.drop(slot, h.stamp, h.item, "reset");
        }
      }
      q.clear();
    });
  }
}
