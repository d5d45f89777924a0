import type { CostFunction } from "./CostFunction";
import { wrapAngle } from "./angles";
import { checkSqrtInformation } from "./checks";

/**
 * Cost of fuse's `AbsolutePose2DStampedConstraint` (reference/fuse.md §6.1): parameter blocks
 * `[position (x, y), orientation (yaw)]`, measured `mean = (x, y, yaw)`,
 * `r = A·[x − z_x, y − z_y, wrap(yaw − z_yaw)]`. `A` is `k × 3` (k ≤ 3 for partial poses, with
 * zero columns for unmeasured components). Jacobians: `A[:, 0:2]` and `A[:, 2]`.
 */
export class AbsolutePose2DCost implements CostFunction {
  public readonly numResiduals: number;
  public readonly parameterBlockSizes: readonly number[] = [2, 1];
  readonly #a: Float64Array;
  readonly #mean: Float64Array;

  /**
   * @param mean `(x, y, yaw)`.
   * @param sqrtInformation `k × 3` row-major `A`.
   * @throws RangeError when the shapes disagree.
   */
  public constructor(mean: ArrayLike<number>, sqrtInformation: ArrayLike<number>) {
    if (mean.length !== 3) {
      throw new RangeError(`AbsolutePose2DCost: mean has ${mean.length} entries, expected 3`);
    }
    this.numResiduals = checkSqrtInformation(sqrtInformation, 3, "AbsolutePose2DCost");
    this.#a = Float64Array.from(sqrtInformation);
    this.#mean = Float64Array.from(mean);
  }

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    const p = parameters[0]!;
    const yaw = parameters[1]![0]!;
    const m = this.#mean;
    const e0 = p[0]! - m[0]!;
    const e1 = p[1]! - m[1]!;
    const e2 = wrapAngle(yaw - m[2]!);
    const a = this.#a;
    const k = this.numResiduals;
    for (let r = 0; r < k; r++) {
      residuals[r] = a[r * 3]! * e0 + a[r * 3 + 1]! * e1 + a[r * 3 + 2]! * e2;
    }
    if (jacobians) {
      const jp = jacobians[0];
      const jo = jacobians[1];
      for (let r = 0; r < k; r++) {
        if (jp) {
          jp[r * 2] = a[r * 3]!;
          jp[r * 2 + 1] = a[r * 3 + 1]!;
        }
        if (jo) {
          jo[r] = a[r * 3 + 2]!;
        }
      }
    }
    return true;
  }
}
