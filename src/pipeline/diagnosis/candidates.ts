import type { TraceFacts } from "./facts";
import type { SearchableParameter } from "./searchSpace";

/** A parameter value as the parsed config holds it (durations in ns, null = unlimited). */
export type ParameterValue = number | boolean | null | readonly number[];

const QUEUE_GRID = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200, 300, 500, 1000];
const SPAN_FACTORS = [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5];
const LOWER_BOUND_FACTORS = [0, 0.25, 0.5, 0.9];
const AGE_PENALTIES = [0, 0.05, 0.1, 0.2, 0.5, 1, 2];
/** Stand-in magnitude of "unlimited" when measuring how far a change goes. */
const UNLIMITED = 1e15;

/** Durations as a user would write them: whole ms from 10 ms up, whole µs from 10 µs up. */
export function roundDuration(ns: number): number {
  if (ns >= 10_000_000) {
    return Math.floor(ns / 1_000_000) * 1_000_000;
  }
  if (ns >= 10_000) {
    return Math.floor(ns / 1000) * 1000;
  }
  return Math.max(0, Math.floor(ns));
}

/** The value a parameter has when the config leaves it out (per-slot defaults expanded). */
export function defaultValue(p: SearchableParameter, slots: number): ParameterValue | undefined {
  // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) is a value here, unlike undefined (absent)
  if (p.default === undefined) {
    return undefined;
  }
  if (p.kind === "perSlotDuration") {
    return new Array<number>(slots).fill(p.default as number);
  }
  return p.default as ParameterValue;
}

/**
 * The values worth trying for one parameter on this data: a grid scaled by the stamps' periods
 * and latencies, the bounds' own special values (unlimited), and the current value. Only values
 * `parseConfig` accepts (within the parameter's bounds).
 */
export function candidatesFor(
  p: SearchableParameter,
  current: ParameterValue | undefined,
  facts: TraceFacts,
): ParameterValue[] {
  const out: ParameterValue[] = [];
  const periods = facts.topics.map((t) => t.period?.median ?? 0);
  const maxPeriod = Math.max(1_000_000, ...periods);
  const worstLatency = Math.max(0, ...facts.topics.map((t) => t.latency?.max ?? 0));
  const bestLatency = Math.min(...facts.topics.map((t) => t.latency?.min ?? 0));
  const lateness = Math.max(0, worstLatency - Math.min(0, bestLatency));
  switch (p.kind) {
    case "count": {
      const min = p.minimum ?? 0;
      const max = p.maximum ?? Infinity;
      if (min === 0) {
        out.push(0);
      }
      for (const q of QUEUE_GRID) {
        if (q >= min && q <= max) {
          out.push(q);
        }
      }
      break;
    }
    case "duration":
    case "nullableDuration": {
      for (const f of SPAN_FACTORS) {
        out.push(roundDuration(f * maxPeriod));
      }
      for (const f of [1.1, 1.5, 2]) {
        out.push(roundDuration(f * (lateness + maxPeriod)));
      }
      if (p.kind === "nullableDuration") {
        out.push(null);
      }
      break;
    }
    case "perSlotDuration": {
      for (const f of LOWER_BOUND_FACTORS) {
        out.push(facts.topics.map((t) => roundDuration(f * (t.period?.min ?? 0))));
      }
      break;
    }
    case "number": {
      for (const v of AGE_PENALTIES) {
        if (v >= (p.minimum ?? -Infinity) && v <= (p.maximum ?? Infinity)) {
          out.push(v);
        }
      }
      break;
    }
    case "boolean":
      out.push(false, true);
      break;
    default:
      break;
  }
  // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) is a value here, unlike undefined (absent)
  if (current !== undefined) {
    out.push(current);
  }
  const seen = new Set<string>();
  return out.filter((v) => {
    const key = JSON.stringify(v);
    if (seen.has(key)) {
      return false;
    }
    seen.add(key);
    return true;
  });
}

/** How far `value` is from `from` (0 = the same), comparable across parameters of one kind. */
export function changeSize(p: SearchableParameter, from: ParameterValue | undefined, value: ParameterValue): number {
  if (JSON.stringify(from) === JSON.stringify(value)) {
    return 0;
  }
  const mag = (v: ParameterValue | undefined): number => {
    if (v == undefined) {
      return UNLIMITED;
    }
    if (typeof v === "number") {
      return p.kind === "count" && v === 0 && (p.minimum ?? 0) === 0 ? UNLIMITED : v;
    }
    return 0;
  };
  switch (p.kind) {
    case "count":
      return Math.abs(Math.log(mag(value) / Math.max(1, mag(from))));
    case "duration":
    case "nullableDuration":
      return Math.abs(Math.log((mag(value) + 1000) / (mag(from) + 1000)));
    case "perSlotDuration": {
      const a = (from as readonly number[] | undefined) ?? [];
      const b = value as readonly number[];
      let sum = 0;
      b.forEach((v, i) => {
        sum += Math.abs(Math.log((v + 1000) / ((a[i] ?? 0) + 1000)));
      });
      return sum / Math.max(1, b.length);
    }
    case "number":
      return Math.abs((value as number) - ((from as number | undefined) ?? 0)) / (Math.abs((from as number | undefined) ?? 0) + 0.1);
    default:
      return 1;
  }
}
