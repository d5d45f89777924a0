import { LinearErrorCost } from "./LinearErrorCost";
import { copyNumbers } from "../core/copyNumbers";

/**
 * What AbsoluteCost and RelativeCost share: blocks of the same size n combined with signs ±1,
 * minus a measured value, `e = Σ_b sign_b·x_b − measured` (angular components wrapped), and
 * `r = A·e`; block b's Jacobian is the constant `sign_b·A`. Allocates nothing per evaluation.
 */
export abstract class BlockDifferenceCost extends LinearErrorCost {
  readonly #signs: readonly (1 | -1)[];
  readonly #measured: Float64Array;

  /**
   * @param signs each block's sign, in block order.
   * @param measured the measured value (length n).
   * @param what the class name, for the error message.
   * @throws RangeError when the shapes disagree.
   */
  protected constructor(
    signs: readonly (1 | -1)[],
    measured: ArrayLike<number>,
    sqrtInformation: ArrayLike<number>,
    angular: readonly boolean[],
    what: string,
  ) {
    super(measured.length, signs.length, sqrtInformation, angular, what);
    this.#signs = signs;
    this.#measured = copyNumbers(measured);
  }

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    this.#computeError(parameters);
    this.whiten(residuals);
    if (jacobians) {
      this.#writeJacobians(jacobians);
    }
    return true;
  }

  #computeError(parameters: readonly Float64Array[]): void {
    const signs = this.#signs;
    const m = this.#measured;
    const e = this.error;
    for (let i = 0; i < m.length; i++) {
      // Summed in block order from the first signed block: x − m, and (−x1 + x2) − m = x2 − x1 − m.
      let sum = signs[0]! * parameters[0]![i]!;
      for (let b = 1; b < signs.length; b++) {
        sum += signs[b]! * parameters[b]![i]!;
      }
      e[i] = sum - m[i]!;
    }
  }

  #writeJacobians(jacobians: readonly (Float64Array | null)[]): void {
    const a = this.sqrtInformation;
    for (let b = 0; b < this.#signs.length; b++) {
      const j = jacobians[b];
      if (!j) {
        continue;
      }
      if (this.#signs[b] === 1) {
        j.set(a);
      } else {
        for (let i = 0; i < a.length; i++) {
          j[i] = -a[i]!;
        }
      }
    }
  }
}
