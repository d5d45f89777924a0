import type { Time } from "@foxglove/extension";

import { nsBetween, TimeBase } from "../../time";

/**
 * The absolute time of a relative stamp (ns on the time base `baseSec`), rounded to the
 * nanosecond: a stamp read off a chart can lie between two. `nsec` is in [0, 1e9).
 */
export function absoluteTime(stamp: number, baseSec: number | undefined): Time {
  return new TimeBase(baseSec ?? 0).toSecNsec(Math.round(stamp));
}

/** The relative stamp (ns on the time base `baseSec`) of an absolute time; exact within 104 days of the base. */
export function relativeStamp(time: Time, baseSec: number): number {
  return nsBetween({ sec: baseSec, nsec: 0 }, time);
}

/** Seconds from the recording's start to a relative stamp (negative before it). */
export function secondsAfterStart(stamp: number, baseSec: number, start: Time): number {
  return (stamp - relativeStamp(start, baseSec)) / 1e9;
}

/** Seconds of a relative stamp after the recording's start, "+12.345 s" (ms precision). */
export function relativeSeconds(stamp: number, baseSec: number, start: Time): string {
  const s = secondsAfterStart(stamp, baseSec, start);
  return `${s >= 0 ? "+" : "−"}${Math.abs(s).toFixed(3)} s`;
}

/** Time-of-day formatters by timezone ("" = the browser's): building one costs more than formatting. */
const todFormats = new Map<string, Intl.DateTimeFormat>();

function todFormat(timezone: string | undefined): Intl.DateTimeFormat {
  const key = timezone ?? "";
  let f = todFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", {
      timeZone: key !== "" ? key : undefined,
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hour12: false,
    });
    todFormats.set(key, f);
  }
  return f;
}

/**
 * A relative stamp (ns on the time base `baseSec`) in the app's time format: "TOD" = time of day
 * in the app's timezone with ms ("19:11:38.124"), otherwise absolute seconds with ms
 * ("1432235498.124"). "(none)" for NaN.
 */
export function formatStampAs(stamp: number, baseSec: number | undefined, timeFormat: string | undefined, timezone: string | undefined): string {
  if (Number.isNaN(stamp)) {
    return "(none)";
  }
  const { sec, nsec } = absoluteTime(stamp, baseSec);
  const ms = Math.floor(nsec / 1e6);
  if (timeFormat === "TOD" && baseSec != undefined) {
    let tod: string;
    try {
      tod = todFormat(timezone).format(new Date(sec * 1000));
    } catch {
      tod = new Date(sec * 1000).toISOString().slice(11, 19);
    }
    return `${tod}.${String(ms).padStart(3, "0")}`;
  }
  return `${sec}.${String(ms).padStart(3, "0")}`;
}

/** formatStampAs bound to the panel's current base and app settings, plus the relative seconds when the start is known. */
export function stampFormatter(
  baseSec: number | undefined,
  start: Time | undefined,
  timeFormat: string | undefined,
  timezone: string | undefined,
): (stamp: number) => string {
  return (stamp) => {
    const abs = formatStampAs(stamp, baseSec, timeFormat, timezone);
    return start && baseSec != undefined && !Number.isNaN(stamp) ? `${abs} (${relativeSeconds(stamp, baseSec, start)})` : abs;
  };
}
