import { quatFromRpy, type RigidTransform } from "../geometry";
import type { TransformConfig } from "./config";

/**
 * The rigid transform a config `transforms` entry states: its `quaternion` when given, else the
 * rotation of its `rpy`, else no rotation; its translation as it is. Values are not checked here
 * (the transform buffer refuses a zero quaternion or a non-finite value).
 */
export function configTransform(t: TransformConfig): RigidTransform {
  const rotation = t.quaternion ?? (t.rpy ? quatFromRpy(t.rpy[0], t.rpy[1], t.rpy[2]) : ([0, 0, 0, 1] as const));
  return { translation: t.translation, rotation };
}
