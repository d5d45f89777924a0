// Test support for ros/approximate-time (not re-exported): ROS's algorithm as a plain model.
import type { HeldMessage, PolicyModelEvent } from "./policyModel";
import type { Duration, Stamp } from "../../../time";

/** Options of the model: those of ROS's ApproximateTime that change what it emits or drops. */
export interface RosApproximateTimeModelOptions {
  readonly queueSize: number;
  readonly agePenalty: number;
  /** Per slot, ns (ROS's inter_message_lower_bound). */
  readonly lowerBound: readonly Duration[];
  /** ns, or Infinity for none. */
  readonly maxInterval: number;
}

/**
 * ROS 2 message_filters' ApproximateTime (reference ros-message-filters.md §2.1, with the code's
 * tie rule for the latest head: the highest slot) written out step by step: per slot a plain
 * array holding its past vector then its deque, every head, count and candidate found afresh
 * when needed. Products with `1 + agePenalty` are truncated to whole ns, as rclcpp's Duration
 * does. Slow on purpose; the policy must reproduce it event for event.
 */
export class RosApproximateTimeModel<T> {
  readonly #held: HeldMessage<T>[][];
  /** How many of each slot's first messages are in its past vector. */
  readonly #past: number[];
  readonly #hasDropped: boolean[];
  readonly #options: RosApproximateTimeModelOptions;
  #pivot = -1;
  #pivotTime = 0;
  #candStart = 0;
  #candEnd = 0;
  /** Every event so far. */
  public readonly events: PolicyModelEvent<T>[] = [];

  public constructor(slots: number, options: RosApproximateTimeModelOptions) {
    this.#held = Array.from({ length: slots }, () => []);
    this.#past = new Array<number>(slots).fill(0);
    this.#hasDropped = new Array<boolean>(slots).fill(false);
    this.#options = options;
  }

  /** add(i, msg). */
  public add(slot: number, stamp: Stamp, item: T): void {
    const wasEmpty = this.#dequeEmpty(slot);
    this.#held[slot]!.push({ stamp, item });
    if (wasEmpty && this.#allNonEmpty()) {
      this.#process();
    }
    if (this.#held[slot]!.length > this.#options.queueSize) {
      this.#past.fill(0);
      this.#drop(slot, "queue-overflow");
      this.#hasDropped[slot] = true;
      if (this.#pivot >= 0) {
        this.#pivot = -1;
        this.#process();
      }
    }
  }

  #dequeEmpty(i: number): boolean {
    return this.#held[i]!.length === this.#past[i]!;
  }

  #allNonEmpty(): boolean {
    return this.#held.every((_, i) => !this.#dequeEmpty(i));
  }

  #front(i: number): Stamp {
    return this.#held[i]![this.#past[i]!]!.stamp;
  }

  #grown(end: Stamp): number {
    return Math.trunc((end - this.#candEnd) * (1 + this.#options.agePenalty));
  }

  #process(): void {
    const n = this.#held.length;
    while (this.#allNonEmpty()) {
      let s = 0;
      let e = 0;
      for (let i = 1; i < n; i++) {
        if (this.#front(i) < this.#front(s)) {
          s = i;
        }
        if (this.#front(i) >= this.#front(e)) {
          e = i;
        }
      }
      const st = this.#front(s);
      const et = this.#front(e);
      this.#hasDropped.forEach((_, i) => {
        if (i !== e) {
          this.#hasDropped[i] = false;
        }
      });
      if (this.#pivot < 0) {
        if (et - st > this.#options.maxInterval) {
          this.#drop(s, "max-timespan");
          continue;
        }
        if (this.#hasDropped[e]!) {
          this.#drop(s, "not-selected");
          continue;
        }
        this.#makeCandidate(st, et);
        this.#pivot = e;
        this.#pivotTime = et;
      } else if (this.#grown(et) < st - this.#candStart) {
        this.#makeCandidate(st, et);
      }
      this.#past[s]!++;
      if (s === this.#pivot || this.#grown(et) >= this.#pivotTime - this.#candStart) {
        this.#publish();
      } else if (!this.#allNonEmpty()) {
        this.#virtualSearch();
      }
    }
  }

  /** The current heads become the candidate: every past message is discarded for good. */
  #makeCandidate(st: Stamp, et: Stamp): void {
    this.#held.forEach((_, i) => {
      while (this.#past[i]! > 0) {
        this.#past[i]!--;
        this.#drop(i, "not-selected");
      }
    });
    this.#candStart = st;
    this.#candEnd = et;
  }

  #virtualSearch(): void {
    const n = this.#held.length;
    const moves = new Array<number>(n).fill(0);
    for (;;) {
      const times = this.#held.map((held, i) =>
        this.#dequeEmpty(i)
          ? Math.max(
              held[this.#past[i]! - 1]!.stamp + this.#options.lowerBound[i]!,
              this.#pivotTime,
            )
          : this.#front(i),
      );
      let vs = 0;
      let ve = 0;
      for (let i = 1; i < n; i++) {
        if (times[i]! < times[vs]!) {
          vs = i;
        }
        if (times[i]! >= times[ve]!) {
          ve = i;
        }
      }
      if (this.#grown(times[ve]!) >= this.#pivotTime - this.#candStart) {
        this.#publish();
        return;
      }
      if (this.#grown(times[ve]!) < times[vs]! - this.#candStart) {
        moves.forEach((m, i) => {
          this.#past[i]! -= m;
        });
        return;
      }
      this.#past[vs]!++;
      moves[vs]!++;
    }
  }

  #publish(): void {
    const items = this.#held.map((held) => held.shift()!.item);
    this.#past.fill(0);
    this.#pivot = -1;
    this.events.push({ kind: "emit", items });
  }

  #drop(i: number, reason: string): void {
    const gone = this.#held[i]!.shift()!;
    this.events.push({ kind: "drop", slot: i, stamp: gone.stamp, item: gone.item, reason });
  }
}
