export {
  FusionRunner,
  type FusedPose,
  type FusionOptimizer,
  type FusionRetention,
  type FusionRunnerOptions,
  type RunnerMessageEvent,
  type RunnerStartContext,
  type ThrowingTransformSource,
} from "./FusionRunner";
