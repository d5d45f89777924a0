import { WhitenedCost } from "./WhitenedCost";
import { wrapAngle } from "./angles";
import { eulerRateMatrix, rotationMatrix, rpyOfQuaternion } from "./rotation3d";

const LOCAL = [3, 3, 3, 3, 3, 3, 3, 3, 3, 3];
const AMBIENT = [3, 4, 3, 3, 3, 3, 4, 3, 3, 3];
/**
 * The working matrices of `computeError` (R(q1), the Euler-rate matrices of q1 and q2, both
 * orientations' roll/pitch/yaw), shared by every instance: each evaluation writes them before it
 * reads them.
 */
const SCRATCH = { r: new Float64Array(9), e1: new Float64Array(9), e2: new Float64Array(9), rpy: new Float64Array(6) };

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
    const J = this.rawJacobians;
    const put = (b: number, row: number, col: number, v: number): void => {
      J[b]![row * 3 + col] = v;
    };
    for (let b = 0; b < 10; b++) {
      if (wanted[b] === true) {
        J[b]!.fill(0);
      }
    }
    for (let i = 0; i < 3; i++) {
      if (wanted[0] === true) {put(0, i, i, -1);}
      if (wanted[5] === true) {put(5, i, i, 1);}
      if (wanted[2] === true) {put(2, 6 + i, i, -1);}
      if (wanted[7] === true) {put(7, 6 + i, i, 1);}
      if (wanted[3] === true) {put(3, 9 + i, i, -1);}
      if (wanted[8] === true) {put(8, 9 + i, i, 1);}
      if (wanted[4] === true) {
        put(4, 6 + i, i, -dt);
        put(4, 12 + i, i, -1);
      }
      if (wanted[9] === true) {put(9, 12 + i, i, 1);}
      for (let c = 0; c < 3; c++) {
        if (wanted[2] === true) {put(2, i, c, -r[i * 3 + c]! * dt);}
        if (wanted[4] === true) {put(4, i, c, -r[i * 3 + c]! * h);}
        if (wanted[3] === true) {put(3, 3 + i, c, -e1[i * 3 + c]! * dt);}
      }
    }
    if (wanted[1] === true) {
      // Position rows: −∂(R·u)/∂δ = R·[u]×.
      const skew = [0, -uz, uy, uz, 0, -ux, -uy, ux, 0];
      for (let i = 0; i < 3; i++) {
        for (let c = 0; c < 3; c++) {
          put(1, i, c, r[i * 3]! * skew[c]! + r[i * 3 + 1]! * skew[3 + c]! + r[i * 3 + 2]! * skew[6 + c]!);
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
      const d = [
        1 + dt * (cr * tp * wp - sr * tp * wy), dt * ((sr * wp + cr * wy) / (cp * cp)), 0,
        dt * (-sr * wp - cr * wy), 1, 0,
        dt * ((cr * wp - sr * wy) / cp), dt * (((sr * wp + cr * wy) * sp) / (cp * cp)), 1,
      ];
      for (let i = 0; i < 3; i++) {
        for (let c = 0; c < 3; c++) {
          put(1, 3 + i, c, -(d[i * 3]! * e1[c]! + d[i * 3 + 1]! * e1[3 + c]! + d[i * 3 + 2]! * e1[6 + c]!));
        }
      }
    }
    if (wanted[6] === true) {
      const e2 = SCRATCH.e2;
      eulerRateMatrix(rpy[3]!, rpy[4]!, e2);
      for (let i = 0; i < 3; i++) {
        for (let c = 0; c < 3; c++) {
          put(6, 3 + i, c, e2[i * 3 + c]!);
        }
      }
    }
    return true;
  }
}
