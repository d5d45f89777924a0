// Test support for ros/latest-time (not re-exported): ROS's algorithm as a plain model.

/** A rate estimator's configuration (ROS's defaults: 0.9, 0.3, 10). */
export interface LatestTimeModelRate {
  readonly alphaRate: number;
  readonly alphaError: number;
  readonly margin: number;
}

/** What the model reports, in order: an emitted set or a message replaced before it was emitted. */
export type LatestTimeModelEvent<T> =
  { kind: "emit"; items: T[] } | { kind: "drop"; slot: number; item: T; reason: "superseded" };

interface Estimator {
  readonly config: LatestTimeModelRate;
  prev: number;
  hz: number;
  error: number;
  hzInit: boolean;
  errorInit: boolean;
}

/**
 * ROS 2 LatestTime (reference ros-message-filters.md §2.3) written out as the reference describes
 * it: estimators appended in order of first arrival (or, with `fixFirstArrivalOrder`, kept per
 * slot) and looked up by slot index; the pivot found by sorting the estimators by rate (a stable
 * sort, fastest first) and walking them in that order. Arrival times in ns, periods in seconds.
 * Slow on purpose; the policy must reproduce it event for event.
 */
export class LatestTimeModel<T> {
  readonly #latest: (T | undefined)[];
  readonly #emitted: boolean[];
  readonly #estimators: (Estimator | undefined)[] = [];
  readonly #configs: readonly LatestTimeModelRate[];
  readonly #fixOrder: boolean;
  /** Every event so far. */
  public readonly events: LatestTimeModelEvent<T>[] = [];

  public constructor(
    configs: readonly LatestTimeModelRate[],
    { fixFirstArrivalOrder }: { fixFirstArrivalOrder: boolean },
  ) {
    this.#configs = configs;
    this.#latest = new Array<T | undefined>(configs.length).fill(undefined);
    this.#emitted = new Array<boolean>(configs.length).fill(false);
    this.#fixOrder = fixFirstArrivalOrder;
  }

  /** A message on `slot` arriving at `now` (ns). */
  public add(slot: number, now: number, item: T): void {
    const old = this.#latest[slot];
    this.#latest[slot] = item;
    const wasEmitted = this.#emitted[slot]!;
    this.#emitted[slot] = false;
    if (old == undefined) {
      const estimator: Estimator = {
        config: this.#configs[slot]!,
        prev: now,
        hz: 0,
        error: 0,
        hzInit: true,
        errorInit: true,
      };
      if (this.#fixOrder) {
        this.#estimators[slot] = estimator;
      } else {
        this.#estimators.push(estimator);
      }
      return;
    }
    if (!wasEmitted) {
      this.events.push({ kind: "drop", slot, item: old, reason: "superseded" });
    }
    const own = this.#estimators[slot];
    if (own == undefined || !computeHz(own, now)) {
      return;
    }
    if (this.#pivot(now) === slot && this.#latest.every((m) => m != undefined)) {
      this.#emitted.fill(true);
      this.events.push({ kind: "emit", items: this.#latest.map((m) => m) });
    }
  }

  #pivot(now: number): number {
    const indexed = this.#estimators
      .map((e, k) => ({ e, k }))
      .filter((x): x is { e: Estimator; k: number } => x.e != undefined);
    // Array.prototype.sort is stable: equal rates keep their index order.
    indexed.sort((a, b) => b.e.hz - a.e.hz);
    for (const { e, k } of indexed) {
      const period = (now - e.prev) / 1e9;
      if (period === 0) {
        if (e.hz > 0) {
          return k;
        }
        continue;
      }
      const late = !e.errorInit && e.hz - 1 / period > e.config.margin * e.error;
      if (!late && e.hz > 0) {
        return k;
      }
    }
    return -1;
  }
}

function computeHz(e: Estimator, now: number): boolean {
  const period = (now - e.prev) / 1e9;
  if (!(period > 0)) {
    return false;
  }
  for (;;) {
    if (e.hzInit) {
      e.hz = 1 / period;
      e.hzInit = false;
      break;
    }
    if (e.errorInit) {
      e.error = Math.abs(e.hz - 1 / period);
      e.errorInit = false;
    } else {
      if (Math.abs(e.hz - 1 / period) > e.config.margin * e.error) {
        // A step change: start the estimate again from this period.
        e.hzInit = true;
        e.errorInit = true;
        continue;
      }
      e.error =
        e.config.alphaError * Math.abs(e.hz - 1 / period) + (1 - e.config.alphaError) * e.error;
    }
    e.hz = e.config.alphaRate / period + (1 - e.config.alphaRate) * e.hz;
    break;
  }
  e.prev = now;
  return true;
}
