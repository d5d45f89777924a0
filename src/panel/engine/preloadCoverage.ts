import type { Immutable, MessageEvent, Time } from "@foxglove/extension";

import { nsBetween } from "../../time";

/** How much of the recording the host's allFrames holds for the inputs (see `preloadCoverage`). */
export interface PreloadCoverage {
  /** Every input has messages reaching the end of the recording: the analysis may finish now. */
  readonly complete: boolean;
  /** Inputs without a single message in allFrames (never loaded, or not yet). */
  readonly missing: readonly string[];
}

/** Periods an input's last message may lie before the end of the recording and still count as loaded to it. */
const END_PERIODS = 3;

/**
 * Which inputs the host's preloaded `allFrames` covers. The host keeps the blocks it loaded for an
 * earlier subscription, so right after the subscription is widened allFrames can reach the end of
 * the recording while holding nothing (or only the first blocks) of a newly added input: only
 * when each input's own last message lies within a few of its periods of the end is the read
 * surely complete. An input that really stops early is never `complete`: the caller then waits
 * for the host to stop loading. Guarantees: `complete` implies `missing` is empty; without a
 * known range nothing is complete.
 */
export function preloadCoverage(
  frames: readonly Immutable<MessageEvent>[],
  topics: readonly string[],
  range: { start: Time | undefined; end: Time | undefined },
): PreloadCoverage {
  const seen = new Map<string, { first: Time; last: Time; count: number }>();
  const wanted = new Set(topics);
  for (const m of frames) {
    if (!wanted.has(m.topic)) {
      continue;
    }
    const t = m.receiveTime;
    const s = seen.get(m.topic);
    if (s) {
      s.last = t;
      s.count++;
    } else {
      seen.set(m.topic, { first: t, last: t, count: 1 });
    }
  }
  const missing = topics.filter((t) => !seen.has(t));
  const { start, end } = range;
  if (missing.length > 0 || !start || !end || nsBetween(start, end) <= 0) {
    return { complete: false, missing };
  }
  // An input with one message so far has no period to judge by (the host's first block holds one
  // of each): not complete; if it really has one message, allFrames stops growing and the
  // caller's wait ends the analysis.
  // And the inputs together reach the end itself, as before any input was judged alone: a few
  // periods are a second or more on a slow topic, which a block still loading can lack.
  // Distances from the start and to the end, exact (`nsBetween`) where epoch nanoseconds are not.
  const span = nsBetween(start, end);
  const latest = Math.max(...[...seen.values()].map((s) => nsBetween(start, s.last)));
  const reachesEnd = latest >= 0.999 * span;
  const complete = reachesEnd && [...seen.values()].every((s) => s.count > 1 && nsBetween(s.last, end) <= (END_PERIODS * nsBetween(s.first, s.last)) / (s.count - 1));
  return { complete, missing };
}
