import type { JacobianPattern, PatternedCost } from "./JacobianPattern";
import { WhitenedCost } from "./WhitenedCost";
import { wrapAngle } from "./angles";
import { eulerRateMatrix, rpyOfQuaternion } from "./rotation3d";
import { copyNumbers } from "../core/copyNumbers";

const AMBIENT = [4];
const LOCAL = [3];
/**
 * E(roll, pitch) of the current evaluation, shared by every instance (written before it is read;
 * a 9-entry typed array is allocated outside V8's heap, one per constraint otherwise).
 */
const RATE = new Float64Array(9);
/**
 * Which Jacobian entries a diagonal A can make other than ±0: row q is A[q, q] times row q of the
 * Euler-rate matrix E, whose first column is [1, 0, 0] whatever the angles.
 */
const DIAGONAL_PATTERN: JacobianPattern = Object.freeze({
  numResiduals: 3,
  rowMasks: Object.freeze([Object.freeze([0b001, 0b111, 0b111])]),
});

/**
 * Cost of fuse's AbsoluteOrientation3DStampedEulerConstraint over [Orientation3D]: the raw error
 * is `wrap(rpy(q) − rpy_m)` (3 values) and `r = A·e` with A k × 3 (the selected axes). The
 * analytic Jacobian on the tangent step is the Euler-rate matrix E(roll, pitch) (singular at
 * pitch = ±π/2, where Euler angles are).
 */
export class AbsoluteOrientation3DEulerCost extends WhitenedCost implements PatternedCost {
  readonly #mean: Float64Array;
  /**
   * With A diagonal (all three axes, a diagonal covariance), which entries can be non-zero (the
   * others are written as ±0 whatever the orientation), so the solver forms JᵀJ from those alone;
   * undefined for any other A.
   */
  public readonly jacobianPattern: JacobianPattern | undefined;

  /** @param mean roll, pitch, yaw; @param sqrtInformation k × 3. */
  public constructor(mean: ArrayLike<number>, sqrtInformation: ArrayLike<number>) {
    super(3, sqrtInformation, AMBIENT, LOCAL, "AbsoluteOrientation3DEulerCost");
    if (mean.length !== 3) {
      throw new RangeError(`AbsoluteOrientation3DEulerCost: the mean has ${mean.length} values, expected 3`);
    }
    this.#mean = copyNumbers(mean);
    this.jacobianPattern = this.whitener.diagonal == null ? undefined : DIAGONAL_PATTERN;
  }

  protected computeError(parameters: readonly Float64Array[], wanted: readonly boolean[] | null): boolean {
    const e = this.error;
    rpyOfQuaternion(parameters[0]!, 0, e, 0);
    const roll = e[0]!;
    const pitch = e[1]!;
    for (let i = 0; i < 3; i++) {
      e[i] = wrapAngle(e[i]! - this.#mean[i]!);
    }
    if (wanted?.[0] === true) {
      eulerRateMatrix(roll, pitch, RATE);
      this.rawJacobians[0]!.set(RATE);
    }
    return true;
  }
}
