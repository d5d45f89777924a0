import { Constraint, UNICYCLE_2D_KINEMATIC, whiten, type Matrix } from "../core";

const ALL_INDICES: readonly number[] = [0, 1, 2, 3, 4, 5, 6, 7];
/** The constraint's mean (the expected residual, zero); shared, as a Constraint copies its mean. */
const ZERO_MEAN = new Float64Array(8);

/**
 * `fuse_models::Unicycle2DStateKinematicConstraint` (reference/fuse.md §2.2, §6.3): the 8-residual
 * constraint between two Unicycle2D states, over the variables `[position1, yaw1, vLinear1,
 * vYaw1, aLinear1, position2, yaw2, vLinear2, vYaw2, aLinear2]`.
 *
 * `dt` (seconds) is the time between the states; the covariance is the process noise `Q·dt` and
 * `sqrtInformation = chol_upper((Q·dt)⁻¹)`. The "mean" is the expected residual `s2 − f(s1)`,
 * zero. JSON carries `dt` next to the standard fields.
 */
export class Unicycle2DStateKinematicConstraint extends Constraint {
  /** Seconds between state 1 and state 2. */
  public readonly dt: number = 0;

  /**
   * @param source the motion model's name.
   * @param variables the 10 variable UUIDs in the order above.
   * @param dt seconds between the states (> 0).
   * @param covariance the 8 × 8 process-noise covariance `Q·dt` (positive definite).
   * @param sqrtInformation `chol_upper(covariance⁻¹)` when the caller has it (then not computed).
   * @throws RangeError when there are not 10 variables, dt is not > 0, or the covariance is not
   * 8 × 8 positive definite.
   */
  public constructor(source: string, variables: readonly string[], dt: number, covariance: Matrix, sqrtInformation?: Matrix) {
    if (variables.length !== 10) {
      throw new RangeError(
        `${UNICYCLE_2D_KINEMATIC} needs 10 variables (5 per state), got ${variables.length}`,
      );
    }
    if (!(dt > 0) || !Number.isFinite(dt)) {
      throw new RangeError(`${UNICYCLE_2D_KINEMATIC}: dt must be > 0 s, got ${dt}`);
    }
    super({
      type: UNICYCLE_2D_KINEMATIC,
      source,
      variables,
      mean: ZERO_MEAN,
      sqrtInformation: sqrtInformation ?? whiten(covariance, ALL_INDICES, 8, UNICYCLE_2D_KINEMATIC).sqrtInformation,
      covariance,
      extra: { dt },
    });
    this.dt = dt;
  }
}
