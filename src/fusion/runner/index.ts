export {
  FusionRunner,
  type FusedPose,
  type FusionOptimizer,
  type FusionRunnerOptions,
  type RunnerMessageEvent,
  type RunnerStartContext,
  type ThrowingTransformSource,
} from "./FusionRunner";
