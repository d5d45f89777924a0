import { nonZeroRowMasks, type JacobianPattern, type PatternedCost } from "./JacobianPattern";
import { LinearErrorCost } from "./LinearErrorCost";
import { copyNumbers } from "../core/copyNumbers";

/**
 * What AbsoluteCost and RelativeCost share: blocks of the same size n combined with signs ±1,
 * minus a measured value, `e = Σ_b sign_b·x_b − measured` (angular components wrapped), and
 * `r = A·e`; block b's Jacobian is the constant `sign_b·A`. Allocates nothing per evaluation.
 * Its Jacobian pattern is A's: column c of every block may be non-zero in the rows where A's
 * column c is (`sign·±0` is ±0 elsewhere), so the solver adds only those products.
 */
export abstract class BlockDifferenceCost extends LinearErrorCost implements PatternedCost {
  /** A's non-zero pattern for every block (shared by every cost over an equal A); none above 32 rows. */
  public readonly jacobianPattern: JacobianPattern | undefined;
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
    this.jacobianPattern = patternOf(this.sqrtInformation, measured.length, signs.length, this.numResiduals);
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

/**
 * The patterns built so far, by A (costs over equal A share the Whitener's copy of it) and block
 * count: the solver finds the products of a pattern by the pattern object itself.
 */
const PATTERNS = new WeakMap<Float64Array, (JacobianPattern | undefined)[]>();

/** Every block's columns masked by the rows where A (rows × n) is not ±0; undefined above 32 rows. */
function patternOf(a: Float64Array, n: number, blocks: number, rows: number): JacobianPattern | undefined {
  if (rows > 32) {
    return undefined;
  }
  let byBlocks = PATTERNS.get(a);
  if (byBlocks == undefined) {
    byBlocks = [];
    PATTERNS.set(a, byBlocks);
  }
  let pattern = byBlocks[blocks];
  if (pattern == undefined) {
    const columns = nonZeroRowMasks(a, rows, n);
    pattern = Object.freeze({ numResiduals: rows, rowMasks: Object.freeze(Array.from({ length: blocks }, () => columns)) });
    byBlocks[blocks] = pattern;
  }
  return pattern;
}
