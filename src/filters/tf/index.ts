export { TfFilter, type TfFilterOptions } from "./TfFilter";
export {
  compose,
  IDENTITY,
  interpolate,
  invert,
  quatFromRpy,
  quatMultiply,
  quatNormalize,
  quatRotate,
  slerp,
  transformPoint,
  type Transform,
} from "./Transform";
export {
  stripSlash,
  TransformBuffer,
  TransformError,
  type TransformAvailability,
  type TransformBufferOptions,
  type TransformErrorKind,
} from "./TransformBuffer";
