import type { Immutable, MessageEvent, PanelExtensionContext, SubscribeMessageRangeArgs, Time } from "@foxglove/extension";

import { toEngineInput } from "./engineInput";
import type { EngineInput } from "./engineTypes";
import { recordingProgress } from "./recordingProgress";
import { compareRosTimes } from "../../time";

type RangeSubscribe = (args: SubscribeMessageRangeArgs) => () => void;

/**
 * The host's whole-range subscription, feature-detected under its three names: Foxglove's
 * `subscribeMessageRange`, the deprecated `UNSTABLE_subscribeMessageRange`, and Lichtblick's
 * `unstable_subscribeMessageRange`. Undefined when the data source has none (live sources).
 */
export function findRangeSubscribe(ctx: PanelExtensionContext): RangeSubscribe | undefined {
  const c = ctx as PanelExtensionContext & { unstable_subscribeMessageRange?: RangeSubscribe };
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- older Foxglove hosts only have this name
  const fn = c.subscribeMessageRange ?? c.UNSTABLE_subscribeMessageRange ?? c.unstable_subscribeMessageRange;
  return fn?.bind(ctx);
}

/** Messages per merged batch. */
export const MERGE_BATCH = 2_000;

/**
 * Merges per-topic batch iterators (each in log-time order) into one stream in receive-time
 * order (to the nanosecond, `compareRosTimes`); ties keep the order of `iterators`. Holds at most
 * one host batch per topic plus one output batch (bounded memory).
 */
export async function* mergeByReceiveTime(
  iterators: readonly AsyncIterable<Immutable<MessageEvent[]>>[],
): AsyncGenerator<Immutable<MessageEvent>[]> {
  const its = iterators.map((it) => it[Symbol.asyncIterator]());
  const bufs: (readonly Immutable<MessageEvent>[] | undefined)[] = its.map(() => undefined);
  const pos = its.map(() => 0);
  const refill = async (i: number): Promise<void> => {
    for (;;) {
      const r = await its[i]!.next();
      if (r.done === true) {
        bufs[i] = undefined;
        return;
      }
      if (r.value.length > 0) {
        bufs[i] = r.value;
        pos[i] = 0;
        return;
      }
    }
  };
  await Promise.all(its.map(async (_, i) => { await refill(i); }));
  let out: Immutable<MessageEvent>[] = [];
  for (;;) {
    let best = -1;
    let bestT: Time | undefined;
    for (let i = 0; i < its.length; i++) {
      const b = bufs[i];
      if (b) {
        const t = b[pos[i]!]!.receiveTime;
        if (bestT == undefined || compareRosTimes(t, bestT) < 0) {
          bestT = t;
          best = i;
        }
      }
    }
    if (best < 0) {
      break;
    }
    out.push(bufs[best]![pos[best]!]!);
    pos[best]!++;
    if (pos[best]! >= bufs[best]!.length) {
      await refill(best);
    }
    if (out.length >= MERGE_BATCH) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) {
    yield out;
  }
}

/** Options of `analyzeRange`. */
export interface RangeAnalysisOptions {
  /** Recording start and end (for progress), from the render state. */
  readonly start?: Time;
  readonly end?: Time;
  /** Called with progress in [0, 1] and messages read so far. */
  readonly onProgress: (fraction: number, messages: number) => void;
  /** Aborting stops reading and unsubscribes. */
  readonly signal: AbortSignal;
}

/**
 * Reads every message of `topics` through the host's range subscription, merged into receive-time
 * order, and hands them to `ingest` batch by batch (waiting for each, so memory stays bounded).
 * Resolves with the number of messages read; stops early (resolving) when aborted.
 */
export async function analyzeRange(
  subscribe: RangeSubscribe,
  topics: readonly string[],
  ingest: (events: EngineInput[]) => Promise<void>,
  options: RangeAnalysisOptions,
): Promise<number> {
  const unsubscribes: (() => void)[] = [];
  const releases: (() => void)[] = [];
  const iterators = await Promise.all(
    topics.map(
      async (topic) =>
        await new Promise<AsyncIterable<Immutable<MessageEvent[]>>>((resolve) => {
          let first = true;
          unsubscribes.push(
            subscribe({
              topic,
              onNewRangeIterator: async (it) => {
                if (!first) {
                  return; // a data change mid-analysis: the user re-runs the analysis
                }
                first = false;
                resolve(it);
                // Keep the host's iterator alive until the analysis is done with it.
                await new Promise<void>((release) => releases.push(release));
              },
            }),
          );
        }),
    ),
  );
  let seq = 0;
  try {
    for await (const batch of mergeByReceiveTime(iterators)) {
      if (options.signal.aborted) {
        break;
      }
      const events: EngineInput[] = batch.map((m) => toEngineInput(seq++, m));
      await ingest(events);
      const last = batch[batch.length - 1]!;
      options.onProgress(recordingProgress(last.receiveTime, options.start, options.end), seq);
    }
  } finally {
    for (const release of releases) {
      release();
    }
    for (const unsubscribe of unsubscribes) {
      unsubscribe();
    }
  }
  return seq;
}
