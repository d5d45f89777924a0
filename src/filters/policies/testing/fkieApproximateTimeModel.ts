// Test support for fkie/approximate-time (not re-exported): fkie's algorithm as a plain model.
import type { HeldMessage, PolicyModelEvent } from "./policyModel";
import type { Duration, Stamp } from "../../../time";

/** Options of the model: those of fkie's ApproximateTime that change what it emits or drops. */
export interface FkieApproximateTimeModelOptions {
  readonly maxQueueSize: number;
  readonly maxAge: Duration | null;
  readonly maxTimespan: Duration | null;
  readonly minDistance: readonly Duration[];
  readonly ros1OutOfOrder: boolean;
}

/**
 * fkie_message_filters' ApproximateTime (reference fkie-message-filters.md §2.1) written out
 * step by step, with stamp 0 as "unset" (TimeBase 0): each slot a plain array whose first element
 * is the head, every rule evaluated afresh on every call (no remembered answers, no rings).
 * Slow on purpose; it is what the policy's optimized code must reproduce event for event.
 */
export class FkieApproximateTimeModel<T> {
  readonly #slots: HeldMessage<T>[][];
  readonly #latest: Stamp[];
  readonly #options: FkieApproximateTimeModelOptions;
  #pivot = -1;
  #pivotStamp = 0;
  /** Every event so far. */
  public readonly events: PolicyModelEvent<T>[] = [];

  public constructor(slots: number, options: FkieApproximateTimeModelOptions) {
    this.#slots = Array.from({ length: slots }, () => []);
    this.#latest = new Array<Stamp>(slots).fill(0);
    this.#options = options;
  }

  /** add(N, msg): expiry, order check, insert, prune, then the matching loop. */
  public add(slot: number, stamp: Stamp, item: T): void {
    const { maxAge, maxQueueSize, ros1OutOfOrder } = this.#options;
    if (maxAge != undefined) {
      const cutoff = stamp - maxAge;
      this.#slots.forEach((held, i) => {
        if (held.length > 0 && held[0]!.stamp < cutoff) {
          this.#drop(i, "max-age");
          this.#pivot = -1;
          while (held.length > 0 && held[0]!.stamp <= cutoff) {
            this.#drop(i, "max-age");
          }
        } else {
          // The head stays; queued messages expire with `<=`.
          for (let k = 1; k < held.length;) {
            if (held[k]!.stamp <= cutoff) {
              const [gone] = held.splice(k, 1);
              this.events.push({
                kind: "drop",
                slot: i,
                stamp: gone!.stamp,
                item: gone!.item,
                reason: "max-age",
              });
            } else {
              k++;
            }
          }
        }
      });
    }
    const own = this.#slots[slot]!;
    if (ros1OutOfOrder) {
      if (own.length > 0 && stamp < own[own.length - 1]!.stamp) {
        this.#reset();
      }
    } else {
      if (this.#latest[slot] !== 0 && stamp < this.#latest[slot]!) {
        this.#reset();
      }
      this.#latest[slot] = stamp;
    }
    own.push({ stamp, item });
    if (maxQueueSize > 0 && own.length > maxQueueSize + 1) {
      while (own.length > maxQueueSize + 1) {
        this.#drop(slot, "queue-overflow");
      }
      this.#pivot = -1;
    }
    this.#loop(slot);
  }

  #loop(n: number): void {
    for (;;) {
      if (this.#pivot < 0) {
        if (this.#slots.some((held) => held.length === 0)) {
          return;
        }
        let best = 0;
        this.#slots.forEach((held, i) => {
          if (held[0]!.stamp > best) {
            best = held[0]!.stamp;
            this.#pivot = i;
          }
        });
        if (this.#pivot < 0) {
          return;
        }
        this.#pivotStamp = best;
      }
      if (this.#pivot !== n && this.#canStillImprove(n)) {
        return;
      }
      let improve = false;
      for (let i = 0; i < this.#slots.length; i++) {
        // fkie asks every slot but the pivot, n again included (it answers false again).
        if (i !== this.#pivot && this.#canStillImprove(i)) {
          improve = true;
        }
      }
      if (improve) {
        return;
      }
      const { maxTimespan } = this.#options;
      if (maxTimespan != undefined && this.#headsTimespan() > maxTimespan) {
        this.#drop(this.#pivot, "max-timespan");
        this.#pivot = -1;
        continue;
      }
      const items = this.#slots.map((held) => held.shift()!.item);
      this.#pivot = -1;
      this.events.push({ kind: "emit", items });
    }
  }

  #canStillImprove(i: number): boolean {
    const held = this.#slots[i]!;
    const td = (s: Stamp): number => Math.abs(s - this.#pivotStamp);
    while (held.length > 1) {
      if (td(held[1]!.stamp) < td(held[0]!.stamp)) {
        this.#drop(i, "not-selected");
      } else {
        return false;
      }
    }
    const s = held[0]!.stamp;
    return s < this.#pivotStamp && td(s + this.#options.minDistance[i]!) <= td(s);
  }

  #headsTimespan(): number {
    let first = 0;
    let last = 0;
    for (const held of this.#slots) {
      const s = held[0]!.stamp;
      if (first === 0 || s < first) {
        first = s;
      }
      if (last === 0 || s > last) {
        last = s;
      }
    }
    return last - first;
  }

  #drop(i: number, reason: string): void {
    const gone = this.#slots[i]!.shift()!;
    this.events.push({ kind: "drop", slot: i, stamp: gone.stamp, item: gone.item, reason });
  }

  #reset(): void {
    this.#slots.forEach((held, i) => {
      for (const h of held) {
        this.events.push({
          kind: "drop",
          slot: i,
          stamp: h.stamp,
          item: h.item,
          reason: "out-of-order-reset",
        });
      }
      held.length = 0;
    });
    this.#latest.fill(0);
    this.#pivot = -1;
  }
}
