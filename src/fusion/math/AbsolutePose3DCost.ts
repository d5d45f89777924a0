import { WhitenedCost } from "./WhitenedCost";
import { inverseRightJacobian, quaternionConjugate, quaternionMultiply, rotationVector } from "./rotation3d";
import { copyNumbers } from "../core/copyNumbers";

/**
 * Cost of fuse's AbsolutePose3DStampedConstraint over [Position3D, Orientation3D]: the raw error
 * is `[p − p_m ; log(q_m⁻¹ ⊗ q)]` (6 values, the orientation error as a rotation vector) and
 * `r = A·e` with `A` k × 6 (k < 6 for a partial measurement). Jacobians are analytic: `I` for the
 * position, `J_r⁻¹(φ)` for the orientation's tangent step (q ⊗ exp(δ)).
 */
export class AbsolutePose3DCost extends WhitenedCost {
  readonly #mean: Float64Array;
  readonly #inv = new Float64Array(4);
  readonly #d = new Float64Array(4);
  readonly #j = new Float64Array(9);

  /**
   * @param mean x, y, z, qw, qx, qy, qz.
   * @param sqrtInformation k × 6 row-major.
   */
  public constructor(mean: ArrayLike<number>, sqrtInformation: ArrayLike<number>) {
    super(6, sqrtInformation, [3, 4], [3, 3], "AbsolutePose3DCost");
    if (mean.length !== 7) {
      throw new RangeError(`AbsolutePose3DCost: the mean has ${mean.length} values, expected 7`);
    }
    this.#mean = copyNumbers(mean);
    quaternionConjugate(this.#mean, 3, this.#inv, 0);
  }

  protected computeError(parameters: readonly Float64Array[], wanted: readonly boolean[] | null): boolean {
    const p = parameters[0]!;
    const q = parameters[1]!;
    const e = this.error;
    const m = this.#mean;
    e[0] = p[0]! - m[0]!;
    e[1] = p[1]! - m[1]!;
    e[2] = p[2]! - m[2]!;
    quaternionMultiply(this.#inv, 0, q, 0, this.#d, 0);
    rotationVector(this.#d, 0, e, 3);
    if (wanted?.[0] === true) {
      const j = this.rawJacobians[0]!;
      j.fill(0);
      j[0] = 1;
      j[4] = 1;
      j[8] = 1;
    }
    if (wanted?.[1] === true) {
      const j = this.rawJacobians[1]!;
      j.fill(0);
      inverseRightJacobian(e[3]!, e[4]!, e[5]!, this.#j);
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 3; c++) {
          j[(3 + r) * 3 + c] = this.#j[r * 3 + c]!;
        }
      }
    }
    return true;
  }
}
