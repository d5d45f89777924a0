export {
  FusionRunner,
  type FusedPose,
  type FusionRetention,
  type FusionRunnerOptions,
  type RunnerMessageEvent,
  type RunnerStartContext,
  type ThrowingTransformSource,
} from "./FusionRunner";
export { ImuMountCheck } from "./ImuMountCheck";
export { dropCountText, finalPoseText, transactionCountText } from "./fusionSummaryText";
export { TransactionLog, type LoggedTransaction, type TransactionRecord } from "./TransactionLog";
export { BoundedQueue } from "./BoundedQueue";
