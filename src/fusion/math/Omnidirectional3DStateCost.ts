import type { JacobianPattern, PatternedCost } from "./JacobianPattern";
import { WhitenedCost, type WhitenedCostOptions } from "./WhitenedCost";
import { wrapAngle } from "./angles";
import { eulerRateMatrix, rotationMatrix, rpyOfQuaternion } from "./rotation3d";

const LOCAL = [3, 3, 3, 3, 3, 3, 3, 3, 3, 3];
const AMBIENT = [3, 4, 3, 3, 3, 3, 4, 3, 3, 3];
/** Entries of one block's Jacobian (15 × 3). */
const BLOCK = 45;
/**
 * Which Jacobian entries `#whitenedJacobians` can write other than ±0, per block and column (bit
 * q = residual q): rows 0–2 are the position, 3–5 the orientation, 6–8 the linear velocity, 9–11
 * the angular velocity, 12–14 the linear acceleration. p1, p2, v2, ω2 and a2 each reach their own
 * rows on the diagonal; q1 the position and orientation rows; v1 the position rows and its own
 * velocity rows' diagonal; ω1 the orientation rows through the Euler-rate matrix E (whose first
 * column is [1, 0, 0] whatever the angles) and its own rows; a1 the position rows, the velocity
 * rows' and its own diagonal; q2 the orientation rows through E.
 */
const DIAGONAL_PATTERN: JacobianPattern = (() => {
  const own = (row: number): number[] => [0, 1, 2].map((c) => 1 << (row + c));
  const rows = (first: number): number[] => [0b111 << first, 0b111 << first, 0b111 << first];
  const euler = [1 << 3, 0b111 << 3, 0b111 << 3];
  const or = (...masks: number[][]): number[] => [0, 1, 2].map((c) => masks.reduce((m, x) => m | x[c]!, 0));
  return Object.freeze({
    numResiduals: 15,
    rowMasks: Object.freeze([
      own(0), // p1
      or(rows(0), rows(3)), // q1
      or(rows(0), own(6)), // v1
      or(euler, own(9)), // ω1
      or(rows(0), own(6), own(12)), // a1
      own(0), // p2
      euler, // q2
      own(6), // v2
      own(9), // ω2
      own(12), // a2
    ]),
  });
})();
/** The diagonal of A = I: `#whitenedJacobians` with it gives the raw Jacobians. */
const UNIT_DIAGONAL = new Float64Array(15).fill(1);
/** The raw Jacobian buffers asked for (null for the others), refilled by every evaluation. */
const RAW_WANTED: (Float64Array | null)[] = new Array<Float64Array | null>(10).fill(null);
/**
 * The working values of an evaluation (R(q1), the Euler-rate matrices of q1 and q2, both
 * orientations' roll/pitch/yaw, two 3 × 3 Jacobian factors, the position step and q1's roll and
 * pitch trigonometry), shared by every instance: each evaluation writes them before it reads them,
 * so an evaluation builds no matrices of its own.
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
  /** The position step u = v1·dt + a1·dt²/2. */
  u: new Float64Array(3),
  /** sin(roll1), cos(roll1), cos(pitch1). */
  trig: new Float64Array(3),
};

/**
 * Cost of fuse_models' Omnidirectional3DStateKinematicConstraint over the 10 state variables
 * [p1, q1, v1, ω1, a1, p2, q2, v2, ω2, a2]: the raw error (15 values) is the second state minus
 * the prediction from the first (`predictOmnidirectional3D`), orientations compared as
 * roll/pitch/yaw and wrapped, as fuse's functor does; `r = A·e` with A 15 × 15 (from the process
 * noise Q·dt). Jacobians are analytic on the tangent steps (q ⊗ exp(δ): ∂rpy/∂δ = E(roll, pitch),
 * ∂(R·u)/∂δ = −R·[u]×). With a diagonal A (a diagonal process noise) the whitened Jacobians are
 * written directly, each entry `0 + A[row, row]·raw`: the bits the general whitening gives.
 */
export class Omnidirectional3DStateCost extends WhitenedCost implements PatternedCost {
  readonly #dt: number = 0;
  /**
   * With A diagonal, which entries can be non-zero (the others are written as ±0 whatever the
   * states), so the solver forms JᵀJ from those alone; undefined for a dense A.
   */
  public readonly jacobianPattern: JacobianPattern | undefined;

  /**
   * @param dt seconds; @param sqrtInformation 15 × 15 row-major; @param options see
   * `WhitenedCostOptions` (the results are the same bits with every option).
   */
  public constructor(dt: number, sqrtInformation: ArrayLike<number>, options?: WhitenedCostOptions) {
    super(15, sqrtInformation, AMBIENT, LOCAL, "Omnidirectional3DStateCost", options);
    this.#dt = dt;
    this.jacobianPattern = this.whitener.diagonal == null ? undefined : DIAGONAL_PATTERN;
  }

  public override evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    const diagonal = this.whitener.diagonal;
    if (diagonal == null) {
      return super.evaluate(parameters, residuals, jacobians);
    }
    this.#error(parameters);
    this.whitener.vector(this.error, residuals);
    if (jacobians != null) {
      this.#whitenedJacobians(parameters, diagonal, jacobians);
    }
    return true;
  }

  protected computeError(parameters: readonly Float64Array[], wanted: readonly boolean[] | null): boolean {
    this.#error(parameters);
    if (wanted != null) {
      // The raw Jacobians are the whitened ones of A = I: 0 + 1·x is x, but +0 for −0, which
      // the general whitening turns into +0 all the same.
      const raw = RAW_WANTED;
      for (let b = 0; b < 10; b++) {
        raw[b] = wanted[b] === true ? this.rawJacobians[b]! : null;
      }
      this.#whitenedJacobians(parameters, UNIT_DIAGONAL, raw);
    }
    return true;
  }

  /** Fills `error` and SCRATCH's r, e1, rpy, u and trig. */
  #error(parameters: readonly Float64Array[]): void {
    const p1 = parameters[0]!;
    const q1 = parameters[1]!;
    const v1 = parameters[2]!;
    const w1 = parameters[3]!;
    const a1 = parameters[4]!;
    const p2 = parameters[5]!;
    const q2 = parameters[6]!;
    const v2 = parameters[7]!;
    const w2 = parameters[8]!;
    const a2 = parameters[9]!;
    const dt = this.#dt;
    const h = 0.5 * dt * dt;
    const { r, rpy, e1, u, trig } = SCRATCH;
    const e = this.error;
    rotationMatrix(q1, 0, r);
    rpyOfQuaternion(q1, 0, rpy, 0);
    rpyOfQuaternion(q2, 0, rpy, 3);
    // The sines and cosines E(roll1, pitch1) is built from are kept for ∂/∂q1.
    eulerRateMatrix(rpy[0]!, rpy[1]!, e1, trig);
    const ux = v1[0]! * dt + a1[0]! * h;
    const uy = v1[1]! * dt + a1[1]! * h;
    const uz = v1[2]! * dt + a1[2]! * h;
    u[0] = ux;
    u[1] = uy;
    u[2] = uz;
    for (let i = 0; i < 3; i++) {
      e[i] = p2[i]! - (p1[i]! + r[i * 3]! * ux + r[i * 3 + 1]! * uy + r[i * 3 + 2]! * uz);
      const rate = e1[i * 3]! * w1[0]! + e1[i * 3 + 1]! * w1[1]! + e1[i * 3 + 2]! * w1[2]!;
      e[3 + i] = wrapAngle(rpy[3 + i]! - (rpy[i]! + rate * dt));
      e[6 + i] = v2[i]! - (v1[i]! + a1[i]! * dt);
      e[9 + i] = w2[i]! - w1[i]!;
      e[12 + i] = a2[i]! - a1[i]!;
    }
  }

  /** I + dt·∂(E·ω)/∂rpy at q1 into SCRATCH.d (after `#error`). */
  #orientationFactor(w1: Float64Array): Float64Array {
    const { rpy, trig, d } = SCRATCH;
    const dt = this.#dt;
    const sr = trig[0]!;
    const cr = trig[1]!;
    const sp = Math.sin(rpy[1]!);
    const cp = trig[2]!;
    const tp = sp / cp;
    const wp = w1[1]!;
    const wy = w1[2]!;
    d[0] = 1 + dt * (cr * tp * wp - sr * tp * wy);
    d[1] = dt * ((sr * wp + cr * wy) / (cp * cp));
    d[2] = 0;
    d[3] = dt * (-sr * wp - cr * wy);
    d[4] = 1;
    d[5] = 0;
    d[6] = dt * ((cr * wp - sr * wy) / cp);
    d[7] = dt * (((sr * wp + cr * wy) * sp) / (cp * cp));
    d[8] = 1;
    return d;
  }

  /** E(roll2, pitch2) into SCRATCH.e2 (after `#error`). */
  #rateMatrix2(): Float64Array {
    const { rpy, e2 } = SCRATCH;
    eulerRateMatrix(rpy[3]!, rpy[4]!, e2);
    return e2;
  }

  /**
   * The whitened Jacobians asked for, for a diagonal A (`s`, finite and non-zero) (after
   * `#error`): every entry the raw Jacobian leaves zero is +0, what the general whitening gives
   * (0 + s·±0); every other is 0 + s[row]·raw. With `s` all ones, the raw Jacobians.
   */
  #whitenedJacobians(parameters: readonly Float64Array[], s: Float64Array, jacobians: readonly (Float64Array | null)[]): void {
    const dt = this.#dt;
    const h = 0.5 * dt * dt;
    const { r, e1, u } = SCRATCH;
    const j0 = jacobians[0];
    if (j0) {
      j0.fill(0, 0, BLOCK);
      for (let i = 0; i < 3; i++) {
        j0[i * 3 + i] = 0 + s[i]! * -1;
      }
    }
    const j5 = jacobians[5];
    if (j5) {
      j5.fill(0, 0, BLOCK);
      for (let i = 0; i < 3; i++) {
        j5[i * 3 + i] = 0 + s[i]! * 1;
      }
    }
    const j2 = jacobians[2];
    if (j2) {
      j2.fill(0, 0, BLOCK);
      for (let i = 0; i < 3; i++) {
        j2[(6 + i) * 3 + i] = 0 + s[6 + i]! * -1;
        for (let c = 0; c < 3; c++) {
          j2[i * 3 + c] = 0 + s[i]! * (-r[i * 3 + c]! * dt);
        }
      }
    }
    const j7 = jacobians[7];
    if (j7) {
      j7.fill(0, 0, BLOCK);
      for (let i = 0; i < 3; i++) {
        j7[(6 + i) * 3 + i] = 0 + s[6 + i]! * 1;
      }
    }
    const j3 = jacobians[3];
    if (j3) {
      j3.fill(0, 0, BLOCK);
      for (let i = 0; i < 3; i++) {
        j3[(9 + i) * 3 + i] = 0 + s[9 + i]! * -1;
        for (let c = 0; c < 3; c++) {
          j3[(3 + i) * 3 + c] = 0 + s[3 + i]! * (-e1[i * 3 + c]! * dt);
        }
      }
    }
    const j8 = jacobians[8];
    if (j8) {
      j8.fill(0, 0, BLOCK);
      for (let i = 0; i < 3; i++) {
        j8[(9 + i) * 3 + i] = 0 + s[9 + i]! * 1;
      }
    }
    const j4 = jacobians[4];
    if (j4) {
      j4.fill(0, 0, BLOCK);
      for (let i = 0; i < 3; i++) {
        j4[(6 + i) * 3 + i] = 0 + s[6 + i]! * -dt;
        j4[(12 + i) * 3 + i] = 0 + s[12 + i]! * -1;
        for (let c = 0; c < 3; c++) {
          j4[i * 3 + c] = 0 + s[i]! * (-r[i * 3 + c]! * h);
        }
      }
    }
    const j9 = jacobians[9];
    if (j9) {
      j9.fill(0, 0, BLOCK);
      for (let i = 0; i < 3; i++) {
        j9[(12 + i) * 3 + i] = 0 + s[12 + i]! * 1;
      }
    }
    const j1 = jacobians[1];
    if (j1) {
      // Rows 6 … 14 stay zero; rows 0 … 5 are all written.
      j1.fill(0, 18, BLOCK);
      const skew = positionSkew(u);
      for (let i = 0; i < 3; i++) {
        for (let c = 0; c < 3; c++) {
          j1[i * 3 + c] = 0 + s[i]! * (r[i * 3]! * skew[c]! + r[i * 3 + 1]! * skew[3 + c]! + r[i * 3 + 2]! * skew[6 + c]!);
        }
      }
      const d = this.#orientationFactor(parameters[3]!);
      for (let i = 0; i < 3; i++) {
        for (let c = 0; c < 3; c++) {
          j1[(3 + i) * 3 + c] =
            0 + s[3 + i]! * -(d[i * 3]! * e1[c]! + d[i * 3 + 1]! * e1[3 + c]! + d[i * 3 + 2]! * e1[6 + c]!);
        }
      }
    }
    const j6 = jacobians[6];
    if (j6) {
      j6.fill(0, 0, BLOCK);
      const e2 = this.#rateMatrix2();
      for (let i = 0; i < 3; i++) {
        for (let c = 0; c < 3; c++) {
          j6[(3 + i) * 3 + c] = 0 + s[3 + i]! * e2[i * 3 + c]!;
        }
      }
    }
  }
}

/** [u]× of the position step into SCRATCH.skew. */
function positionSkew(u: Float64Array): Float64Array {
  const skew = SCRATCH.skew;
  const ux = u[0]!;
  const uy = u[1]!;
  const uz = u[2]!;
  skew[0] = 0;
  skew[1] = -uz;
  skew[2] = uy;
  skew[3] = uz;
  skew[4] = 0;
  skew[5] = -ux;
  skew[6] = -uy;
  skew[7] = ux;
  skew[8] = 0;
  return skew;
}
