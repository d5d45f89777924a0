/** Milliseconds with 1 decimal ("12.3 ms") from ns. */
export function fmtMs(ns: number | undefined): string {
  return ns == undefined || Number.isNaN(ns) ? "–" : `${(ns / 1e6).toFixed(1)} ms`;
}

/** A relative stamp shown as seconds since the time base with ms precision ("1716319898.123"). */
export function fmtStamp(stamp: number, baseSec: number | undefined): string {
  if (Number.isNaN(stamp)) {
    return "(none)";
  }
  const sec = Math.floor(stamp / 1e9);
  const frac = String(Math.round(stamp - sec * 1e9)).padStart(9, "0");
  return `${(baseSec ?? 0) + sec}.${frac}`;
}
