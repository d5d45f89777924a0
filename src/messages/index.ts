export {
  childFrameIdOf,
  frameIdOf,
  nsecOf,
  readHeader,
  readStamp,
  stampOf,
  type MessageHeader,
  type StampProblem,
} from "./header";
export {
  covarianceBlock,
  isCovarianceProblem,
  isCovarianceUnknown,
  readCovariance,
  type CovarianceProblem,
} from "./covariance";
export { quaternionAt, rpyOf, yawOf, type QuaternionLike } from "./orientation";
export { readTransforms, type TransformReading } from "./tf2";
