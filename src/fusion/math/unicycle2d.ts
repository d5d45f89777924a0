import { wrapAngle } from "./angles";

/**
 * Size of a Unicycle2D state: `[x, y, yaw, vx, vy, vyaw, ax, ay]` (reference/fuse.md §6.3).
 * Velocities and accelerations are in the body frame.
 */
export const UNICYCLE_STATE_SIZE = 8;

/** The Unicycle2D state's components in order, as fuse's parameters name them (process noise, ignition). */
export const UNICYCLE_STATE_COMPONENTS: readonly string[] = ["x", "y", "yaw", "vx", "vy", "vyaw", "ax", "ay"];

/**
 * Predicts a Unicycle2D state `dt` seconds ahead with fuse's model (reference/fuse.md §6.3, the
 * robot_localization style that rotates by the *initial* yaw):
 * `Δ = v·dt + ½a·dt²` (body), `p2 = p1 + R(yaw1)·Δ`, `yaw2 = wrap(yaw1 + vyaw·dt)`,
 * `v2 = v1 + a·dt`, `vyaw2 = vyaw1`, `a2 = a1`.
 *
 * Writes the 8-vector into `out` (which may alias `state`) and, when `jacobian` is given, the
 * 8 × 8 row-major `F = ∂f/∂state`. Allocates nothing.
 */
export function predictUnicycle2D(
  state: ArrayLike<number>,
  dt: number,
  out: Float64Array,
  jacobian?: Float64Array,
): void {
  const x = state[0]!;
  const y = state[1]!;
  const yaw = state[2]!;
  const vx = state[3]!;
  const vy = state[4]!;
  const vyaw = state[5]!;
  const ax = state[6]!;
  const ay = state[7]!;
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  const h = 0.5 * dt * dt;
  const dx = vx * dt + ax * h;
  const dy = vy * dt + ay * h;
  const dxr = c * dx - s * dy;
  const dyr = s * dx + c * dy;
  out[0] = x + dxr;
  out[1] = y + dyr;
  out[2] = wrapAngle(yaw + vyaw * dt);
  out[3] = vx + ax * dt;
  out[4] = vy + ay * dt;
  out[5] = vyaw;
  out[6] = ax;
  out[7] = ay;
  if (jacobian) {
    jacobian.fill(0);
    for (let i = 0; i < 8; i++) {
      jacobian[i * 8 + i] = 1;
    }
    // Rows x2, y2.
    jacobian[0 * 8 + 2] = -dyr;
    jacobian[1 * 8 + 2] = dxr;
    jacobian[0 * 8 + 3] = c * dt;
    jacobian[1 * 8 + 3] = s * dt;
    jacobian[0 * 8 + 4] = -s * dt;
    jacobian[1 * 8 + 4] = c * dt;
    jacobian[0 * 8 + 6] = c * h;
    jacobian[1 * 8 + 6] = s * h;
    jacobian[0 * 8 + 7] = -s * h;
    jacobian[1 * 8 + 7] = c * h;
    // Row yaw2.
    jacobian[2 * 8 + 5] = dt;
    // Rows vx2, vy2.
    jacobian[3 * 8 + 6] = dt;
    jacobian[4 * 8 + 7] = dt;
  }
}
