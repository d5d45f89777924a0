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
 * Cost of fuse's AbsoluteOrientation3DStampedEulerConstraint over [Orientation3D]: the raw error
 * is `wrap(rpy(q) − rpy_m)` (3 values) and `r = A·e` with A k × 3 (the selected axes). The
 * analytic Jacobian on the tangent step is the Euler-rate matrix E(roll, pitch) (singular at
 * pitch = ±π/2, where Euler angles are).
 */
export class AbsoluteOrientation3DEulerCost extends WhitenedCost {
  readonly #mean: Float64Array;

  /** @param mean roll, pitch, yaw; @param sqrtInformation k × 3. */
  public constructor(mean: ArrayLike<number>, sqrtInformation: ArrayLike<number>) {
    super(3, sqrtInformation, AMBIENT, LOCAL, "AbsoluteOrientation3DEulerCost");
    if (mean.length !== 3) {
      throw new RangeError(`AbsoluteOrientation3DEulerCost: the mean has ${mean.length} values, expected 3`);
    }
    this.#mean = copyNumbers(mean);
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
