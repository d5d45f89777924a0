import { parseNanoseconds, StampRangeError } from "./TimeBase";
import { previewValue } from "./previewValue";

/** A ROS 1 time (`nsec`) or a ROS 2 time (`nanosec`). */
export type RosTime = { sec: number; nsec: number } | { sec: number; nanosec: number };

/**
 * Absolute nanoseconds of a stamp as DESIGN §3.1 writes it in JSON: a decimal string of integer
 * nanoseconds, or `{sec, nsec}` / `{sec, nanosec}`. Throws StampRangeError naming `what` and the
 * value when it is anything else (a float, a negative value, nsec out of [0, 1e9), both `nsec`
 * and `nanosec`, another key, …).
 */
export function parseStampJson(value: unknown, what = "stamp"): bigint {
  if (typeof value === "string") {
    try {
      const ns = parseNanoseconds(value);
      if (ns < 0n) {
        throw new StampRangeError("negative");
      }
      return ns;
    } catch {
      throw new StampRangeError(
        `${what}: ${previewValue(value)} is not a stamp (expected a decimal string of non-negative integer nanoseconds)`,
      );
    }
  }
  if (typeof value === "object" && value != undefined && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    // Two nanosecond fields, or a key of another shape (a ROS 1 `secs`, a header's `frame_id`),
    // say the object is not the time the writer meant: refused rather than half read.
    if ("nsec" in o && "nanosec" in o) {
      throw new StampRangeError(`${what}: ${previewValue(value)} has both "nsec" and "nanosec" (give one)`);
    }
    const extra = Object.keys(o).filter((k) => k !== "sec" && k !== "nsec" && k !== "nanosec");
    if (extra.length > 0) {
      throw new StampRangeError(
        `${what}: ${previewValue(value)} has ${extra.slice(0, 4).map((k) => previewValue(k)).join(", ")}${extra.length > 4 ? ", …" : ""}, which a ROS time does not have (expected {"sec": S, "nsec": N})`,
      );
    }
    const sec = o.sec;
    const nsec = "nsec" in o ? o.nsec : o.nanosec;
    if (isUint(sec) && isUint(nsec) && nsec < 1_000_000_000) {
      return BigInt(sec) * 1_000_000_000n + BigInt(nsec);
    }
    throw new StampRangeError(
      `${what}: ${previewValue(value)} is not a ROS time (expected {"sec": S, "nsec": N} with integers, 0 <= N < 1e9)`,
    );
  }
  throw new StampRangeError(
    `${what}: ${previewValue(value)} is not a stamp (use a decimal string of nanoseconds, e.g. "1700000000123456789", or {"sec", "nsec"})`,
  );
}

/** The nanoseconds part of a ROS 1 (`nsec`) or ROS 2 (`nanosec`) time (no validation; hot path). */
export function nsecOf(t: RosTime): number {
  return "nsec" in t ? t.nsec : t.nanosec;
}

function isUint(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}
