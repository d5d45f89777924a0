import { WhitenedCost } from "./WhitenedCost";
import { wrapAngle } from "./angles";
import { eulerRateMatrix, rotationMatrix, rpyOfQuaternion } from "./rotation3d";

const LOCAL = [3, 3, 3, 3, 3, 3, 3, 3, 3, 3];
const AMBIENT = [3, 4, 3, 3, 3, 3, 4, 3, 3, 3];
/**
 * The working matrices of `computeError` (R(q1), the Euler-rate matrices of q1 and q2, both
 * orientations' roll/pitch/yaw, and two 3 × 3 Jacobian factors), shared by every instance: each
 * evaluation writes them before it reads them, so an evaluation builds no matrices of its own.
 */
const SCRATCH = {
  r: new Float64Array(9),
  e1: new Float64Array(9),
  e2: new Float64Array(9),
  rpy: new Float64Array(6),
  /** [u]× of the position step u (the orientation Jacobian of the position rows). */
  skew: new Float64Array(9),
  /** I + dt·∂(E·ω)/∂rpy (the orientation Jacobian of the orientation rows). */
  d: new Float64Array(9),
};

/**
 * Cost of fuse_models' Omnidirectional3DStateKinematicConstraint over the 10 state variables
 * [p1, q1, v1, ω1, a1, p2, q2, v2, ω2, a2]: the raw error (15 values) is the second state minus
 * the prediction from the first (`predictOmnidirectional3D`), orientations compared as
 * roll/pitch/yaw and wrapped, as fuse's functor does; `r = A·e` with A 15 × 15 (from the process
 * noise Q·dt). Jacobians are analytic on the tangent steps (q ⊗ exp(δ): ∂rpy/∂δ = E(roll, pitch),
 * ∂(R·u)/∂δ = −R·[u]×).
 */
export class Omnidirectional3DStateCost extends WhitenedCost {
  readonly #dt: number;

  /** @param dt seconds; @param sqrtInformation 15 × 15 row-major. */
  public constructor(dt: number, sqrtInformation: ArrayLike<number>) {
    super(15, sqrtInformation, AMBIENT, LOCAL, "Omnidirectional3DStateCost");
    this.#dt = dt;
  }

  protected computeError(parameters: readonly Float64Array[], wanted: readonly boolean[] | null): boolean {
    const [p1, q1, v1, w1, a1, p2, q2, v2, w2, a2] = parameters as [
      Float64Array, Float64Array, Float64Array, Float64Array, Float64Array,
      Float64Array, Float64Array, Float64Array, Float64Array, Float64Array,
    ];
    const dt = this.#dt;
    const h = 0.5 * dt * dt;
    const { r, rpy, e1 } = SCRATCH;
    const e = this.error;
    rotationMatrix(q1, 0, r);
    rpyOfQuaternion(q1, 0, rpy, 0);
    rpyOfQuaternion(q2, 0, rpy, 3);
    eulerRateMatrix(rpy[0]!, rpy[1]!, e1);
    const ux = v1[0]! * dt + a1[0]! * h;
    const uy = v1[1]! * dt + a1[1]! * h;
    const uz = v1[2]! * dt + a1[2]! * h;
    for (let i = 0; i < 3; i++) {
      e[i] = p2[i]! - (p1[i]! + r[i * 3]! * ux + r[i * 3 + 1]! * uy + r[i * 3 + 2]! * uz);
      const rate = e1[i * 3]! * w1[0]! + e1[i * 3 + 1]! * w1[1]! + e1[i * 3 + 2]! * w1[2]!;
      e[3 + i] = wrapAngle(rpy[3 + i]! - (rpy[i]! + rate * dt));
      e[6 + i] = v2[i]! - (v1[i]! + a1[i]! * dt);
      e[9 + i] = w2[i]! - w1[i]!;
      e[12 + i] = a2[i]! - a1[i]!;
    }
    if (wanted == null) {
      return true;
    }
    // Each Jacobian is 15 × 3 row-major: entry (row, col) at row * 3 + col.
    const J = this.rawJacobians;
    for (let b = 0; b < 10; b++) {
      if (wanted[b] === true) {
        J[b]!.fill(0);
      }
    }
    const j0 = J[0]!;
    const j1 = J[1]!;
    const j2 = J[2]!;
    const j3 = J[3]!;
    const j4 = J[4]!;
    const j5 = J[5]!;
    const j6 = J[6]!;
    const j7 = J[7]!;
    const j8 = J[8]!;
    const j9 = J[9]!;
    for (let i = 0; i < 3; i++) {
      if (wanted[0] === true) {j0[i * 3 + i] = -1;}
      if (wanted[5] === true) {j5[i * 3 + i] = 1;}
      if (wanted[2] === true) {j2[(6 + i) * 3 + i] = -1;}
      if (wanted[7] === true) {j7[(6 + i) * 3 + i] = 1;}
      if (wanted[3] === true) {j3[(9 + i) * 3 + i] = -1;}
      if (wanted[8] === true) {j8[(9 + i) * 3 + i] = 1;}
      if (wanted[4] === true) {
        j4[(6 + i) * 3 + i] = -dt;
        j4[(12 + i) * 3 + i] = -1;
      }
      if (wanted[9] === true) {j9[(12 + i) * 3 + i] = 1;}
      for (let c = 0; c < 3; c++) {
        if (wanted[2] === true) {j2[i * 3 + c] = -r[i * 3 + c]! * dt;}
        if (wanted[4] === true) {j4[i * 3 + c] = -r[i * 3 + c]! * h;}
        if (wanted[3] === true) {j3[(3 + i) * 3 + c] = -e1[i * 3 + c]! * dt;}
      }
    }
    if (wanted[1] === true) {
      // Position rows: −∂(R·u)/∂δ = R·[u]×.
      const skew = SCRATCH.skew;
      skew[0] = 0;
      skew[1] = -uz;
      skew[2] = uy;
      skew[3] = uz;
      skew[4] = 0;
      skew[5] = -ux;
      skew[6] = -uy;
      skew[7] = ux;
      skew[8] = 0;
      for (let i = 0; i < 3; i++) {
        for (let c = 0; c < 3; c++) {
          j1[i * 3 + c] = r[i * 3]! * skew[c]! + r[i * 3 + 1]! * skew[3 + c]! + r[i * 3 + 2]! * skew[6 + c]!;
        }
      }
      // Orientation rows: −(I + dt·∂(E·ω)/∂rpy)·E.
      const sr = Math.sin(rpy[0]!);
      const cr = Math.cos(rpy[0]!);
      const sp = Math.sin(rpy[1]!);
      const cp = Math.cos(rpy[1]!);
      const tp = sp / cp;
      const wp = w1[1]!;
      const wy = w1[2]!;
      const d = SCRATCH.d;
      d[0] = 1 + dt * (cr * tp * wp - sr * tp * wy);
      d[1] = dt * ((sr * wp + cr * wy) / (cp * cp));
      d[2] = 0;
      d[3] = dt * (-sr * wp - cr * wy);
      d[4] = 1;
      d[5] = 0;
      d[6] = dt * ((cr * wp - sr * wy) / cp);
      d[7] = dt * (((sr * wp + cr * wy) * sp) / (cp * cp));
      d[8] = 1;
      for (let i = 0; i < 3; i++) {
        for (let c = 0; c < 3; c++) {
          j1[(3 + i) * 3 + c] = -(d[i * 3]! * e1[c]! + d[i * 3 + 1]! * e1[3 + c]! + d[i * 3 + 2]! * e1[6 + c]!);
        }
      }
    }
    if (wanted[6] === true) {
      const e2 = SCRATCH.e2;
      eulerRateMatrix(rpy[3]!, rpy[4]!, e2);
      for (let i = 0; i < 3; i++) {
        for (let c = 0; c < 3; c++) {
          j6[(3 + i) * 3 + c] = e2[i * 3 + c]!;
        }
      }
    }
    return true;
  }
}
