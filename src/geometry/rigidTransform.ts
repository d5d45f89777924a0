import { quatMultiply, quatNormalize, quatRotate, type Quat, type Vec3 } from "./quaternion";

/**
 * A rigid transform: `rotation` (unit quaternion [x, y, z, w]) then `translation` ([x, y, z],
 * metres). As tf2's `T_parent_child`, it maps a point expressed in the child frame to the parent
 * frame: p_parent = rotation · p_child + translation.
 */
export interface RigidTransform {
  readonly translation: readonly [number, number, number];
  readonly rotation: readonly [number, number, number, number];
}

/** The identity transform (frozen). */
export const IDENTITY_TRANSFORM: RigidTransform = Object.freeze({
  translation: Object.freeze<[number, number, number]>([0, 0, 0]),
  rotation: Object.freeze<[number, number, number, number]>([0, 0, 0, 1]),
});

/** a ∘ b: first b, then a (T_a_c = T_a_b · T_b_c). */
export function compose(a: RigidTransform, b: RigidTransform): RigidTransform {
  const t = quatRotate(a.rotation, b.translation);
  return {
    translation: [a.translation[0] + t[0], a.translation[1] + t[1], a.translation[2] + t[2]],
    rotation: quatMultiply(a.rotation, b.rotation),
  };
}

/** The inverse transform (T_b_a from T_a_b). */
export function invert(a: RigidTransform): RigidTransform {
  const r = a.rotation;
  const inv: Quat = [-r[0], -r[1], -r[2], r[3]];
  const t = quatRotate(inv, a.translation);
  return { translation: [-t[0], -t[1], -t[2]], rotation: inv };
}

/** Applies a transform to a point. */
export function transformPoint(a: RigidTransform, p: Vec3): [number, number, number] {
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
export function interpolate(a: RigidTransform, b: RigidTransform, ratio: number): RigidTransform {
  return {
    translation: [
      a.translation[0] + (b.translation[0] - a.translation[0]) * ratio,
      a.translation[1] + (b.translation[1] - a.translation[1]) * ratio,
      a.translation[2] + (b.translation[2] - a.translation[2]) * ratio,
    ],
    rotation: slerp(a.rotation, b.rotation, ratio),
  };
}
