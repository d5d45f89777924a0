import type { Matrix } from "./Matrix";
import { copyNumbers } from "./copyNumbers";
import { choleskyLowerInto, inverseInto } from "./linalg";
import { randomUuid } from "./uuid";

/** fuse_constraints / fuse_models constraint type names (exactly as fuse registers them). */
export const ABSOLUTE_POSE_2D = "fuse_constraints::AbsolutePose2DStampedConstraint";
/** Relative 2D pose (delta in frame 1), reference/fuse.md §6.2. */
export const RELATIVE_POSE_2D = "fuse_constraints::RelativePose2DStampedConstraint";
/** Absolute prior on a Position2DStamped. */
export const ABSOLUTE_POSITION_2D = "fuse_constraints::AbsolutePosition2DStampedConstraint";
/** Absolute prior on an Orientation2DStamped (error wrapped). */
export const ABSOLUTE_ORIENTATION_2D = "fuse_constraints::AbsoluteOrientation2DStampedConstraint";
/** Absolute constraint on a VelocityLinear2DStamped. */
export const ABSOLUTE_VELOCITY_LINEAR_2D = "fuse_constraints::AbsoluteVelocityLinear2DStampedConstraint";
/** Absolute constraint on a VelocityAngular2DStamped. */
export const ABSOLUTE_VELOCITY_ANGULAR_2D = "fuse_constraints::AbsoluteVelocityAngular2DStampedConstraint";
/** Absolute constraint on an AccelerationLinear2DStamped. */
export const ABSOLUTE_ACCELERATION_LINEAR_2D =
  "fuse_constraints::AbsoluteAccelerationLinear2DStampedConstraint";
/** The unicycle kinematic constraint (fuse_models), reference/fuse.md §6.3. */
export const UNICYCLE_2D_KINEMATIC = "fuse_models::Unicycle2DStateKinematicConstraint";
/** Absolute 3D pose over [Position3D, Orientation3D] (position + rotation-vector error). */
export const ABSOLUTE_POSE_3D = "fuse_constraints::AbsolutePose3DStampedConstraint";
/** Relative 3D pose over [p1, q1, p2, q2], delta in frame 1. */
export const RELATIVE_POSE_3D = "fuse_constraints::RelativePose3DStampedConstraint";
/** Roll/pitch/yaw (selected axes) of an Orientation3D. */
export const ABSOLUTE_ORIENTATION_3D_EULER = "fuse_constraints::AbsoluteOrientation3DStampedEulerConstraint";
/** Absolute prior on a Position3DStamped. */
export const ABSOLUTE_POSITION_3D = "fuse_constraints::AbsolutePosition3DStampedConstraint";
/** Absolute constraint on a VelocityLinear3DStamped. */
export const ABSOLUTE_VELOCITY_LINEAR_3D = "fuse_constraints::AbsoluteVelocityLinear3DStampedConstraint";
/** Absolute constraint on a VelocityAngular3DStamped. */
export const ABSOLUTE_VELOCITY_ANGULAR_3D = "fuse_constraints::AbsoluteVelocityAngular3DStampedConstraint";
/** Absolute constraint on an AccelerationLinear3DStamped. */
export const ABSOLUTE_ACCELERATION_LINEAR_3D = "fuse_constraints::AbsoluteAccelerationLinear3DStampedConstraint";
/** The omnidirectional 3D kinematic constraint (fuse_models), 15 residuals. */
export const OMNIDIRECTIONAL_3D_KINEMATIC = "fuse_models::Omnidirectional3DStateKinematicConstraint";
/** The linear prior produced by marginalization, reference/fuse.md §2.3. */
export const MARGINAL = "fuse_constraints::MarginalConstraint";

/**
 * A robust loss as fuse_loss configures it: `type` is the fuse_loss class name (e.g.
 * "fuse_loss::HuberLoss") and `parameters` its numeric parameters (e.g. `{a: 1}`).
 */
export interface LossConfig {
  readonly type: string;
  readonly parameters: Readonly<Record<string, number>>;
}

/** Constructor input of `Constraint`. */
export interface ConstraintInit {
  /** Default: a random v4 UUID, as fuse does. */
  uuid?: string;
  type: string;
  source: string;
  variables: readonly string[];
  /** The full-length mean (or delta); zeros in unmeasured slots. */
  mean: ArrayLike<number>;
  /** Whitening matrix A (rows = residual dimension, cols = mean length). */
  sqrtInformation: Matrix;
  /**
   * Full-size covariance (cols × cols), zero rows/columns for unmeasured slots; or a function
   * that computes it, called once, on the first read of `covariance` (for a constraint whose
   * covariance is derived work that the solver never reads, only the JSON).
   */
  covariance: Matrix | (() => Matrix);
  loss?: LossConfig | null;
  /** Type-specific fields written into the JSON next to the standard ones (e.g. `{dt: 0.1}`). */
  extra?: Readonly<Record<string, unknown>>;
}

/**
 * A fuse constraint as plain data: the ordered variable UUIDs (the cost function's parameter
 * blocks), the measured mean, the whitening matrix `A = chol_upper(Σ⁻¹)` (scattered columns for a
 * partial measurement, reference/fuse.md §2.2), the reconstructed covariance and an optional loss.
 *
 * Guarantees: immutable after construction (a covariance given as a function is worked out on
 * its first read and kept, the same matrix on every read); residual math is the optimizer's
 * business (it dispatches on `type`). Subclasses may add fields and put them in `extra` for JSON.
 * `covariance` is a getter, so a spread or structured clone of a constraint leaves it out:
 * serialize with `constraintToJson`.
 */
export class Constraint {
  public readonly uuid: string;
  public readonly type: string;
  /** Name of the sensor/motion model that created it. */
  public readonly source: string;
  public readonly variables: readonly string[];
  public readonly mean: Float64Array;
  public readonly sqrtInformation: Matrix;
  #covariance: Matrix | (() => Matrix);
  public readonly loss: LossConfig | null;
  public readonly extra: Readonly<Record<string, unknown>> | undefined;

  public constructor(init: ConstraintInit) {
    this.uuid = init.uuid ?? randomUuid();
    this.type = init.type;
    this.source = init.source;
    this.variables = [...init.variables];
    this.mean = copyNumbers(init.mean);
    this.sqrtInformation = init.sqrtInformation;
    this.#covariance = init.covariance;
    this.loss = init.loss ?? null;
    this.extra = init.extra;
  }

  /** Full-size covariance (cols × cols), zero rows/columns for unmeasured slots. */
  public get covariance(): Matrix {
    const c = this.#covariance;
    if (typeof c === "function") {
      const computed = c();
      this.#covariance = computed;
      return computed;
    }
    return c;
  }

  /**
   * A constraint from a measured mean and the covariance of the selected components, as fuse's
   * partial-measurement constructors build it (reference/fuse.md §2.2): `A` is
   * `chol_upper(Σ_S⁻¹)` with its k-th column placed at column `indices[k]` of a `|S|×N` matrix.
   * `mean` is full length (N); `partialCovariance` is |S|×|S|; `indices` default to all.
   * Throws RangeError when the covariance is not invertible / positive definite (validate first).
   */
  public static fromCovariance(init: {
    uuid?: string;
    type: string;
    source: string;
    variables: readonly string[];
    mean: ArrayLike<number>;
    partialCovariance: Matrix;
    indices?: readonly number[];
    loss?: LossConfig | null;
    extra?: Readonly<Record<string, unknown>>;
  }): Constraint {
    const n = init.mean.length;
    const indices = init.indices ?? Array.from({ length: n }, (_, i) => i);
    const { sqrtInformation, covariance } = whiten(init.partialCovariance, indices, n, init.type);
    return new Constraint({
      uuid: init.uuid,
      type: init.type,
      source: init.source,
      variables: init.variables,
      mean: init.mean,
      sqrtInformation,
      covariance,
      loss: init.loss,
      extra: init.extra,
    });
  }
}

/** whiten's working memory (Σ⁻¹, its factor, the elimination), grown to the largest |S|². */
let scratch = { info: new Float64Array(0), l: new Float64Array(0), work: new Float64Array(0) };

/**
 * `A` (|S|×n, scattered columns) and the full-size covariance (n×n) for a partial covariance.
 * Throws RangeError naming `what` when Σ_S is not positive definite.
 */
export function whiten(
  partialCovariance: Matrix,
  indices: readonly number[],
  n: number,
  what: string,
): { sqrtInformation: Matrix; covariance: Matrix } {
  const k = indices.length;
  if (partialCovariance.rows !== k || partialCovariance.cols !== k) {
    throw new RangeError(
      `${what}: covariance is ${partialCovariance.rows}x${partialCovariance.cols}, expected ${k}x${k}`,
    );
  }
  // Σ_S⁻¹ and its lower factor L in reused buffers: A's rows are the rows of U = Lᵀ.
  if (scratch.l.length < k * k) {
    scratch = { info: new Float64Array(k * k), l: new Float64Array(k * k), work: new Float64Array(k * k) };
  }
  const { info, l, work } = scratch;
  if (!inverseInto(partialCovariance.data, k, info, work) || !choleskyLowerInto(info, k, l)) {
    throw new RangeError(`${what}: covariance is not positive definite`);
  }
  // One backing store for both (a typed array's own store costs more than the view on one).
  const storage = new Float64Array(k * n + n * n);
  const a: Matrix = { rows: k, cols: n, data: storage.subarray(0, k * n) };
  const cov: Matrix = { rows: n, cols: n, data: storage.subarray(k * n) };
  for (let r = 0; r < k; r++) {
    for (let c = 0; c < k; c++) {
      a.data[r * n + indices[c]!] = c >= r ? l[c * k + r]! : 0;
      cov.data[indices[r]! * n + indices[c]!] = partialCovariance.data[r * k + c]!;
    }
  }
  return { sqrtInformation: a, covariance: cov };
}
