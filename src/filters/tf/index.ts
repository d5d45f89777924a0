export { TfFilter, type TfFilterOptions } from "./TfFilter";
// The geometry the tf buffer speaks, under the names of the shared module.
export {
  compose,
  IDENTITY_TRANSFORM,
  interpolate,
  invert,
  quatFromRpy,
  quatMultiply,
  quatNormalize,
  quatRotate,
  slerp,
  transformPoint,
  type RigidTransform,
} from "../../geometry";
export {
  stripSlash,
  TransformBuffer,
  TransformError,
  type TransformAvailability,
  type TransformBufferOptions,
  type TransformErrorKind,
} from "./TransformBuffer";
