import type { Stamp, TimeBase } from "../time";
import { Reservoir } from "./Reservoir";
import type { PipelineConfig } from "./config";
import type { DropReason } from "../time/DropReason";

/** Running statistics of one topic (bounded memory: counters plus two reservoirs). */
export class TopicStats {
  public readonly topic: string;
  /** Messages seen on the topic. */
  public messages = 0;
  /** Messages with a usable header stamp. */
  public stamped = 0;
  public firstArrival: Stamp = NaN;
  public lastArrival: Stamp = NaN;
  public lastStamp: Stamp = NaN;
  /** Consecutive header stamps that went backwards. */
  public backwardSteps = 0;
  /** Gaps between consecutive header stamps (ns; negative for backward steps). */
  public readonly periods: Reservoir;
  /** Receive time minus header stamp (ns). */
  public readonly latencies: Reservoir;
  public readonly drops = new Map<DropReason, number>();

  public constructor(topic: string, sampleSize: number) {
    this.topic = topic;
    this.periods = new Reservoir(sampleSize);
    this.latencies = new Reservoir(sampleSize);
  }

  /** Record one message (arrival may be NaN before the time base exists). */
  public addMessage(arrival: Stamp): void {
    this.messages++;
    if (arrival === arrival) {
      if (this.firstArrival !== this.firstArrival) {
        this.firstArrival = arrival;
      }
      this.lastArrival = arrival;
    }
  }

  /** Record the header stamp of the last message added. */
  public addStamp(stamp: Stamp, arrival: Stamp): void {
    this.stamped++;
    if (this.lastStamp === this.lastStamp) {
      const dt = stamp - this.lastStamp;
      this.periods.add(dt);
      if (dt < 0) {
        this.backwardSteps++;
      }
    }
    this.lastStamp = stamp;
    this.latencies.add(arrival - stamp);
  }

  public addDrop(reason: DropReason): void {
    this.drops.set(reason, (this.drops.get(reason) ?? 0) + 1);
  }

  /** Messages per second over the receive-time span; NaN with fewer than two messages. */
  public get rate(): number {
    const span = this.lastArrival - this.firstArrival;
    return this.messages > 1 && span > 0 ? ((this.messages - 1) * 1e9) / span : NaN;
  }

  /** Median gap between consecutive header stamps (ns), counting only forward steps. */
  public get medianPeriod(): number {
    return this.periods.median;
  }
}

/** {min, median, p95, max} of a reservoir (ns), or undefined when it is empty. */
export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly p95: number;
  readonly max: number;
}

/** The four-number summary of a reservoir; undefined when empty. */
export function spreadOf(r: Reservoir): Spread | undefined {
  return r.count === 0
    ? undefined
    : { min: r.min, median: r.median, p95: r.quantile(0.95), max: r.max };
}

/** One example of a drop, for the summary. */
export interface DropExample {
  readonly topic: string;
  readonly slot: number;
  /** Absolute stamp as a decimal ns string, or null when there was none. */
  readonly stamp: string | null;
  readonly detail: string | undefined;
}

/**
 * Tuning hints computed from the data:
 * - `minDistance[slot]`: half the median header-stamp period of the slot's topic (fkie's
 *   `set_min_distance` rule of thumb that removes the one-period lag, reference §4 issue #2);
 * - `maxTimespan`: the 99th percentile of the emitted sets' timespans (a max timespan that keeps
 *   99 % of the sets);
 * - `queueSize[slot]`: messages of the slot that arrive during the largest observed output lag,
 *   plus one: ceil(maxLag / medianPeriod) + 1; `maxQueueSize` is the largest of them.
 * Durations in ns; undefined where the data does not tell (too few messages or sets).
 */
export interface TuningHints {
  readonly minDistance: readonly (number | undefined)[];
  readonly maxTimespan: number | undefined;
  readonly queueSize: readonly (number | undefined)[];
  readonly maxQueueSize: number | undefined;
}

/**
 * All statistics of a pipeline, updated as messages flow: per topic (counts, rate, stamp periods,
 * latency), per tuple (count, timespan, lag), drops by reason with a few examples, and the
 * per-slot accounting. Memory: counters plus fixed-size reservoirs (`Reservoir`, Algorithm R).
 */
export class PipelineStats {
  public timeBase: TimeBase | undefined;
  public readonly topics = new Map<string, TopicStats>();
  public tuples = 0;
  /** Set timespans (ns). */
  public readonly timespans: Reservoir;
  /** Output lag behind the newest input stamp at emission (ns). */
  public readonly lags: Reservoir;
  public readonly drops = new Map<DropReason, number>();
  public readonly dropExamples = new Map<DropReason, DropExample[]>();
  /** Per slot: messages handed to the combiner, used in sets, dropped by the policy. */
  public readonly accepted: number[];
  public readonly used: number[];
  public readonly policyDropped: number[];
  readonly #sampleSize: number;
  readonly #examples: number;
  readonly #slotTopics: readonly string[];

  public constructor(config: PipelineConfig, sampleSize: number, examples: number) {
    this.#sampleSize = sampleSize;
    this.#examples = examples;
    this.timespans = new Reservoir(sampleSize);
    this.lags = new Reservoir(sampleSize);
    this.#slotTopics = (config.inputs ?? []).map((i) => i.topic);
    for (const topic of this.#slotTopics) {
      this.topic(topic);
    }
    this.accepted = new Array<number>(config.slots).fill(0);
    this.used = new Array<number>(config.slots).fill(0);
    this.policyDropped = new Array<number>(config.slots).fill(0);
  }

  /** The stats of a topic (created on first use). */
  public topic(topic: string): TopicStats {
    let t = this.topics.get(topic);
    if (!t) {
      t = new TopicStats(topic, this.#sampleSize);
      this.topics.set(topic, t);
    }
    return t;
  }

  public addTuple(tuple: {
    items: readonly { slot: number }[];
    timespan: number;
    lag: number;
  }): void {
    this.tuples++;
    this.timespans.add(tuple.timespan);
    this.lags.add(tuple.lag);
    for (const item of tuple.items) {
      this.used[item.slot]!++;
    }
  }

  /** Count one drop (kept as an example while its reason has fewer than the limit). */
  public addDrop(
    topic: string,
    slot: number,
    stamp: Stamp,
    reason: DropReason,
    detail: string | undefined,
  ): void {
    this.drops.set(reason, (this.drops.get(reason) ?? 0) + 1);
    this.topic(topic).addDrop(reason);
    let list = this.dropExamples.get(reason);
    if (!list) {
      list = [];
      this.dropExamples.set(reason, list);
    }
    if (list.length < this.#examples) {
      list.push({
        topic,
        slot,
        stamp: stamp === stamp && this.timeBase ? this.timeBase.format(stamp) : null,
        detail,
      });
    }
  }

  /** Per slot: messages the policy still held at the end (accepted − used − dropped, ≥ 0). */
  public get heldAtEnd(): number[] {
    return this.accepted.map((a, i) => Math.max(0, a - this.used[i]! - this.policyDropped[i]!));
  }

  /** Tuning hints (see TuningHints). */
  public hints(): TuningHints {
    const periods = this.#slotTopics.map((t) => {
      const p = this.topics.get(t)?.periods;
      return p && p.count > 0 ? p.median : undefined;
    });
    const minDistance = periods.map((p) =>
      p != undefined && p > 0 ? Math.floor(p / 2) : undefined,
    );
    const maxTimespan = this.timespans.count > 0 ? this.timespans.quantile(0.99) : undefined;
    const maxLag = this.lags.count > 0 ? Math.max(0, this.lags.max) : undefined;
    const queueSize = periods.map((p) =>
      p != undefined && p > 0 && maxLag != undefined ? Math.ceil(maxLag / p) + 1 : undefined,
    );
    const known = queueSize.filter((q): q is number => q != undefined);
    return {
      minDistance,
      maxTimespan,
      queueSize,
      maxQueueSize: known.length > 0 ? Math.max(...known) : undefined,
    };
  }
}
