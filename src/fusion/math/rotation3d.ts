import { quaternionLog } from "./manifold";
import { quatFromRpy } from "../../geometry";

/**
 * 3D rotation math on quaternions stored as fuse stores them, (w, x, y, z) at `q[at …]`, for the
 * 3D cost functions: rotation matrices, roll/pitch/yaw as fuse_core's getRoll/getPitch/getYaw
 * (tf2's convention: R = Rz(yaw)·Ry(pitch)·Rx(roll)), the Euler-rate matrix, and the inverse
 * right Jacobian of SO(3). Matrices are row-major 3×3 written into `out`. Nothing allocates except
 * quaternionOfRpy (one tuple from the geometry layer).
 */

/** out ← R(q) (q unit). */
export function rotationMatrix(q: ArrayLike<number>, at: number, out: Float64Array): void {
  const w = q[at]!;
  const x = q[at + 1]!;
  const y = q[at + 2]!;
  const z = q[at + 3]!;
  out[0] = 1 - 2 * (y * y + z * z);
  out[1] = 2 * (x * y - w * z);
  out[2] = 2 * (x * z + w * y);
  out[3] = 2 * (x * y + w * z);
  out[4] = 1 - 2 * (x * x + z * z);
  out[5] = 2 * (y * z - w * x);
  out[6] = 2 * (x * z - w * y);
  out[7] = 2 * (y * z + w * x);
  out[8] = 1 - 2 * (x * x + y * y);
}

/** out[at …] ← (roll, pitch, yaw) of q, as fuse_core::getRoll / getPitch / getYaw. */
export function rpyOfQuaternion(q: ArrayLike<number>, qAt: number, out: Float64Array, at: number): void {
  const w = q[qAt]!;
  const x = q[qAt + 1]!;
  const y = q[qAt + 2]!;
  const z = q[qAt + 3]!;
  out[at] = Math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y));
  const sinp = 2 * (w * y - z * x);
  out[at + 1] = Math.abs(sinp) >= 1 ? (Math.sign(sinp) * Math.PI) / 2 : Math.asin(sinp);
  out[at + 2] = Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
}

/** out[at …] ← the (w, x, y, z) quaternion of roll, pitch, yaw (tf2's setRPY, geometry's quatFromRpy). */
export function quaternionOfRpy(roll: number, pitch: number, yaw: number, out: Float64Array, at: number): void {
  const [x, y, z, w] = quatFromRpy(roll, pitch, yaw);
  out[at] = w;
  out[at + 1] = x;
  out[at + 2] = y;
  out[at + 3] = z;
}

/**
 * out ← E(roll, pitch): Euler-angle rates = E · body angular velocity. It is also the derivative
 * of (roll, pitch, yaw)(q ⊗ exp(δ)) with respect to δ at δ = 0 (singular at pitch = ±π/2).
 * With `trig`, also writes sin(roll), cos(roll) and cos(pitch) there, for callers that need them
 * too (the same values E is built from).
 */
export function eulerRateMatrix(roll: number, pitch: number, out: Float64Array, trig?: Float64Array): void {
  const sr = Math.sin(roll);
  const cr = Math.cos(roll);
  const tp = Math.tan(pitch);
  const cp = Math.cos(pitch);
  const cpi = 1 / cp;
  if (trig != undefined) {
    trig[0] = sr;
    trig[1] = cr;
    trig[2] = cp;
  }
  out[0] = 1;
  out[1] = sr * tp;
  out[2] = cr * tp;
  out[3] = 0;
  out[4] = cr;
  out[5] = -sr;
  out[6] = 0;
  out[7] = sr * cpi;
  out[8] = cr * cpi;
}

/** out ← J_r⁻¹(φ), the inverse right Jacobian of SO(3): d log(exp(φ)·exp(δ))/dδ at δ = 0. */
export function inverseRightJacobian(px: number, py: number, pz: number, out: Float64Array): void {
  const t2 = px * px + py * py + pz * pz;
  const t = Math.sqrt(t2);
  // c = 1/θ² − (1 + cos θ)/(2θ sin θ), → 1/12 as θ → 0.
  const c = t < 1e-4 ? 1 / 12 + t2 / 720 : 1 / t2 - (1 + Math.cos(t)) / (2 * t * Math.sin(t));
  // [φ]× and [φ]×²
  const k = [0, -pz, py, pz, 0, -px, -py, px, 0];
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      let k2 = 0;
      for (let m = 0; m < 3; m++) {
        k2 += k[i * 3 + m]! * k[m * 3 + j]!;
      }
      out[i * 3 + j] = (i === j ? 1 : 0) + 0.5 * k[i * 3 + j]! + c * k2;
    }
  }
}

/** out[at …] ← a ⊗ b (Hamilton product, (w, x, y, z)). `out` may alias neither input. */
export function quaternionMultiply(
  a: ArrayLike<number>,
  aAt: number,
  b: ArrayLike<number>,
  bAt: number,
  out: Float64Array,
  at: number,
): void {
  const aw = a[aAt]!;
  const ax = a[aAt + 1]!;
  const ay = a[aAt + 2]!;
  const az = a[aAt + 3]!;
  const bw = b[bAt]!;
  const bx = b[bAt + 1]!;
  const by = b[bAt + 2]!;
  const bz = b[bAt + 3]!;
  out[at] = aw * bw - ax * bx - ay * by - az * bz;
  out[at + 1] = aw * bx + ax * bw + ay * bz - az * by;
  out[at + 2] = aw * by - ax * bz + ay * bw + az * bx;
  out[at + 3] = aw * bz + ax * by - ay * bx + az * bw;
}

/** out[at …] ← the conjugate (inverse of a unit quaternion). */
export function quaternionConjugate(q: ArrayLike<number>, qAt: number, out: Float64Array, at: number): void {
  out[at] = q[qAt]!;
  out[at + 1] = -q[qAt + 1]!;
  out[at + 2] = -q[qAt + 2]!;
  out[at + 3] = -q[qAt + 3]!;
}

/** out[at …] ← log(q) as a rotation vector (shorter arc). */
export function rotationVector(q: ArrayLike<number>, qAt: number, out: Float64Array, at: number): void {
  quaternionLog(q[qAt]!, q[qAt + 1]!, q[qAt + 2]!, q[qAt + 3]!, out, at);
}

/** out ← a·b for row-major 3×3 matrices (out distinct from a and b). */
export function multiply3(a: ArrayLike<number>, b: ArrayLike<number>, out: Float64Array): void {
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      out[i * 3 + j] = a[i * 3]! * b[j]! + a[i * 3 + 1]! * b[3 + j]! + a[i * 3 + 2]! * b[6 + j]!;
    }
  }
}
