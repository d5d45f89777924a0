/** A quaternion as ROS and Foxglove messages carry it. */
export interface QuaternionLike {
  readonly x: number;
  readonly y: number;
  readonly z: number;
  readonly w: number;
}

/**
 * Yaw (rotation about Z, radians in (-π, π]) of a quaternion, as tf2's getYaw / getRPY compute
 * it: atan2(2(wz + xy), 1 − 2(y² + z²)). Works on unnormalized quaternions (scale cancels).
 */
export function yawOf(q: QuaternionLike): number {
  return Math.atan2(2 * (q.w * q.z + q.x * q.y), q.w * q.w + q.x * q.x - q.y * q.y - q.z * q.z);
}

/**
 * Roll, pitch, yaw (fixed axes X, Y, Z; radians) of a normalized quaternion, as tf2's
 * Matrix3x3::getRPY. Pitch is clamped to ±π/2 when rounding pushes |sin| above 1.
 */
export function rpyOf(q: QuaternionLike): [roll: number, pitch: number, yaw: number] {
  const sinp = 2 * (q.w * q.y - q.z * q.x);
  const roll = Math.atan2(2 * (q.w * q.x + q.y * q.z), 1 - 2 * (q.x * q.x + q.y * q.y));
  const pitch = Math.abs(sinp) >= 1 ? (Math.sign(sinp) * Math.PI) / 2 : Math.asin(sinp);
  return [roll, pitch, yawOf(q)];
}

/** Reads `message[field]` as a quaternion; undefined when it is not one (never throws). */
export function quaternionAt(message: unknown, ...path: string[]): QuaternionLike | undefined {
  let at: unknown = message;
  for (const key of path) {
    if (typeof at !== "object" || at == undefined) {
      return undefined;
    }
    at = (at as Record<string, unknown>)[key];
  }
  const q = at as Partial<QuaternionLike> | undefined;
  return q != undefined &&
    typeof q.x === "number" &&
    typeof q.y === "number" &&
    typeof q.z === "number" &&
    typeof q.w === "number"
    ? (q as QuaternionLike)
    : undefined;
}
