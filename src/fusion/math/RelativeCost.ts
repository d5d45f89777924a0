import { LinearErrorCost } from "./LinearErrorCost";

/**
 * Cost of fuse's `RelativeConstraint<V>` (reference/fuse.md §2.2): two variables of the same size
 * n, `r = A·((x2 − x1) − delta)` element-wise, with the components flagged in `angular` wrapped
 * (the Orientation2D specialization). Jacobians: `−A` and `A`.
 */
export class RelativeCost extends LinearErrorCost {
  readonly #delta: Float64Array;

  /**
   * @param delta the measured change `x2 − x1` (length n).
   * @param sqrtInformation `k × n` row-major `A`.
   * @param angular which components wrap (default: none).
   * @throws RangeError when the shapes disagree.
   */
  public constructor(
    delta: ArrayLike<number>,
    sqrtInformation: ArrayLike<number>,
    angular: readonly boolean[] = [],
  ) {
    super(delta.length, 2, sqrtInformation, angular, "RelativeCost");
    this.#delta = Float64Array.from(delta);
  }

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    const x1 = parameters[0]!;
    const x2 = parameters[1]!;
    const delta = this.#delta;
    const e = this.error;
    for (let i = 0; i < delta.length; i++) {
      e[i] = x2[i]! - x1[i]! - delta[i]!;
    }
    this.whiten(residuals);
    if (jacobians) {
      const a = this.sqrtInformation;
      const j1 = jacobians[0];
      const j2 = jacobians[1];
      for (let i = 0; i < a.length; i++) {
        if (j1) {
          j1[i] = -a[i]!;
        }
        if (j2) {
          j2[i] = a[i]!;
        }
      }
    }
    return true;
  }
}
