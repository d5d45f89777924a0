import type { PoseMeasurement, VectorPairMeasurement } from "./measurement";

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return typeof v === "object" && v != undefined ? (v as Obj) : {};
}

function num(v: unknown): number {
  return typeof v === "number" ? v : NaN;
}

function vec3(v: unknown): [number, number, number] {
  const o = obj(v);
  return [num(o.x), num(o.y), num(o.z)];
}

function quat(v: unknown): [number, number, number, number] {
  const o = obj(v);
  return [num(o.x), num(o.y), num(o.z), num(o.w)];
}

function floats(v: unknown, n: number): ArrayLike<number> {
  const a = v as ArrayLike<number> | undefined;
  if (a != undefined && typeof a.length === "number" && a.length === n) {
    return a;
  }
  return new Array<number>(n).fill(NaN);
}

/** geometry_msgs/PoseWithCovariance at `message[field]` with the given header. */
export function readPoseWithCovariance(poseWithCov: unknown, stamp: number, frameId: string): PoseMeasurement {
  const p = obj(poseWithCov);
  const pose = obj(p.pose);
  return {
    stamp,
    frameId,
    position: vec3(pose.position),
    orientation: quat(pose.orientation),
    covariance: floats(p.covariance, 36),
  };
}

/** geometry_msgs/TwistWithCovariance (or AccelWithCovariance with `inner` = "accel"). */
export function readVectorPairWithCovariance(
  withCov: unknown,
  inner: "twist" | "accel",
  stamp: number,
  frameId: string,
): VectorPairMeasurement {
  const w = obj(withCov);
  const v = obj(w[inner]);
  return {
    stamp,
    frameId,
    linear: vec3(v.linear),
    angular: vec3(v.angular),
    covariance: floats(w.covariance, 36),
  };
}

/** A 3×3 covariance placed into a 6×6 block starting at `offset` (0 = linear, 3 = angular). */
export function place3x3(cov3: unknown, offset: number): number[] {
  const c = floats(cov3, 9);
  const out = new Array<number>(36).fill(0);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      out[(i + offset) * 6 + (j + offset)] = c[i * 3 + j]!;
    }
  }
  return out;
}

export { vec3 as readVector3, quat as readQuaternion, obj as asObject };
