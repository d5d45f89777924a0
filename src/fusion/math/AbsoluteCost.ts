import type { CostFunction } from "./CostFunction";
import { wrapAngle } from "./angles";
import { checkSqrtInformation } from "./checks";

/**
 * Cost of fuse's `AbsoluteConstraint<V>` (Ceres `NormalPrior`; reference/fuse.md §2.2, §6.1):
 * `r = A·e` with `e = x − mean` over one variable of size n, where the components flagged in
 * `angular` are wrapped to [-π, π) (fuse wraps the Orientation2D specialization only).
 *
 * `A` is the `k × n` row-major square-root information; a partial measurement has `k < n` and
 * zero columns for the unmeasured components (§2.2). The Jacobian is the constant `A`.
 */
export class AbsoluteCost implements CostFunction {
  public readonly numResiduals: number;
  public readonly parameterBlockSizes: readonly number[];
  readonly #a: Float64Array;
  readonly #mean: Float64Array;
  readonly #angular: readonly boolean[];
  readonly #e: Float64Array;

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
    const n = mean.length;
    this.numResiduals = checkSqrtInformation(sqrtInformation, n, "AbsoluteCost");
    this.parameterBlockSizes = [n];
    this.#a = Float64Array.from(sqrtInformation);
    this.#mean = Float64Array.from(mean);
    this.#angular = Array.from({ length: n }, (_, i) => angular[i] === true);
    this.#e = new Float64Array(n);
  }

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    const x = parameters[0]!;
    const n = this.#mean.length;
    const e = this.#e;
    for (let i = 0; i < n; i++) {
      const d = x[i]! - this.#mean[i]!;
      e[i] = this.#angular[i]! ? wrapAngle(d) : d;
    }
    const a = this.#a;
    const k = this.numResiduals;
    for (let r = 0; r < k; r++) {
      let s = 0;
      for (let c = 0; c < n; c++) {
        s += a[r * n + c]! * e[c]!;
      }
      residuals[r] = s;
    }
    const j = jacobians?.[0];
    if (j) {
      j.set(a);
    }
    return true;
  }
}
