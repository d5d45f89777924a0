import type { CostFunction } from "./CostFunction";
import { checkSqrtInformation } from "./checks";
import { copyNumbers } from "../core/copyNumbers";

/**
 * What AbsolutePose2DCost and RelativePose2DCost share: a planar pose error
 * `e = (e_x, e_y, e_yaw)` (`computeError`, the yaw part wrapped) against a measured
 * `(x, y, yaw)`, whitened as `r = A·e` with `A` the `k × 3` row-major square-root information
 * (k ≤ 3 for partial poses, zero columns for unmeasured components); the subclass writes the
 * Jacobians of the error evaluated last. Allocates nothing per evaluation.
 */
export abstract class Pose2DErrorCost implements CostFunction {
  public readonly numResiduals: number = 0;
  public readonly parameterBlockSizes: readonly number[];
  /** `A`, row-major `k × 3`. */
  protected readonly sqrtInformation: Float64Array;
  /** The measured `(x, y, yaw)` (or change). */
  protected readonly measured: Float64Array;
  /** The error of the last evaluation. */
  protected readonly error = new Float64Array(3);

  /**
   * @param what the class name and `measuredName` the measured value's, for the error message.
   * @throws RangeError when `measured` is not 3 values or `A` not whole rows of 3.
   */
  protected constructor(
    parameterBlockSizes: readonly number[],
    measured: ArrayLike<number>,
    sqrtInformation: ArrayLike<number>,
    what: string,
    measuredName: string,
  ) {
    if (measured.length !== 3) {
      throw new RangeError(`${what}: ${measuredName} has ${measured.length} entries, expected 3`);
    }
    this.numResiduals = checkSqrtInformation(sqrtInformation, 3, what);
    this.parameterBlockSizes = parameterBlockSizes;
    this.sqrtInformation = copyNumbers(sqrtInformation);
    this.measured = copyNumbers(measured);
  }

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    this.computeError(parameters);
    const e0 = this.error[0]!;
    const e1 = this.error[1]!;
    const e2 = this.error[2]!;
    const a = this.sqrtInformation;
    const k = this.numResiduals;
    for (let r = 0; r < k; r++) {
      residuals[r] = a[r * 3]! * e0 + a[r * 3 + 1]! * e1 + a[r * 3 + 2]! * e2;
    }
    if (jacobians) {
      this.writeJacobians(jacobians);
    }
    return true;
  }

  /** Writes the error at `parameters` into `error`. */
  protected abstract computeError(parameters: readonly Float64Array[]): void;

  /** Writes `A·∂e/∂block` into each requested block's Jacobian (row-major `k × block size`). */
  protected abstract writeJacobians(jacobians: readonly (Float64Array | null)[]): void;
}
