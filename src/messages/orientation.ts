import { rpyOfXyzw, yawOfXyzw } from "../geometry";

/** A quaternion as ROS and Foxglove messages carry it. */
export interface QuaternionLike {
  readonly x: number;
  readonly y: number;
  readonly z: number;
  readonly w: number;
}

/** Yaw (radians in (-π, π]) of a message quaternion: geometry's one yaw ({@link yawOfXyzw}). */
export function yawOf(q: QuaternionLike): number {
  return yawOfXyzw(q.x, q.y, q.z, q.w);
}

/** Roll, pitch, yaw (radians) of a message quaternion, as geometry's {@link rpyOfXyzw}. */
export function rpyOf(q: QuaternionLike): [roll: number, pitch: number, yaw: number] {
  return rpyOfXyzw(q.x, q.y, q.z, q.w);
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
