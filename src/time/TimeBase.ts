/**
 * Lockstep's stamp representation.
 *
 * A `Stamp` is a JS `number` holding integer nanoseconds **relative to a TimeBase** (a whole
 * second chosen once per pipeline). A float64 holds every integer below 2^53 exactly, so a
 * relative stamp is exact as long as |stamp| < 2^52 ns (about 52 days on each side of the base,
 * a 104-day window); differences of two such stamps (< 2^53) are exact too. The hot path then
 * compares and subtracts plain numbers, with no `bigint` and no allocation.
 *
 * Absolute values (decimal strings, `{sec, nsec}`, `bigint`) exist only at the edges: reading a
 * header, parsing JSON, printing output.
 *
 * Stamps small enough to be exact on their own (below 2^52 ns, e.g. simulation time or test
 * traces starting at 0) get base 0, so that relative and absolute stamps coincide and the
 * libraries' "stamp 0 means unset" quirks keep their meaning. Epoch-scale stamps get the first
 * stamp's whole second as base; absolute 0 is then outside the window (`zero` is `-Infinity`).
 */

import { nanosecondsText } from "./secNsecText";

export type Stamp = number;

/** A duration in integer nanoseconds (a JS number; exact below 2^53 ns, about 104 days). */
export type Duration = number;

/** Largest |relative stamp| a TimeBase accepts: 2^52 ns, so that differences stay below 2^53. */
export const MAX_RELATIVE_NS = 2 ** 52;

const NS_PER_SEC = 1_000_000_000;
const NS_PER_SEC_BIG = 1_000_000_000n;

/** Thrown when a stamp is malformed or falls outside a TimeBase's exact window. */
export class StampRangeError extends RangeError {
  public constructor(message: string) {
    super(message);
    this.name = "StampRangeError";
  }
}

/**
 * Converts absolute stamps to exact relative `Stamp` numbers and back.
 *
 * Guarantees: every conversion is exact or throws `StampRangeError` (never a silent rounding);
 * `format(fromString(s)) === s` for every canonical decimal string in the window.
 *
 * ```ts
 * const base = TimeBase.forFirstStamp(1_700_000_000n * 1_000_000_000n);
 * const a = base.fromSecNsec(1_700_000_000, 5); // 5
 * base.format(a); // "1700000000000000005"
 * ```
 */
export class TimeBase {
  /** The base, in whole seconds since the epoch (0 for small stamps). */
  public readonly baseSec: number = 0;
  /** `baseSec` as nanoseconds, as a bigint (for output). */
  readonly #baseNs: bigint;
  /**
   * The relative stamp of absolute time 0: `0` when `baseSec` is 0, `-baseSec * 1e9` when that is
   * exact and inside the window, `-Infinity` otherwise (no valid stamp can then equal it).
   */
  public readonly zero: Stamp;

  public constructor(baseSec: number) {
    if (!Number.isSafeInteger(baseSec) || baseSec < 0) {
      throw new StampRangeError(`time base must be a non-negative whole second, got ${baseSec}`);
    }
    this.baseSec = baseSec;
    this.#baseNs = BigInt(baseSec) * NS_PER_SEC_BIG;
    const z = -baseSec * NS_PER_SEC;
    this.zero = baseSec === 0 ? 0 : -z <= MAX_RELATIVE_NS ? z : -Infinity;
  }

  /**
   * The base for a pipeline whose first stamp is `firstNs` (absolute nanoseconds): 0 when the
   * stamp is itself exact as a number (below 2^52 ns), else the stamp's whole second.
   */
  public static forFirstStamp(firstNs: bigint): TimeBase {
    if (firstNs < 0n) {
      throw new StampRangeError(`stamp ${firstNs} is negative; ROS stamps are never negative`);
    }
    if (firstNs < BigInt(MAX_RELATIVE_NS)) {
      return new TimeBase(0);
    }
    return new TimeBase(Number(firstNs / NS_PER_SEC_BIG));
  }

  /** Same as `forFirstStamp`, from `{sec, nsec}` parts. */
  public static forFirstSecNsec(sec: number, nsec: number): TimeBase {
    return TimeBase.forFirstStamp(BigInt(sec) * NS_PER_SEC_BIG + BigInt(nsec));
  }

  /**
   * Relative stamp of a ROS time `{sec, nsec}`. Hot path: two subtractions and a multiply.
   * Throws StampRangeError when the parts are not integers, nsec is outside [0, 1e9), or the
   * result leaves the exact window.
   */
  public fromSecNsec(sec: number, nsec: number): Stamp {
    const rel = (sec - this.baseSec) * NS_PER_SEC + nsec;
    // `x >>> 0 === x` holds exactly for integers in [0, 2^32): ROS 1 and ROS 2 time fields (sec is
    // uint32 / non-negative int32, nsec < 1e9). Cheaper than Number.isInteger plus range tests.
    if (
      !(rel <= MAX_RELATIVE_NS && rel >= -MAX_RELATIVE_NS) ||
      sec >>> 0 !== sec ||
      nsec >>> 0 !== nsec ||
      nsec >= NS_PER_SEC
    ) {
      this.#rejectSecNsec(sec, nsec, rel);
    }
    return rel;
  }

  /** Relative stamp of absolute nanoseconds. Throws StampRangeError outside the window. */
  public fromNanoseconds(ns: bigint): Stamp {
    const rel = ns - this.#baseNs;
    if (rel > BigInt(MAX_RELATIVE_NS) || rel < -BigInt(MAX_RELATIVE_NS)) {
      throw this.#rangeError(ns.toString(), Number(rel));
    }
    return Number(rel);
  }

  /** Relative stamp of a decimal string of absolute integer nanoseconds. */
  public fromString(decimal: string): Stamp {
    return this.fromNanoseconds(parseNanoseconds(decimal));
  }

  /** Absolute nanoseconds of a relative stamp. */
  public toNanoseconds(stamp: Stamp): bigint {
    return this.#baseNs + BigInt(stamp);
  }

  /** Absolute decimal-string nanoseconds of a relative stamp (the JSON form of DESIGN §3.1). */
  public format(stamp: Stamp): string {
    if (this.baseSec === 0) {
      return stamp >= 0 ? String(stamp) : (this.#baseNs + BigInt(stamp)).toString();
    }
    return (this.#baseNs + BigInt(stamp)).toString();
  }

  /**
   * A relative stamp as people read it, absolute seconds and nine digits of nanoseconds
   * ("1432235497.988949113", `nanosecondsText`): for messages, where `format` gives JSON's form. A
   * stamp before absolute 0 (possible only on base 0) gets a minus sign: "-0.000000005".
   */
  public formatSeconds(stamp: Stamp): string {
    return nanosecondsText(this.toNanoseconds(stamp));
  }

  /** Absolute `{sec, nsec}` of a relative stamp (nsec in [0, 1e9)). */
  public toSecNsec(stamp: Stamp): { sec: number; nsec: number } {
    const ns = this.toNanoseconds(stamp);
    return { sec: Number(ns / NS_PER_SEC_BIG), nsec: Number(ns % NS_PER_SEC_BIG) };
  }

  /** Absolute seconds as a float (for display and rates; not exact). */
  public toSeconds(stamp: Stamp): number {
    return this.baseSec + stamp / NS_PER_SEC;
  }

  // Out of the hot conversion, so that callers of fromSecNsec can inline it.
  #rejectSecNsec(sec: number, nsec: number, rel: number): never {
    throw this.#rangeError(`{sec: ${sec}, nsec: ${nsec}}`, rel);
  }

  #rangeError(what: string, rel: number): StampRangeError {
    return new StampRangeError(
      `stamp ${what} is not a valid ROS time or lies ${(rel / NS_PER_SEC / 86400).toFixed(1)} days ` +
        `from the time base (${this.baseSec} s); Lockstep handles stamps within 52 days of the ` +
        `first stamp of a stream`,
    );
  }
}

/**
 * Parses a decimal string of integer nanoseconds (optional leading "-"; digits only) to bigint.
 * Throws StampRangeError naming the value otherwise.
 */
export function parseNanoseconds(decimal: string): bigint {
  if (!/^-?\d{1,30}$/.test(decimal)) {
    throw new StampRangeError(
      `"${decimal}" is not an integer number of nanoseconds (expected digits, e.g. "1700000000123456789")`,
    );
  }
  return BigInt(decimal);
}
