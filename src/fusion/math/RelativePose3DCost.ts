import { WhitenedCost } from "./WhitenedCost";
import {
  inverseRightJacobian,
  multiply3,
  quaternionConjugate,
  quaternionMultiply,
  rotationMatrix,
  rotationVector,
} from "./rotation3d";
import { copyNumbers } from "../core/copyNumbers";

/**
 * Cost of fuse's RelativePose3DStampedConstraint over [p1, q1, p2, q2]: the raw error is
 * `[R1ᵀ(p2 − p1) − Δp ; log(Δq⁻¹ ⊗ q1⁻¹ ⊗ q2)]` (Δ expressed in frame 1) and `r = A·e`, A k × 6.
 * Analytic Jacobians on the tangent steps (q ⊗ exp(δ)): position part −R1ᵀ, [v]×, R1ᵀ; rotation
 * part −J_l⁻¹(φ)·R(Δq)ᵀ for q1 and J_r⁻¹(φ) for q2.
 */
export class RelativePose3DCost extends WhitenedCost {
  readonly #delta: Float64Array;
  readonly #dInv = new Float64Array(4);
  readonly #rDeltaT = new Float64Array(9);
  readonly #r1 = new Float64Array(9);
  readonly #t4 = new Float64Array(4);
  readonly #t4b = new Float64Array(4);
  readonly #m = new Float64Array(9);
  readonly #m2 = new Float64Array(9);
  readonly #m3 = new Float64Array(9);

  /**
   * @param delta dx, dy, dz, dqw, dqx, dqy, dqz (in frame 1).
   * @param sqrtInformation k × 6 row-major.
   */
  public constructor(delta: ArrayLike<number>, sqrtInformation: ArrayLike<number>) {
    super(6, sqrtInformation, [3, 4, 3, 4], [3, 3, 3, 3], "RelativePose3DCost");
    if (delta.length !== 7) {
      throw new RangeError(`RelativePose3DCost: the delta has ${delta.length} values, expected 7`);
    }
    this.#delta = copyNumbers(delta);
    quaternionConjugate(this.#delta, 3, this.#dInv, 0);
    const rd = new Float64Array(9);
    rotationMatrix(this.#delta, 3, rd);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        this.#rDeltaT[i * 3 + j] = rd[j * 3 + i]!;
      }
    }
  }

  protected computeError(parameters: readonly Float64Array[], wanted: readonly boolean[] | null): boolean {
    const p1 = parameters[0]!;
    const q1 = parameters[1]!;
    const p2 = parameters[2]!;
    const q2 = parameters[3]!;
    const e = this.error;
    const r1 = this.#r1;
    rotationMatrix(q1, 0, r1);
    const dx = p2[0]! - p1[0]!;
    const dy = p2[1]! - p1[1]!;
    const dz = p2[2]! - p1[2]!;
    // v = R1ᵀ·(p2 − p1)
    const vx = r1[0]! * dx + r1[3]! * dy + r1[6]! * dz;
    const vy = r1[1]! * dx + r1[4]! * dy + r1[7]! * dz;
    const vz = r1[2]! * dx + r1[5]! * dy + r1[8]! * dz;
    e[0] = vx - this.#delta[0]!;
    e[1] = vy - this.#delta[1]!;
    e[2] = vz - this.#delta[2]!;
    quaternionConjugate(q1, 0, this.#t4, 0);
    quaternionMultiply(this.#t4, 0, q2, 0, this.#t4b, 0);
    quaternionMultiply(this.#dInv, 0, this.#t4b, 0, this.#t4, 0);
    rotationVector(this.#t4, 0, e, 3);
    if (wanted == null) {
      return true;
    }
    const set = (b: number, row0: number, m: ArrayLike<number>, sign: number): void => {
      const j = this.rawJacobians[b]!;
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 3; c++) {
          j[(row0 + r) * 3 + c] = sign * m[r * 3 + c]!;
        }
      }
    };
    const r1t = this.#m;
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        r1t[i * 3 + j] = r1[j * 3 + i]!;
      }
    }
    if (wanted[0] === true) {
      this.rawJacobians[0]!.fill(0);
      set(0, 0, r1t, -1);
    }
    if (wanted[2] === true) {
      this.rawJacobians[2]!.fill(0);
      set(2, 0, r1t, 1);
    }
    if (wanted[1] === true) {
      // ∂v/∂δ1 = [v]×; ∂φ/∂δ1 = −J_l⁻¹(φ)·R(Δq)ᵀ = −J_r⁻¹(−φ)·R(Δq)ᵀ
      set(1, 0, [0, -vz, vy, vz, 0, -vx, -vy, vx, 0], 1);
      inverseRightJacobian(-e[3]!, -e[4]!, -e[5]!, this.#m2);
      multiply3(this.#m2, this.#rDeltaT, this.#m3);
      set(1, 3, this.#m3, -1);
    }
    if (wanted[3] === true) {
      this.rawJacobians[3]!.fill(0);
      inverseRightJacobian(e[3]!, e[4]!, e[5]!, this.#m2);
      set(3, 3, this.#m2, 1);
    }
    return true;
  }
}
