/**
 * A rigid transform: `rotation` (unit quaternion [x, y, z, w]) then `translation` ([x, y, z],
 * metres). As tf2's `T_parent_child`, it maps a point expressed in the child frame to the parent
 * frame: p_parent = rotation · p_child + translation.
 */
export interface Transform {
  readonly translation: readonly [number, number, number];
  readonly rotation: readonly [number, number, number, number];
}

/** The identity transform. */
export const IDENTITY: Transform = Object.freeze({
  translation: Object.freeze<[number, number, number]>([0, 0, 0]),
  rotation: Object.freeze<[number, number, number, number]>([0, 0, 0, 1]),
});

type Quat = readonly [number, number, number, number];
type Vec = readonly [number, number, number];

/** Hamilton product a·b. */
export function quatMultiply(a: Quat, b: Quat): [number, number, number, number] {
  const [ax, ay, az, aw] = a;
  const [bx, by, bz, bw] = b;
  return [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
}

/** Rotates vector v by unit quaternion q. */
export function quatRotate(q: Quat, v: Vec): [number, number, number] {
  const [x, y, z, w] = q;
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

/**
 * Quaternion of fixed-axis roll (X), pitch (Y), yaw (Z) in radians, as tf2's
 * `Quaternion::setRPY` (rotation = Rz(yaw)·Ry(pitch)·Rx(roll)).
 */
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

/** a ∘ b: first b, then a (T_a_c = T_a_b · T_b_c). */
export function compose(a: Transform, b: Transform): Transform {
  const t = quatRotate(a.rotation, b.translation);
  return {
    translation: [a.translation[0] + t[0], a.translation[1] + t[1], a.translation[2] + t[2]],
    rotation: quatMultiply(a.rotation, b.rotation),
  };
}

/** The inverse transform (T_b_a from T_a_b). */
export function invert(a: Transform): Transform {
  const [x, y, z, w] = a.rotation;
  const inv: Quat = [-x, -y, -z, w];
  const t = quatRotate(inv, a.translation);
  return { translation: [-t[0], -t[1], -t[2]], rotation: inv };
}

/** Applies a transform to a point. */
export function transformPoint(a: Transform, p: Vec): [number, number, number] {
  const r = quatRotate(a.rotation, p);
  return [r[0] + a.translation[0], r[1] + a.translation[1], r[2] + a.translation[2]];
}

/**
 * Spherical linear interpolation along the shorter arc, as tf2's `slerp` (ratio 0 → a, 1 → b).
 * Falls back to normalized linear interpolation when the quaternions are nearly parallel.
 */
export function slerp(a: Quat, b: Quat, ratio: number): [number, number, number, number] {
  let cos = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  let sign = 1;
  if (cos < 0) {
    cos = -cos;
    sign = -1;
  }
  let wa: number;
  let wb: number;
  if (cos > 0.9995) {
    wa = 1 - ratio;
    wb = ratio * sign;
    const q: [number, number, number, number] = [
      wa * a[0] + wb * b[0],
      wa * a[1] + wb * b[1],
      wa * a[2] + wb * b[2],
      wa * a[3] + wb * b[3],
    ];
    return quatNormalize(q);
  }
  const theta = Math.acos(cos);
  const s = Math.sin(theta);
  wa = Math.sin((1 - ratio) * theta) / s;
  wb = (Math.sin(ratio * theta) / s) * sign;
  return [wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2], wa * a[3] + wb * b[3]];
}

/** Linear interpolation of translations and slerp of rotations (tf2's interpolation). */
export function interpolate(a: Transform, b: Transform, ratio: number): Transform {
  return {
    translation: [
      a.translation[0] + (b.translation[0] - a.translation[0]) * ratio,
      a.translation[1] + (b.translation[1] - a.translation[1]) * ratio,
      a.translation[2] + (b.translation[2] - a.translation[2]) * ratio,
    ],
    rotation: slerp(a.rotation, b.rotation, ratio),
  };
}
