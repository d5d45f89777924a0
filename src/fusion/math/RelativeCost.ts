import type { CostFunction } from "./CostFunction";
import { wrapAngle } from "./angles";
import { checkSqrtInformation } from "./checks";

/**
 * Cost of fuse's `RelativeConstraint<V>` (reference/fuse.md §2.2): two variables of the same size
 * n, `r = A·((x2 − x1) − delta)` element-wise, with the components flagged in `angular` wrapped
 * (the Orientation2D specialization). Jacobians: `−A` and `A`.
 */
export class RelativeCost implements CostFunction {
  public readonly numResiduals: number;
  public readonly parameterBlockSizes: readonly number[];
  readonly #a: Float64Array;
  readonly #delta: Float64Array;
  readonly #angular: readonly boolean[];
  readonly #e: Float64Array;

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
    const n = delta.length;
    this.numResiduals = checkSqrtInformation(sqrtInformation, n, "RelativeCost");
    this.parameterBlockSizes = [n, n];
    this.#a = Float64Array.from(sqrtInformation);
    this.#delta = Float64Array.from(delta);
    this.#angular = Array.from({ length: n }, (_, i) => angular[i] === true);
    this.#e = new Float64Array(n);
  }

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    const x1 = parameters[0]!;
    const x2 = parameters[1]!;
    const n = this.#delta.length;
    const e = this.#e;
    for (let i = 0; i < n; i++) {
      const d = x2[i]! - x1[i]! - this.#delta[i]!;
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
    if (jacobians) {
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
