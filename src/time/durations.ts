import { parseNanoseconds, StampRangeError, type Duration } from "./TimeBase";
import { previewValue } from "./previewValue";

const UNIT_NS: Record<string, bigint> = { ns: 1n, us: 1_000n, ms: 1_000_000n, s: 1_000_000_000n };
const DURATION_RE = /^(-?)(\d+)(?:\.(\d+))?\s*(ns|us|ms|s)$/;

/**
 * Parses a duration as DESIGN §3.1 allows: a string with a unit (`"250ns"`, `"40us"`, `"33ms"`,
 * `"1.5s"`), or integer nanoseconds as a number or decimal string. Exact (no float rounding):
 * `"0.1s"` is 100000000 ns. Throws StampRangeError naming `what` when the value is malformed, not
 * a whole number of nanoseconds, negative (unless `options.allowNegative`), or above 2^53 ns.
 */
export function parseDuration(
  value: unknown,
  what = "duration",
  options: { allowNegative?: boolean } = {},
): Duration {
  let ns: bigint;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) {
      throw new StampRangeError(`${what}: ${value} is not an integer number of nanoseconds`);
    }
    ns = BigInt(value);
  } else if (typeof value === "string") {
    const m = DURATION_RE.exec(value.trim());
    if (m) {
      const [, sign, whole, frac = "", unit] = m;
      const scale = UNIT_NS[unit!]!;
      const fracDigits = frac.length;
      const fracNs = fracDigits === 0 ? 0n : (BigInt(frac) * scale) / 10n ** BigInt(fracDigits);
      if (fracDigits > 0 && (BigInt(frac) * scale) % 10n ** BigInt(fracDigits) !== 0n) {
        throw new StampRangeError(`${what}: "${value}" is not a whole number of nanoseconds`);
      }
      ns = (BigInt(whole!) * scale + fracNs) * (sign === "-" ? -1n : 1n);
    } else {
      try {
        ns = parseNanoseconds(value.trim());
      } catch {
        throw new StampRangeError(
          `${what}: "${value}" is not a duration (use a unit: "250ns", "40us", "33ms", "1.5s", or integer nanoseconds)`,
        );
      }
    }
  } else {
    throw new StampRangeError(
      `${what}: expected a duration string such as "33ms" or integer nanoseconds, got ${previewValue(value)}`,
    );
  }
  if (ns < 0n && options.allowNegative !== true) {
    throw new StampRangeError(`${what}: ${value} is negative; a duration here must be >= 0`);
  }
  if (ns > BigInt(Number.MAX_SAFE_INTEGER) || ns < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new StampRangeError(`${what}: ${value} is longer than 2^53 ns (104 days)`);
  }
  return Number(ns);
}

/** Formats integer nanoseconds with the largest unit that keeps it exact ("33ms", "1500us"). */
export function formatDuration(ns: Duration): string {
  if (ns !== 0) {
    for (const [unit, scale] of [
      ["s", 1e9],
      ["ms", 1e6],
      ["us", 1e3],
    ] as const) {
      if (ns % scale === 0) {
        return `${ns / scale}${unit}`;
      }
    }
  }
  return `${ns}ns`;
}

/**
 * Duration × double truncated toward zero to whole nanoseconds, as ROS's `Duration * double`
 * does (used for ROS ApproximateTime's age penalty).
 */
export function scaleDuration(ns: Duration, factor: number): Duration {
  return Math.trunc(ns * factor);
}
