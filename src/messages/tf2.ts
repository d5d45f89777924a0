import type { RigidTransform } from "../geometry";
import { frameIdOf, readStamp, type StampProblem } from "./header";
import type { RosTime } from "../time";

/** One `geometry_msgs/TransformStamped` of a `tf2_msgs/TFMessage`, as read. */
export interface TransformReading {
  /** `header.frame_id`: the frame the child is expressed in. */
  readonly parent: string;
  /** `child_frame_id`. */
  readonly child: string;
  /** The header stamp, or why there is none (see `readStamp`). */
  readonly stamp: RosTime | StampProblem;
  /**
   * The transform as the message carries it (components not validated; the transform buffer
   * refuses a zero quaternion), or undefined when `translation` or `rotation` is not an object.
   */
  readonly transform: RigidTransform | undefined;
}

// Components as the message carries them; the transform buffer refuses what it cannot use.
interface Vec {
  x: number;
  y: number;
  z: number;
  w: number;
}

interface TfEntry {
  child_frame_id?: unknown;
  transform?: { translation?: unknown; rotation?: unknown };
}

/**
 * The transforms of a tf2 message (ROS 1 or ROS 2 `tf2_msgs/TFMessage` on /tf or /tf_static), in
 * message order. Entries without a parent frame, a child frame or a `transform` are left out; an
 * empty list when the message has no `transforms` array. Never throws.
 */
export function readTransforms(message: unknown): TransformReading[] {
  const transforms = (message as { transforms?: unknown } | undefined)?.transforms;
  const out: TransformReading[] = [];
  if (!Array.isArray(transforms)) {
    return out;
  }
  for (const t of transforms as TfEntry[]) {
    const parent = frameIdOf(t);
    if (parent == undefined || typeof t.child_frame_id !== "string" || !t.transform) {
      continue;
    }
    const p = t.transform.translation as Vec | null | undefined;
    const q = t.transform.rotation as Vec | null | undefined;
    const readable = typeof p === "object" && p != undefined && typeof q === "object" && q != undefined;
    out.push({
      parent,
      child: t.child_frame_id,
      stamp: readStamp(t),
      transform: readable ? { translation: [p.x, p.y, p.z], rotation: [q.x, q.y, q.z, q.w] } : undefined,
    });
  }
  return out;
}
