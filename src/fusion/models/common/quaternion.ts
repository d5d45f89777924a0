import type { Quat, Vec3 } from "../../../geometry";

// The quaternion algebra is the geometry layer's (one module for the whole core); this file adds
// what only fuse_models' sensor processing needs: matrices, covariance rotation.
export { quatFromRpy, quatInverse, quatMultiply, type Quat, type Vec3 } from "../../../geometry";

/** Row-major 3×3 rotation matrix of a (normalized) quaternion, as tf2::Matrix3x3(q). */
export function quatToMatrix(q: Quat): number[] {
  const x = q[0], y = q[1], z = q[2], w = q[3];
  const s = 2 / (x * x + y * y + z * z + w * w);
  // tf2's setRotation: the products of each component with (x, y, z)·s. Scalars, not tuples:
  // this runs for every measurement a sensor rotates.
  const xs = x * s, ys = y * s, zs = z * s;
  const wx = w * xs, wy = w * ys, wz = w * zs;
  const xx = x * xs, xy = x * ys, xz = x * zs;
  const yy = y * ys, yz = y * zs, zz = z * zs;
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
 * Working matrices of `rotateCovariance6`: block-diag(R, R) (its off-diagonal blocks stay zero)
 * and the product with the covariance. Shared by every call, each of which overwrites what it
 * reads before returning; sensors rotate one covariance per measurement, so these are not
 * allocated per call.
 */
const ROTATION6 = new Float64Array(36);
const PRODUCT6 = new Float64Array(36);

/**
 * A 6×6 covariance (row-major, 36 values) rotated by block-diag(R, R), as tf2's
 * `transformCovariance` does for pose, twist and accel covariances. Returns a new array: a plain
 * one, as a sensor reads a few of its entries once and drops it (a Float64Array of 36 entries has
 * a backing store outside V8's heap, several times the cost of the whole rotation).
 */
export function rotateCovariance6(cov: ArrayLike<number>, r: readonly number[]): number[] {
  const big = ROTATION6;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      big[i * 6 + j] = r[i * 3 + j]!;
      big[(i + 3) * 6 + (j + 3)] = r[i * 3 + j]!;
    }
  }
  const tmp = PRODUCT6.fill(0);
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
  const out: number[] = [];
  for (let i = 0; i < 6; i++) {
    for (let j = 0; j < 6; j++) {
      let s = 0;
      for (let k = 0; k < 6; k++) {
        s += tmp[i * 6 + k]! * big[j * 6 + k]!;
      }
      out.push(s);
    }
  }
  return out;
}

/**
 * Yaw as fuse_core::getYaw computes it, atan2(2(wz + xy), 1 − 2(y² + z²)): equal to geometry's
 * `quatYaw` (tf2::getYaw, scale-invariant) for a unit quaternion up to the last bits, not for a
 * non-unit one. Kept for the 2D sensors so their transactions stay bit-identical; switching them
 * to tf2's form (what fuse's 2D sensor_proc calls) changes recorded results in the last digits.
 */
export function fuseCoreYaw(q: Quat): number {
  const x = q[0], y = q[1], z = q[2], w = q[3];
  return Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
}
