import { nonZeroRowMasks, type JacobianPattern, type PatternedCost } from "./JacobianPattern";
import { Pose2DErrorCost } from "./Pose2DErrorCost";
import { wrapAngle } from "./angles";

/**
 * Cost of fuse's `AbsolutePose2DStampedConstraint` (reference/fuse.md §6.1): parameter blocks
 * `[position (x, y), orientation (yaw)]`, measured `mean = (x, y, yaw)`,
 * `r = A·[x − z_x, y − z_y, wrap(yaw − z_yaw)]`. `A` is `k × 3` (k ≤ 3 for partial poses, with
 * zero columns for unmeasured components). Jacobians: `A[:, 0:2]` and `A[:, 2]`, so the Jacobian
 * pattern is A's non-zeros (a yaw-only measurement leaves the position columns out).
 */
export class AbsolutePose2DCost extends Pose2DErrorCost implements PatternedCost {
  /**
   * A's non-zero pattern, split into the position and orientation blocks (shared by equal
   * patterns); none for more than 3 rows.
   */
  public readonly jacobianPattern: JacobianPattern | undefined;

  /**
   * @param mean `(x, y, yaw)`.
   * @param sqrtInformation `k × 3` row-major `A`.
   * @throws RangeError when the shapes disagree.
   */
  public constructor(mean: ArrayLike<number>, sqrtInformation: ArrayLike<number>) {
    super([2, 1], mean, sqrtInformation, "AbsolutePose2DCost", "mean");
    this.jacobianPattern = patternOf(this.sqrtInformation, this.numResiduals);
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

/** The patterns built so far, by their column masks and row count (k ≤ 3: 3 bits per column). */
const PATTERNS = new Map<number, JacobianPattern>();

/** Columns x, y (position block) and yaw (orientation block) masked by the rows where A is not ±0. */
function patternOf(a: Float64Array, rows: number): JacobianPattern | undefined {
  if (rows > 3) {
    return undefined;
  }
  const masks = nonZeroRowMasks(a, rows, 3);
  const key = ((rows * 8 + masks[0]!) * 8 + masks[1]!) * 8 + masks[2]!;
  let pattern = PATTERNS.get(key);
  if (pattern == undefined) {
    pattern = Object.freeze({ numResiduals: rows, rowMasks: Object.freeze([masks.slice(0, 2), masks.slice(2)]) });
    PATTERNS.set(key, pattern);
  }
  return pattern;
}
