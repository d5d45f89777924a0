import { lowerBound } from "../../time";
import type { Spread } from "../PipelineStats";
import type { StampTrace } from "./StampTrace";
import { exactSpread, rank } from "./spread";

/** What the stamps and receive times of one input show (every figure counted on the trace). */
export interface TopicFacts {
  readonly slot: number;
  readonly topic: string;
  /** Events on the slot. */
  readonly messages: number;
  /** Messages without a header stamp. */
  readonly headerless: number;
  /** Messages whose header stamp is 0 (unset). */
  readonly zeroStamps: number;
  /**
   * Messages whose header stamp the pipeline could not place on its time base: not a time (nsec
   * out of range), or more than 52 days from the first stamps, so on another clock (sim time
   * against wall time, say).
   */
  readonly offClockStamps: number;
  /** Messages whose bytes did not decode. */
  readonly undecodable: number;
  /** Messages per second of stamp time (count − 1 over first-to-last stamp); null below 2 stamps. */
  readonly rateHz: number | null;
  /** Forward gaps between consecutive stamps (ns). */
  readonly period: Spread | null;
  /** p95 − p5 of those gaps (ns): how irregular the stamps are. */
  readonly jitter: number | null;
  /** Receive time − stamp (ns); negative = a stamp in the future of its receive time. */
  readonly latency: Spread | null;
  /** Messages stamped later than they were received (a clock offset between machines). */
  readonly futureStamps: number;
  /** Stamps older than the one before them on the same slot. */
  readonly backwardSteps: number;
  /** Consecutive messages on this slot that share a receive time (delivered in a burst). */
  readonly receiveTies: number;
  /** Largest run of messages on this slot with one receive time. */
  readonly largestBurst: number;
  /**
   * For each stamp of the slot with the fewest messages (every set needs one of them), the
   * distance (ns) to this slot's nearest stamp: the timespan a set with it needs at least. Null
   * for that slot itself or without stamps.
   */
  readonly offsetToSparsest: Spread | null;
}

/** Per-slot facts of a trace, and which slots stand out. */
export interface TraceFacts {
  readonly topics: readonly TopicFacts[];
  /** Slot with the fewest stamped messages (it bounds the number of sets). */
  readonly sparsestSlot: number;
  /** Slot with the shortest median period. */
  readonly fastestSlot: number;
  /** Slot with the largest worst-case latency. */
  readonly latestSlot: number;
  /** Stamps present on every slot (what an exact-time policy can match). */
  readonly commonStamps: number;
}

/** Computes the facts of every slot of a trace (exact: sorts the per-slot series). */
export function traceFacts(trace: StampTrace): TraceFacts {
  const slots = trace.slots;
  const stamps: number[][] = Array.from({ length: slots }, () => []);
  const latencies: number[][] = Array.from({ length: slots }, () => []);
  const headerless = new Array<number>(slots).fill(0);
  const zero = new Array<number>(slots).fill(0);
  const offClock = new Array<number>(slots).fill(0);
  const undecodable = new Array<number>(slots).fill(0);
  const ties = new Array<number>(slots).fill(0);
  const bursts = new Array<number>(slots).fill(0);
  const run = new Array<number>(slots).fill(0);
  const lastArrival = new Array<number>(slots).fill(NaN);
  const counts = new Array<number>(slots).fill(0);
  for (let i = 0; i < trace.length; i++) {
    const slot = trace.slot(i);
    counts[slot]!++;
    const a = trace.arrival(i);
    if (a === lastArrival[slot]) {
      ties[slot]!++;
      run[slot]!++;
    } else {
      run[slot] = 1;
    }
    bursts[slot] = Math.max(bursts[slot]!, run[slot]!);
    lastArrival[slot] = a;
    const kind = trace.kind(i);
    if (kind === "zero-stamp" || kind === "invalid-stamp" || kind === "undecodable") {
      (kind === "zero-stamp" ? zero : kind === "invalid-stamp" ? offClock : undecodable)[slot]!++;
      continue;
    }
    const s = trace.stamp(i);
    if (s !== s) {
      headerless[slot]!++;
      continue;
    }
    stamps[slot]!.push(s);
    if (a === a) {
      latencies[slot]!.push(a - s);
    }
  }
  let sparsestSlot = 0;
  for (let s = 1; s < slots; s++) {
    if (stamps[s]!.length < stamps[sparsestSlot]!.length) {
      sparsestSlot = s;
    }
  }
  const sparse = Float64Array.from(stamps[sparsestSlot]!).sort();
  const topics: TopicFacts[] = [];
  for (let slot = 0; slot < slots; slot++) {
    const st = stamps[slot]!;
    let backward = 0;
    const gaps: number[] = [];
    for (let k = 1; k < st.length; k++) {
      const d = st[k]! - st[k - 1]!;
      if (d < 0) {
        backward++;
      } else if (d > 0) {
        gaps.push(d);
      }
    }
    const sortedGaps = Float64Array.from(gaps).sort();
    const lat = latencies[slot]!;
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of st) {
      lo = Math.min(lo, s);
      hi = Math.max(hi, s);
    }
    const offsets: number[] = [];
    if (slot !== sparsestSlot && st.length > 0) {
      const own = Float64Array.from(st).sort();
      for (const s of sparse) {
        offsets.push(nearestDistance(own, s));
      }
    }
    topics.push({
      slot,
      topic: trace.topics[slot]!,
      messages: counts[slot]!,
      headerless: headerless[slot]!,
      zeroStamps: zero[slot]!,
      offClockStamps: offClock[slot]!,
      undecodable: undecodable[slot]!,
      rateHz: st.length >= 2 && hi > lo ? ((st.length - 1) * 1e9) / (hi - lo) : null,
      period: exactSpread(sortedGaps),
      jitter: sortedGaps.length > 0 ? rank(sortedGaps, 0.95) - rank(sortedGaps, 0.05) : null,
      latency: exactSpread(lat),
      futureStamps: lat.filter((l) => l < 0).length,
      backwardSteps: backward,
      receiveTies: ties[slot]!,
      largestBurst: bursts[slot]!,
      offsetToSparsest: exactSpread(offsets),
    });
  }
  const byPeriod = (t: TopicFacts): number => t.period?.median ?? Infinity;
  const byLatency = (t: TopicFacts): number => t.latency?.max ?? -Infinity;
  let fastestSlot = 0;
  let latestSlot = 0;
  for (const t of topics) {
    if (byPeriod(t) < byPeriod(topics[fastestSlot]!)) {
      fastestSlot = t.slot;
    }
    if (byLatency(t) > byLatency(topics[latestSlot]!)) {
      latestSlot = t.slot;
    }
  }
  return { topics, sparsestSlot, fastestSlot, latestSlot, commonStamps: commonStamps(stamps) };
}

/** Distance from `x` to the nearest value of an ascending array. */
function nearestDistance(sorted: Float64Array, x: number): number {
  const lo = lowerBound(sorted, x);
  let best = Infinity;
  if (lo < sorted.length) {
    best = sorted[lo]! - x;
  }
  if (lo > 0) {
    best = Math.min(best, x - sorted[lo - 1]!);
  }
  return best;
}

function commonStamps(stamps: number[][]): number {
  if (stamps.length === 0) {
    return 0;
  }
  let common = new Set(stamps[0]);
  for (let s = 1; s < stamps.length; s++) {
    const next = new Set<number>();
    for (const x of stamps[s]!) {
      if (common.has(x)) {
        next.add(x);
      }
    }
    common = next;
  }
  return common.size;
}
