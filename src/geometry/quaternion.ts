/**
 * Quaternions as tf2 orders them, [x, y, z, w], with tf2's conventions: Hamilton product,
 * fixed-axis roll (X), pitch (Y), yaw (Z), rotation = Rz(yaw)·Ry(pitch)·Rx(roll). The one
 * quaternion module of the core layers; nothing here allocates except the returned tuples.
 */

/** A quaternion as [x, y, z, w] (tf2 order). */
export type Quat = readonly [number, number, number, number];
/** A 3-vector. */
export type Vec3 = readonly [number, number, number];

/** Hamilton product a·b (first b, then a). */
export function quatMultiply(a: Quat, b: Quat): [number, number, number, number] {
  // Index reads, not destructuring: these run per message and per lookup, and array
  // destructuring goes through the iterator protocol outside optimized code.
  const ax = a[0], ay = a[1], az = a[2], aw = a[3];
  const bx = b[0], by = b[1], bz = b[2], bw = b[3];
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

/** Inverse of a quaternion (conjugate over the squared norm; the conjugate for a unit one). */
export function quatInverse(q: Quat): [number, number, number, number] {
  const n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  return [-q[0] / n, -q[1] / n, -q[2] / n, q[3] / n];
}

/** Rotates vector v by unit quaternion q. */
export function quatRotate(q: Quat, v: Vec3): [number, number, number] {
  const x = q[0], y = q[1], z = q[2], w = q[3];
  // t = 2 (q_vec × v); v' = v + w t + q_vec × t
  const tx = 2 * (y * v[2] - z * v[1]);
  const ty = 2 * (z * v[0] - x * v[2]);
  const tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
}

/** q / |q|. Throws RangeError for a zero or non-finite quaternion. */
export function quatNormalize(q: Quat): [number, number, number, number] {
  const n = Math.hypot(q[0], q[1], q[2], q[3]);
  if (!(n > 0) || !Number.isFinite(n)) {
    throw new RangeError(`quaternion [${q.join(", ")}] cannot be normalized`);
  }
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}

/** Quaternion of roll, pitch, yaw in radians, as tf2's `Quaternion::setRPY`. */
export function quatFromRpy(roll: number, pitch: number, yaw: number): [number, number, number, number] {
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

/**
 * Yaw (rotation about Z, radians in (-π, π]) of the quaternion (x, y, z, w), as tf2's `getYaw`:
 * atan2(2(wz + xy), w² + x² − y² − z²). The scale of the quaternion cancels, so an unnormalized
 * one gives the yaw of its normalization; for a unit quaternion this equals fuse_core's
 * atan2(2(wz + xy), 1 − 2(y² + z²)). This is the one yaw of the layers.
 */
export function yawOfXyzw(x: number, y: number, z: number, w: number): number {
  return Math.atan2(2 * (w * z + x * y), w * w + x * x - y * y - z * z);
}

/**
 * Roll, pitch, yaw (radians) of the quaternion (x, y, z, w), as tf2's `getEulerYPR` with the
 * scale normalized away (an unnormalized quaternion gives the angles of its normalization).
 * Pitch is clamped to ±π/2 when rounding pushes |sin| to 1 or above.
 */
export function rpyOfXyzw(x: number, y: number, z: number, w: number): [roll: number, pitch: number, yaw: number] {
  const sinp = (2 * (w * y - z * x)) / (w * w + x * x + y * y + z * z);
  const roll = Math.atan2(2 * (w * x + y * z), w * w - x * x - y * y + z * z);
  const pitch = Math.abs(sinp) >= 1 ? (Math.sign(sinp) * Math.PI) / 2 : Math.asin(sinp);
  return [roll, pitch, yawOfXyzw(x, y, z, w)];
}

/** Yaw of a [x, y, z, w] quaternion ({@link yawOfXyzw}). */
export function quatYaw(q: Quat): number {
  return yawOfXyzw(q[0], q[1], q[2], q[3]);
}
