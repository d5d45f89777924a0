import type { CostFunction } from "./CostFunction";
import { Whitener } from "./Whitener";
import { wrapAngle } from "./angles";
import { checkSqrtInformation } from "./checks";

/**
 * What AbsoluteCost and RelativeCost share: `r = A·e` for an error vector `e` of length n (one
 * entry per component of the variable), with the components flagged `angular` wrapped to [-π, π).
 * `A` is the `k × n` row-major square-root information. Subclasses write the raw error into
 * `error`, call `whiten`, and fill their Jacobians. Allocates nothing per evaluation.
 */
export abstract class LinearErrorCost implements CostFunction {
  public readonly numResiduals: number;
  public readonly parameterBlockSizes: readonly number[];
  /** `A`, row-major `k × n`. */
  protected readonly sqrtInformation: Float64Array;
  /** Scratch error vector (length n). */
  protected readonly error: Float64Array;
  readonly #angular: readonly boolean[];
  readonly #whitener: Whitener;

  /**
   * @param n the variable size (every parameter block has this size).
   * @param blocks how many parameter blocks the cost takes.
   * @param what the class name, for the error message.
   * @throws RangeError when `sqrtInformation` is not a whole number of rows of n.
   */
  protected constructor(
    n: number,
    blocks: number,
    sqrtInformation: ArrayLike<number>,
    angular: readonly boolean[],
    what: string,
  ) {
    this.numResiduals = checkSqrtInformation(sqrtInformation, n, what);
    this.parameterBlockSizes = Array.from({ length: blocks }, () => n);
    this.#whitener = new Whitener(sqrtInformation, n);
    this.sqrtInformation = this.#whitener.a;
    this.#angular = Array.from({ length: n }, (_, i) => angular[i] === true);
    this.error = new Float64Array(n);
  }

  public abstract evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean;

  /** Wraps the angular components of `error` in place, then writes `A·error` to `residuals`. */
  protected whiten(residuals: Float64Array): void {
    const e = this.error;
    const n = e.length;
    for (let i = 0; i < n; i++) {
      if (this.#angular[i]!) {
        e[i] = wrapAngle(e[i]!);
      }
    }
    this.#whitener.vector(e, residuals);
  }
}
