import type { CostFunction } from "./CostFunction";
import type { Whitener } from "./Whitener";
import { wrapAngle } from "./angles";
import { checkSqrtInformation } from "./checks";
import { whitenerFor } from "./whitenerFor";

/**
 * What AbsoluteCost and RelativeCost share: `r = A·e` for an error vector `e` of length n (one
 * entry per component of the variable), with the components flagged `angular` wrapped to [-π, π).
 * `A` is the `k × n` row-major square-root information. Subclasses write the raw error into
 * `error`, call `whiten`, and fill their Jacobians. Allocates nothing per evaluation; what does not
 * depend on the constraint's numbers (the block sizes, the angular flags, the error scratch) is
 * shared by the costs of the same shape, and the whitener by the costs of equal `A`.
 */
export abstract class LinearErrorCost implements CostFunction {
  public readonly numResiduals: number = 0;
  public readonly parameterBlockSizes: readonly number[];
  /** `A`, row-major `k × n`. */
  protected readonly sqrtInformation: Float64Array;
  /**
   * Scratch error vector (length n), shared by every LinearErrorCost of this n: `evaluate` fills
   * it and reads it back before it returns, and nothing it calls evaluates a cost.
   */
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
    this.#whitener = whitenerFor(sqrtInformation, n);
    this.sqrtInformation = this.#whitener.a;
    const shape = shapeOf(n, blocks, angular);
    this.parameterBlockSizes = shape.blockSizes;
    this.#angular = shape.angular;
    this.error = shape.error;
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

/** What the LinearErrorCosts of one shape share (never changed after it is made). */
interface Shape {
  readonly blockSizes: readonly number[];
  readonly angular: readonly boolean[];
  readonly error: Float64Array;
}

const SHAPES = new Map<string, Shape>();

/** The shared arrays for n components, `blocks` blocks, and these angular flags (missing = false). */
function shapeOf(n: number, blocks: number, angular: readonly boolean[]): Shape {
  let key = `${n}:${blocks}:`;
  for (let i = 0; i < n; i++) {
    key += angular[i] === true ? "1" : "0";
  }
  let shape = SHAPES.get(key);
  if (shape == undefined) {
    shape = {
      blockSizes: Object.freeze(Array.from({ length: blocks }, () => n)),
      angular: Object.freeze(Array.from({ length: n }, (_, i) => angular[i] === true)),
      error: errorScratch(n),
    };
    SHAPES.set(key, shape);
  }
  return shape;
}

const ERRORS: Float64Array[] = [];

function errorScratch(n: number): Float64Array {
  return (ERRORS[n] ??= new Float64Array(n));
}
