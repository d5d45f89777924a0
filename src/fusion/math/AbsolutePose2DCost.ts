import { Pose2DErrorCost } from "./Pose2DErrorCost";
import { wrapAngle } from "./angles";

/**
 * Cost of fuse's `AbsolutePose2DStampedConstraint` (reference/fuse.md §6.1): parameter blocks
 * `[position (x, y), orientation (yaw)]`, measured `mean = (x, y, yaw)`,
 * `r = A·[x − z_x, y − z_y, wrap(yaw − z_yaw)]`. `A` is `k × 3` (k ≤ 3 for partial poses, with
 * zero columns for unmeasured components). Jacobians: `A[:, 0:2]` and `A[:, 2]`.
 */
export class AbsolutePose2DCost extends Pose2DErrorCost {
  /**
   * @param mean `(x, y, yaw)`.
   * @param sqrtInformation `k × 3` row-major `A`.
   * @throws RangeError when the shapes disagree.
   */
  public constructor(mean: ArrayLike<number>, sqrtInformation: ArrayLike<number>) {
    super([2, 1], mean, sqrtInformation, "AbsolutePose2DCost", "mean");
  }

  protected override computeError(parameters: readonly Float64Array[]): void {
    const p = parameters[0]!;
    const m = this.measured;
    this.error[0] = p[0]! - m[0]!;
    this.error[1] = p[1]! - m[1]!;
    this.error[2] = wrapAngle(parameters[1]![0]! - m[2]!);
  }

  protected override writeJacobians(jacobians: readonly (Float64Array | null)[]): void {
    const a = this.sqrtInformation;
    const jp = jacobians[0];
    const jo = jacobians[1];
    for (let r = 0; r < this.numResiduals; r++) {
      if (jp) {
        jp[r * 2] = a[r * 3]!;
        jp[r * 2 + 1] = a[r * 3 + 1]!;
      }
      if (jo) {
        jo[r] = a[r * 3 + 2]!;
      }
    }
  }
}
