import { absoluteTime } from "./timeFormat";
import { secNsecText } from "../../time";

/** Milliseconds with 1 decimal ("12.3 ms") from ns. */
export function fmtMs(ns: number | undefined): string {
  return ns == undefined || Number.isNaN(ns) ? "–" : `${(ns / 1e6).toFixed(1)} ms`;
}

/** A relative stamp as absolute seconds and nanoseconds ("1716319898.123456789", `secNsecText`). */
export function fmtStamp(stamp: number, baseSec: number | undefined): string {
  if (Number.isNaN(stamp)) {
    return "(none)";
  }
  const { sec, nsec } = absoluteTime(stamp, baseSec);
  return secNsecText(sec, nsec);
}
