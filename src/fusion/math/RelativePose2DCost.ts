import { Pose2DErrorCost } from "./Pose2DErrorCost";
import { wrapAngle } from "./angles";

/**
 * Cost of fuse's `RelativePose2DStampedConstraint` (reference/fuse.md §6.2): parameter blocks
 * `[position1, yaw1, position2, yaw2]`, measured `delta = (dx, dy, dyaw)` expressed in frame 1.
 * With `d = R(yaw1)ᵀ (p2 − p1)`: `r = A·[d_x − dx, d_y − dy, wrap(yaw2 − yaw1 − dyaw)]`,
 * `A` being `k × 3`. Analytic Jacobians as in §6.2.
 */
export class RelativePose2DCost extends Pose2DErrorCost {
  // cos/sin of yaw1 and d of the last evaluation, for the Jacobians.
  #c = 0;
  #s = 0;
  #dx = 0;
  #dy = 0;

  /**
   * @param delta `(dx, dy, dyaw)` in the frame of pose 1.
   * @param sqrtInformation `k × 3` row-major `A`.
   * @throws RangeError when the shapes disagree.
   */
  public constructor(delta: ArrayLike<number>, sqrtInformation: ArrayLike<number>) {
    super([2, 1, 2, 1], delta, sqrtInformation, "RelativePose2DCost", "delta");
  }

  protected override computeError(parameters: readonly Float64Array[]): void {
    const p1 = parameters[0]!;
    const yaw1 = parameters[1]![0]!;
    const p2 = parameters[2]!;
    const yaw2 = parameters[3]![0]!;
    const c = Math.cos(yaw1);
    const s = Math.sin(yaw1);
    const dxw = p2[0]! - p1[0]!;
    const dyw = p2[1]! - p1[1]!;
    // d = R(yaw1)ᵀ · (p2 − p1)
    const dx = c * dxw + s * dyw;
    const dy = -s * dxw + c * dyw;
    const m = this.measured;
    this.error[0] = dx - m[0]!;
    this.error[1] = dy - m[1]!;
    this.error[2] = wrapAngle(yaw2 - yaw1 - m[2]!);
    this.#c = c;
    this.#s = s;
    this.#dx = dx;
    this.#dy = dy;
  }

  protected override writeJacobians(jacobians: readonly (Float64Array | null)[]): void {
    const a = this.sqrtInformation;
    const c = this.#c;
    const s = this.#s;
    const jp1 = jacobians[0];
    const jy1 = jacobians[1];
    const jp2 = jacobians[2];
    const jy2 = jacobians[3];
    for (let r = 0; r < this.numResiduals; r++) {
      const a0 = a[r * 3]!;
      const a1 = a[r * 3 + 1]!;
      const a2 = a[r * 3 + 2]!;
      // A[:, 0:2] · R(yaw1)ᵀ, with R(yaw1)ᵀ = [[c, s], [−s, c]]
      const m0 = a0 * c - a1 * s;
      const m1 = a0 * s + a1 * c;
      if (jp1) {
        jp1[r * 2] = -m0;
        jp1[r * 2 + 1] = -m1;
      }
      if (jp2) {
        jp2[r * 2] = m0;
        jp2[r * 2 + 1] = m1;
      }
      if (jy1) {
        jy1[r] = a0 * this.#dy - a1 * this.#dx - a2;
      }
      if (jy2) {
        jy2[r] = a2;
      }
    }
  }
}
