import { wrapAngle } from "./angles";

/**
 * How a parameter block moves (Ceres' Manifold): `plus` applies a tangent step, `minus` is its
 * inverse. Cost functions give Jacobians with respect to the tangent coordinates at the current
 * value (`m × tangentSize`, row-major), so the solver works in tangent space throughout.
 */
export interface Manifold {
  readonly ambientSize: number;
  readonly tangentSize: number;
  /** out ← x ⊞ delta[at … at + tangentSize). `out` may be `x`. */
  plus(x: ArrayLike<number>, delta: ArrayLike<number>, at: number, out: Float64Array): void;
  /** out[at …] ← y ⊟ x (the tangent step that takes x to y). */
  minus(y: ArrayLike<number>, x: ArrayLike<number>, out: Float64Array, at: number): void;
}

/** Plain vectors; components flagged in `wraps` are angles kept in [-π, π). */
export class VectorManifold implements Manifold {
  public readonly ambientSize: number;
  public readonly tangentSize: number;
  readonly #wraps: readonly boolean[] | undefined;

  public constructor(size: number, wraps?: readonly boolean[]) {
    this.ambientSize = size;
    this.tangentSize = size;
    this.#wraps = wraps?.some((w) => w) === true ? wraps : undefined;
  }

  public plus(x: ArrayLike<number>, delta: ArrayLike<number>, at: number, out: Float64Array): void {
    const w = this.#wraps;
    for (let i = 0; i < this.ambientSize; i++) {
      const v = x[i]! + delta[at + i]!;
      out[i] = w?.[i] === true ? wrapAngle(v) : v;
    }
  }

  public minus(y: ArrayLike<number>, x: ArrayLike<number>, out: Float64Array, at: number): void {
    const w = this.#wraps;
    for (let i = 0; i < this.ambientSize; i++) {
      const d = y[i]! - x[i]!;
      out[at + i] = w?.[i] === true ? wrapAngle(d) : d;
    }
  }
}

/**
 * Unit quaternions stored (w, x, y, z), as fuse's Orientation3DStamped: q ⊞ δ = q ⊗ exp(δ) (δ a
 * rotation vector in the body frame), y ⊟ x = log(x⁻¹ ⊗ y) on the shorter arc. `plus` keeps the
 * result normalized, so the norm never drifts over many steps.
 */
export class QuaternionManifold implements Manifold {
  public readonly ambientSize = 4;
  public readonly tangentSize = 3;

  public plus(x: ArrayLike<number>, delta: ArrayLike<number>, at: number, out: Float64Array): void {
    const dx = delta[at]!;
    const dy = delta[at + 1]!;
    const dz = delta[at + 2]!;
    const angle = Math.sqrt(dx * dx + dy * dy + dz * dz);
    let ew = 1;
    let s = 0.5;
    if (angle > 1e-12) {
      ew = Math.cos(angle / 2);
      s = Math.sin(angle / 2) / angle;
    }
    const ex = dx * s;
    const ey = dy * s;
    const ez = dz * s;
    const w = x[0]!;
    const qx = x[1]!;
    const qy = x[2]!;
    const qz = x[3]!;
    let rw = w * ew - qx * ex - qy * ey - qz * ez;
    let rx = w * ex + qx * ew + qy * ez - qz * ey;
    let ry = w * ey - qx * ez + qy * ew + qz * ex;
    let rz = w * ez + qx * ey - qy * ex + qz * ew;
    const n = Math.sqrt(rw * rw + rx * rx + ry * ry + rz * rz);
    rw /= n;
    rx /= n;
    ry /= n;
    rz /= n;
    out[0] = rw;
    out[1] = rx;
    out[2] = ry;
    out[3] = rz;
  }

  public minus(y: ArrayLike<number>, x: ArrayLike<number>, out: Float64Array, at: number): void {
    // r = x⁻¹ ⊗ y (x unit: inverse = conjugate)
    const xw = x[0]!;
    const xx = -x[1]!;
    const xy = -x[2]!;
    const xz = -x[3]!;
    const yw = y[0]!;
    const yx = y[1]!;
    const yy = y[2]!;
    const yz = y[3]!;
    const rw = xw * yw - xx * yx - xy * yy - xz * yz;
    const rx = xw * yx + xx * yw + xy * yz - xz * yy;
    const ry = xw * yy - xx * yz + xy * yw + xz * yx;
    const rz = xw * yz + xx * yy - xy * yx + xz * yw;
    quaternionLog(rw, rx, ry, rz, out, at);
  }
}

/** out[at …] ← the rotation vector of the (unit) quaternion (w, x, y, z), on the shorter arc. */
export function quaternionLog(qw: number, qx: number, qy: number, qz: number, out: Float64Array, at: number): void {
  const sign = qw < 0 ? -1 : 1;
  const w = sign * qw;
  const x = sign * qx;
  const y = sign * qy;
  const z = sign * qz;
  const s = Math.sqrt(x * x + y * y + z * z);
  // 2·atan2(s, w)/s → 2/w as s → 0 (w ≈ 1): the series keeps the step exact near identity.
  const k = s > 1e-9 ? (2 * Math.atan2(s, w)) / s : 2 / w;
  out[at] = x * k;
  out[at + 1] = y * k;
  out[at + 2] = z * k;
}

/** The shared quaternion manifold (stateless). */
export const QUATERNION_MANIFOLD = new QuaternionManifold();
