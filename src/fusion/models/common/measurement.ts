import type { Stamp } from "../../../time";
import { linalg, type Matrix } from "../../core";

/** The named validation failures of fuse's `validatePartialMeasurement` (reference/fuse.md §3). */
export type MeasurementProblem =
  | "non-finite-mean"
  | "non-finite-covariance"
  | "non-symmetric"
  | "not-positive-definite";

/** Eigen's `dummy_precision` for double: fuse's default symmetry precision. */
export const DEFAULT_SYMMETRY_PRECISION = 1e-12;

/**
 * fuse's measurement validation: the mean must be finite; the covariance finite (a NaN fails
 * Eigen's symmetry test in fuse; named separately here), symmetric in Eigen's `isApprox` sense
 * (‖Σ − Σᵀ‖_F ≤ precision · ‖Σ‖_F) and positive definite. Returns the first failed check or
 * undefined.
 */
export function validateMeasurement(
  mean: ArrayLike<number>,
  covariance: Matrix,
  precision = DEFAULT_SYMMETRY_PRECISION,
): MeasurementProblem | undefined {
  return validateMean(mean) ?? validateCovariance(covariance, precision);
}

/** The mean's part of `validateMeasurement`: "non-finite-mean" or undefined. */
export function validateMean(mean: ArrayLike<number>): MeasurementProblem | undefined {
  return linalg.allFinite(mean) ? undefined : "non-finite-mean";
}

/**
 * The covariance's part of `validateMeasurement` (finite, symmetric within `precision`, positive
 * definite): the first failed check or undefined. A function of the entries and `precision` only.
 */
export function validateCovariance(covariance: Matrix, precision = DEFAULT_SYMMETRY_PRECISION): MeasurementProblem | undefined {
  if (!linalg.allFinite(covariance.data)) {
    return "non-finite-covariance";
  }
  let diff = 0;
  let norm = 0;
  const n = covariance.rows;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const a = covariance.data[i * n + j]!;
      const d = a - covariance.data[j * n + i]!;
      diff += d * d;
      norm += a * a;
    }
  }
  if (Math.sqrt(diff) > precision * Math.sqrt(norm)) {
    return "non-symmetric";
  }
  if (!linalg.isPositiveDefinite(covariance)) {
    return "not-positive-definite";
  }
  return undefined;
}

/** A 2D-relevant view of geometry_msgs/PoseWithCovarianceStamped. */
export interface PoseMeasurement {
  readonly stamp: Stamp;
  readonly frameId: string;
  readonly position: readonly [number, number, number];
  /** [x, y, z, w]. */
  readonly orientation: readonly [number, number, number, number];
  /** Row-major 6×6 over (x, y, z, roll, pitch, yaw). */
  readonly covariance: ArrayLike<number>;
}

/** A view of geometry_msgs/TwistWithCovarianceStamped or AccelWithCovarianceStamped. */
export interface VectorPairMeasurement {
  readonly stamp: Stamp;
  readonly frameId: string;
  readonly linear: readonly [number, number, number];
  readonly angular: readonly [number, number, number];
  /** Row-major 6×6 over (linear x, y, z, angular x, y, z). */
  readonly covariance: ArrayLike<number>;
}
