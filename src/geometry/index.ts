export {
  quatFromRpy,
  quatInverse,
  quatMultiply,
  quatNormalize,
  quatRotate,
  quatYaw,
  rpyOfXyzw,
  yawOfXyzw,
  type Quat,
  type Vec3,
} from "./quaternion";
export {
  compose,
  IDENTITY_TRANSFORM,
  interpolate,
  invert,
  slerp,
  transformPoint,
  type RigidTransform,
} from "./rigidTransform";
