import type { Spread } from "../PipelineStats";

/**
 * The exact spread (min, nearest-rank median and 95th percentile, max) of `values`, or null when
 * there are none. Sorts a copy; the input is left as it is. Same definition as the summary's
 * reservoir percentiles, without sampling.
 */
export function exactSpread(values: ArrayLike<number>): Spread | null {
  const n = values.length;
  if (n === 0) {
    return null;
  }
  const sorted = Float64Array.from(values).sort();
  return { min: sorted[0]!, median: rank(sorted, 0.5), p95: rank(sorted, 0.95), max: sorted[n - 1]! };
}

/** The nearest-rank p-quantile of an ascending array (the smallest value with ≥ p·n at or below). */
export function rank(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  return sorted[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))]!;
}
