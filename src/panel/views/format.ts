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
  const sec = Math.floor(stamp / 1e9);
  return secNsecText((baseSec ?? 0) + sec, Math.round(stamp - sec * 1e9));
}
