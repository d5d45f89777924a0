import type { StampTrace } from "./StampTrace";
import { exactSpread } from "./spread";
import { TimeBase } from "../../time";
import { DROP_REASONS, type DropReason } from "../../time/DropReason";
import type { Spread } from "../PipelineStats";
import { SyncGraph, type SyncItem } from "../SyncGraph";
import type { PolicyConfig } from "../config";

/** What one policy run over a stamp trace gave (see `runTrace`). */
export interface TraceRun {
  /** Sets emitted. */
  readonly tuples: number;
  /** Dropped events by reason (the pipeline's `zero-stamp` drops included). */
  readonly drops: Partial<Record<DropReason, number>>;
  /** max − min stamp of each set (exact spread, ns). */
  readonly timespan: Spread | null;
  /** Newest stamp seen at emission minus the set's newest stamp (exact spread, ns). */
  readonly lag: Spread | null;
  /** Events still held per slot at the end. */
  readonly held: readonly number[];
  /** With `record`: the fate of each event (see `EventFate`). */
  readonly fates?: Int32Array;
  /** With `record`: per set, the event index of its member on each slot (slots × tuples). */
  readonly members?: Int32Array;
  /** With `record`: per set, the event whose arrival emitted it. */
  readonly emittedAfter?: Int32Array;
  /** With `record`: per dropped event, the event whose arrival caused the drop (else -1). */
  readonly droppedAfter?: Int32Array;
  /** With `record`: the dropped events in the order the drops were reported (drops.jsonl's order). */
  readonly dropOrder?: Int32Array;
}

/**
 * Decodes a `TraceRun.fates` entry: ≥ 0 is the index of the set the event joined; -1 is held at
 * the end; ≤ -2 is a drop whose reason is `DROP_REASONS[-fate - 2]`.
 */
export function fateReason(fate: number): DropReason | undefined {
  return fate <= -2 ? DROP_REASONS[-fate - 2] : undefined;
}

/** Options of `runTrace`. */
export interface RunTraceOptions {
  /** Keep per-event fates and set members (for explanations and the timeline). Default false. */
  readonly record?: boolean;
  /** Events to leave out of the run (what-if runs), by index. */
  readonly skip?: (event: number) => boolean;
  /** Stamp to use instead of the recorded one (what-if runs); NaN keeps it headerless. */
  readonly stampOverride?: (event: number) => number | undefined;
}

/** One trace event as it travels through the SyncGraph. */
interface TraceItem extends SyncItem {
  /** Index of the event in the trace. */
  readonly event: number;
}

/**
 * Runs the real policy a config describes over a stamp trace, through the graph `lockstep replay`
 * and the Pipeline run (SyncGraph: passthru buffer → per-slot sources → Combiner(policy)), on the time base
 * replay would choose for the trace's replay lines, so the sets are exactly the ones replay (and
 * the pipeline) emit for these stamps. Throws ConfigError when the policy rejects the config.
 */
export function runTrace(policy: PolicyConfig, trace: StampTrace, options: RunTraceOptions = {}): TraceRun {
  const n = trace.length;
  const slots = trace.slots;
  const record = options.record === true;
  const skip = options.skip;
  const override = options.stampOverride;
  // replay's base: the whole second of the first event it reads.
  let first = -1;
  for (let i = 0; i < n && first < 0; i++) {
    if (!trace.droppedBeforePolicy(i) && !(skip?.(i) ?? false)) {
      first = i;
    }
  }
  let base = trace.base;
  let shift = 0;
  if (first >= 0) {
    const s = trace.stamp(first);
    const abs = BigInt(trace.base.format(s === s ? s : trace.arrival(first)));
    base = TimeBase.forFirstStamp(abs);
    shift = (trace.base.baseSec - base.baseSec) * 1e9;
  }
  const stampOf = (i: number): number => {
    const o = override?.(i);
    return (o ?? trace.stamp(i)) + shift;
  };

  const drops: Partial<Record<DropReason, number>> = {};
  const timespans: number[] = [];
  const lags: number[] = [];
  const held = new Array<number>(slots).fill(0);
  const fates = record ? new Int32Array(n).fill(-1) : undefined;
  const droppedAfter = record ? new Int32Array(n).fill(-1) : undefined;
  const members: number[] = [];
  const dropOrder: number[] = [];
  const emittedAfter: number[] = [];
  let newest = -Infinity;
  let current = -1;

  const graph = new SyncGraph<TraceItem>({ policy, slots }, base, {
    tuple: (items) => {
      let lo = Infinity;
      let hi = -Infinity;
      for (const item of items) {
        const s = item.stamp;
        if (s === s) {
          lo = Math.min(lo, s);
          hi = Math.max(hi, s);
        }
      }
      timespans.push(hi >= lo ? hi - lo : 0);
      lags.push(hi > -Infinity ? newest - hi : 0);
      for (const item of items) {
        held[item.slot]!--;
      }
      if (record) {
        const t = emittedAfter.length;
        for (const item of items) {
          fates![item.event] = t;
          members.push(item.event);
        }
        emittedAfter.push(current);
      }
    },
    drop: (_stage, slot, _stamp, item, reason) => {
      drops[reason] = (drops[reason] ?? 0) + 1;
      held[slot]!--;
      if (record) {
        fates![item.event] = -2 - DROP_REASONS.indexOf(reason);
        droppedAfter![item.event] = current;
        dropOrder.push(item.event);
      }
    },
  });

  for (let i = 0; i < n; i++) {
    if (skip?.(i) ?? false) {
      continue;
    }
    current = i;
    const kind = trace.kind(i);
    const s = stampOf(i);
    // The pipeline drops these before the policy (unless a stamp override gives them a stamp):
    // unset stamps, stamps off the time base, undecodable messages, and headerless messages that
    // came before any receive time could be placed on the time base.
    const early: DropReason | undefined =
      s === s ? undefined : kind !== "stamped" && kind !== "no-header" ? kind : trace.arrival(i) !== trace.arrival(i) ? "no-header" : undefined;
    if (early != undefined) {
      drops[early] = (drops[early] ?? 0) + 1;
      if (record) {
        fates![i] = -2 - DROP_REASONS.indexOf(early);
        droppedAfter![i] = i;
        dropOrder.push(i);
      }
      continue;
    }
    if (s > newest) {
      newest = s;
    }
    const slot = trace.slot(i);
    held[slot]!++;
    graph.push({ slot, stamp: s, arrival: trace.arrival(i) + shift, event: i });
  }
  return {
    tuples: timespans.length,
    drops,
    timespan: exactSpread(timespans),
    lag: exactSpread(lags),
    held,
    ...(record
      ? { fates, members: Int32Array.from(members), emittedAfter: Int32Array.from(emittedAfter), droppedAfter, dropOrder: Int32Array.from(dropOrder) }
      : {}),
  };
}
