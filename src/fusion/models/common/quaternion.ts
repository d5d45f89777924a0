import type { RigidTransform } from "../../core";

/** A quaternion as [x, y, z, w] (tf2 order). */
export type Quat = readonly [number, number, number, number];
/** A 3-vector. */
export type Vec3 = readonly [number, number, number];

/** Hamilton product a ⊗ b. */
export function quatMultiply(a: Quat, b: Quat): Quat {
  const [ax, ay, az, aw] = a;
  const [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

/** Inverse of a quaternion (conjugate over the squared norm). */
export function quatInverse(q: Quat): Quat {
  const n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  return [-q[0] / n, -q[1] / n, -q[2] / n, q[3] / n];
}

/** Row-major 3×3 rotation matrix of a (normalized) quaternion, as tf2::Matrix3x3(q). */
export function quatToMatrix(q: Quat): number[] {
  const [x, y, z, w] = q;
  const d = x * x + y * y + z * z + w * w;
  const s = 2 / d;
  const xs = x * s;
  const ys = y * s;
  const zs = z * s;
  const wx = w * xs;
  const wy = w * ys;
  const wz = w * zs;
  const xx = x * xs;
  const xy = x * ys;
  const xz = x * zs;
  const yy = y * ys;
  const yz = y * zs;
  const zz = z * zs;
  return [1 - (yy + zz), xy - wz, xz + wy, xy + wz, 1 - (xx + zz), yz - wx, xz - wy, yz + wx, 1 - (xx + yy)];
}

/** R·v for a row-major 3×3 R. */
export function rotate(r: readonly number[], v: Vec3): Vec3 {
  return [
    r[0]! * v[0] + r[1]! * v[1] + r[2]! * v[2],
    r[3]! * v[0] + r[4]! * v[1] + r[5]! * v[2],
    r[6]! * v[0] + r[7]! * v[1] + r[8]! * v[2],
  ];
}

/**
 * A 6×6 covariance (row-major, 36 values) rotated by block-diag(R, R), as tf2's
 * `transformCovariance` does for pose, twist and accel covariances.
 */
export function rotateCovariance6(cov: ArrayLike<number>, r: readonly number[]): number[] {
  const big = new Array<number>(36).fill(0);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      big[i * 6 + j] = r[i * 3 + j]!;
      big[(i + 3) * 6 + (j + 3)] = r[i * 3 + j]!;
    }
  }
  const tmp = new Array<number>(36).fill(0);
  for (let i = 0; i < 6; i++) {
    for (let k = 0; k < 6; k++) {
      const a = big[i * 6 + k]!;
      if (a === 0) {
        continue;
      }
      for (let j = 0; j < 6; j++) {
        tmp[i * 6 + j] = tmp[i * 6 + j]! + a * cov[k * 6 + j]!;
      }
    }
  }
  const out = new Array<number>(36).fill(0);
  for (let i = 0; i < 6; i++) {
    for (let j = 0; j < 6; j++) {
      let s = 0;
      for (let k = 0; k < 6; k++) {
        s += tmp[i * 6 + k]! * big[j * 6 + k]!;
      }
      out[i * 6 + j] = s;
    }
  }
  return out;
}

/** Yaw of a quaternion: atan2(2(wz + xy), 1 − 2(y² + z²)) (fuse_core::getYaw / tf2::getYaw). */
export function quatYaw(q: Quat): number {
  const [x, y, z, w] = q;
  return Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
}

/** Quaternion from roll, pitch, yaw (fixed axes X, Y, Z), as tf2's setRPY. */
export function quatFromRpy(roll: number, pitch: number, yaw: number): Quat {
  const cr = Math.cos(roll / 2);
  const sr = Math.sin(roll / 2);
  const cp = Math.cos(pitch / 2);
  const sp = Math.sin(pitch / 2);
  const cy = Math.cos(yaw / 2);
  const sy = Math.sin(yaw / 2);
  return [
    sr * cp * cy - cr * sp * sy,
    cr * sp * cy + sr * cp * sy,
    cr * cp * sy - sr * sp * cy,
    cr * cp * cy + sr * sp * sy,
  ];
}

/** The identity transform. */
export const IDENTITY_TRANSFORM: RigidTransform = { translation: [0, 0, 0], rotation: [0, 0, 0, 1] };
