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
  public readonly ambientSize: number = 0;
  public readonly tangentSize: number = 0;
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

const PRODUCT = new Float64Array(4);

/** The Hamilton product a ⊗ b of (w, x, y, z) quaternions, in a shared buffer read at once. */
function hamilton(
  aw: number, ax: number, ay: number, az: number,
  bw: number, bx: number, by: number, bz: number,
): Float64Array {
  PRODUCT[0] = aw * bw - ax * bx - ay * by - az * bz;
  PRODUCT[1] = aw * bx + ax * bw + ay * bz - az * by;
  PRODUCT[2] = aw * by - ax * bz + ay * bw + az * bx;
  PRODUCT[3] = aw * bz + ax * by - ay * bx + az * bw;
  return PRODUCT;
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
    const r = hamilton(x[0]!, x[1]!, x[2]!, x[3]!, ew, ex, ey, ez);
    const n = Math.sqrt(r[0]! * r[0]! + r[1]! * r[1]! + r[2]! * r[2]! + r[3]! * r[3]!);
    for (let i = 0; i < 4; i++) {
      out[i] = r[i]! / n;
    }
  }

  public minus(y: ArrayLike<number>, x: ArrayLike<number>, out: Float64Array, at: number): void {
    // r = x⁻¹ ⊗ y (x unit: inverse = conjugate)
    const r = hamilton(x[0]!, -x[1]!, -x[2]!, -x[3]!, y[0]!, y[1]!, y[2]!, y[3]!);
    quaternionLog(r[0]!, r[1]!, r[2]!, r[3]!, out, at);
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
