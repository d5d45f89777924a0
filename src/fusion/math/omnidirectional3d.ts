import { wrapAngle } from "./angles";
import { eulerRateMatrix, quaternionOfRpy, rotationMatrix, rpyOfQuaternion } from "./rotation3d";

/**
 * The Omnidirectional3D state's 15 components in order (orientation as roll, pitch, yaw), as
 * fuse's parameters name them (process noise, ignition).
 */
export const OMNIDIRECTIONAL_STATE_COMPONENTS: readonly string[] = ["x", "y", "z", "roll", "pitch", "yaw", "vx", "vy", "vz", "vroll", "vpitch", "vyaw", "ax", "ay", "az"];

/**
 * predictOmnidirectional3D's working matrices (it runs to completion and is never re-entered).
 * Reused: a 3 × 3 matrix is over V8's 64-byte limit for typed arrays kept in the heap, so each new
 * one was a separate allocation outside it.
 */
const PREDICT_SCRATCH = { r: new Float64Array(9), rpy: new Float64Array(3), e: new Float64Array(9) };

/**
 * fuse_models' Omnidirectional3D prediction (robot_localization's 3D model): the state is
 * position (world), orientation, body-frame linear velocity, body-frame angular velocity (roll,
 * pitch, yaw rates about the body axes) and body-frame linear acceleration; over dt
 *
 *   p₂ = p₁ + R(q₁)·(v₁·dt + ½a₁·dt²),  rpy₂ = wrap(rpy₁ + E(roll₁, pitch₁)·ω₁·dt),
 *   v₂ = v₁ + a₁·dt,  ω₂ = ω₁,  a₂ = a₁.
 *
 * `state` is the 16-value layout x, y, z, qw, qx, qy, qz, vx, vy, vz, vroll, vpitch, vyaw, ax, ay,
 * az; `out` receives the predicted state in the same layout (normalized quaternion).
 */
export function predictOmnidirectional3D(state: ArrayLike<number>, dt: number, out: Float64Array): void {
  const { r, rpy, e } = PREDICT_SCRATCH;
  rotationMatrix(state, 3, r);
  rpyOfQuaternion(state, 3, rpy, 0);
  const h = 0.5 * dt * dt;
  const ux = state[7]! * dt + state[13]! * h;
  const uy = state[8]! * dt + state[14]! * h;
  const uz = state[9]! * dt + state[15]! * h;
  out[0] = state[0]! + r[0]! * ux + r[1]! * uy + r[2]! * uz;
  out[1] = state[1]! + r[3]! * ux + r[4]! * uy + r[5]! * uz;
  out[2] = state[2]! + r[6]! * ux + r[7]! * uy + r[8]! * uz;
  eulerRateMatrix(rpy[0]!, rpy[1]!, e);
  const w0 = state[10]!;
  const w1 = state[11]!;
  const w2 = state[12]!;
  const roll = wrapAngle(rpy[0]! + (e[0]! * w0 + e[1]! * w1 + e[2]! * w2) * dt);
  const pitch = wrapAngle(rpy[1]! + (e[3]! * w0 + e[4]! * w1 + e[5]! * w2) * dt);
  const yaw = wrapAngle(rpy[2]! + (e[6]! * w0 + e[7]! * w1 + e[8]! * w2) * dt);
  quaternionOfRpy(roll, pitch, yaw, out, 3);
  out[7] = state[7]! + state[13]! * dt;
  out[8] = state[8]! + state[14]! * dt;
  out[9] = state[9]! + state[15]! * dt;
  out[10] = w0;
  out[11] = w1;
  out[12] = w2;
  out[13] = state[13]!;
  out[14] = state[14]!;
  out[15] = state[15]!;
}
