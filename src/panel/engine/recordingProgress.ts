import type { Time } from "@foxglove/extension";

import { nsBetween } from "../../time";

/**
 * How far through the recording a receive time lies, in [0, 1]: 0 before the start, 1 at or after
 * the end, and 0 while the range is unknown or empty. Distances are exact (`nsBetween`), so a
 * progress bar over a short recording of epoch times moves in steps of nanoseconds, not of 256 ns.
 */
export function recordingProgress(receive: Time | undefined, start: Time | undefined, end: Time | undefined): number {
  if (receive == undefined || start == undefined || end == undefined) {
    return 0;
  }
  const span = nsBetween(start, end);
  return span > 0 ? Math.min(1, Math.max(0, nsBetween(start, receive) / span)) : 0;
}
