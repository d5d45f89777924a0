import type { Immutable, MessageEvent, Time } from "@foxglove/extension";

/** How much of the recording the host's allFrames holds for the inputs (see `preloadCoverage`). */
export interface PreloadCoverage {
  /** Every input has messages reaching the end of the recording: the analysis may finish now. */
  readonly complete: boolean;
  /** Inputs without a single message in allFrames (never loaded, or not yet). */
  readonly missing: readonly string[];
}

const ns = (t: Time): number => t.sec * 1e9 + t.nsec;

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
  const seen = new Map<string, { first: number; last: number; count: number }>();
  const wanted = new Set(topics);
  for (const m of frames) {
    if (!wanted.has(m.topic)) {
      continue;
    }
    const t = ns(m.receiveTime);
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
  if (missing.length > 0 || !start || !end || ns(end) <= ns(start)) {
    return { complete: false, missing };
  }
  const endNs = ns(end);
  // An input with one message so far has no period to judge by (the host's first block holds one
  // of each): not complete; if it really has one message, allFrames stops growing and the
  // caller's wait ends the analysis.
  // And the inputs together reach the end itself, as before any input was judged alone: a few
  // periods are a second or more on a slow topic, which a block still loading can lack.
  const latest = Math.max(...[...seen.values()].map((s) => s.last));
  const reachesEnd = latest >= ns(start) + 0.999 * (endNs - ns(start));
  const complete = reachesEnd && [...seen.values()].every((s) => s.count > 1 && endNs - s.last <= (END_PERIODS * (s.last - s.first)) / (s.count - 1));
  return { complete, missing };
}
