import { LinearErrorCost } from "./LinearErrorCost";

/**
 * Cost of fuse's `AbsoluteConstraint<V>` (Ceres `NormalPrior`; reference/fuse.md §2.2, §6.1):
 * `r = A·e` with `e = x − mean` over one variable of size n, where the components flagged in
 * `angular` are wrapped to [-π, π) (fuse wraps the Orientation2D specialization only).
 *
 * `A` is the `k × n` row-major square-root information; a partial measurement has `k < n` and
 * zero columns for the unmeasured components (§2.2). The Jacobian is the constant `A`.
 */
export class AbsoluteCost extends LinearErrorCost {
  readonly #mean: Float64Array;

  /**
   * @param mean the measured value (length n).
   * @param sqrtInformation `k × n` row-major `A` (k = its length / n).
   * @param angular which components wrap (default: none).
   * @throws RangeError when the shapes disagree.
   */
  public constructor(
    mean: ArrayLike<number>,
    sqrtInformation: ArrayLike<number>,
    angular: readonly boolean[] = [],
  ) {
    super(mean.length, 1, sqrtInformation, angular, "AbsoluteCost");
    this.#mean = Float64Array.from(mean);
  }

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    const x = parameters[0]!;
    const mean = this.#mean;
    const e = this.error;
    for (let i = 0; i < mean.length; i++) {
      e[i] = x[i]! - mean[i]!;
    }
    this.whiten(residuals);
    const j = jacobians?.[0];
    if (j) {
      j.set(this.sqrtInformation);
    }
    return true;
  }
}
