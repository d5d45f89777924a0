export {
  POLICY_TYPES,
  type BufferConfig,
  type BufferPolicyName,
  type FkieApproximateTimeConfig,
  type FkieExactTimeConfig,
  type FkieFifoConfig,
  type FkieLatchConfig,
  type InputConfig,
  type PipelineConfig,
  type PolicyConfig,
  type PolicyType,
  type PublishConfig,
  type PythonApproximateTimeConfig,
  type PythonExactTimeConfig,
  type RateConfig,
  type RosApproximateEpsilonTimeConfig,
  type RosApproximateTimeConfig,
  type RosExactTimeConfig,
  type RosLatestTimeConfig,
  type TransformConfig,
  RAW_PLACEMENTS,
} from "./config";
export { topicGuess } from "./closestName";
export { ConfigError, type ConfigIssue } from "./ConfigError";
export { createPolicy } from "./createPolicy";
export { DEFAULT_PUBLISH_NAMESPACE, parseConfig, parseConfigText } from "./parseConfig";
export { Pipeline, type PipelineOptions } from "./Pipeline";
export { configTransform } from "./transformConfig";
export {
  PipelineStats,
  TopicStats,
  spreadOf,
  type DropExample,
  type Spread,
  type TuningHints,
} from "./PipelineStats";
export { Reservoir } from "./Reservoir";
export { defaultExtensions } from "./defaultExtensions";
export { describeSummary, summarize, type PipelineSummary } from "./summary";
export type {
  ExtensionDrop,
  ExtensionOutput,
  PipelineContext,
  PipelineDrop,
  PipelineExtension,
  PipelineInput,
  PipelineMessageEvent,
  PipelineTuple,
  ReceiveTime,
  RecordedChannelFacts,
  SlotItem,
  UnstampedReason,
} from "./types";
export {
  SyncGraph,
  type BufferState,
  type SyncDropHandler,
  type SyncGraphHandlers,
  type SyncGraphOptions,
  type SyncItem,
} from "./SyncGraph";
export { policyDescriptor, POLICY_DESCRIPTORS } from "../filters/policies/descriptors";
export {
  defaultTextOf,
  type ParameterDescriptor,
  type ParameterKind,
  type PolicyDescriptor,
} from "../filters/policies/PolicyDescriptor";
export { BUFFER_PARAMETERS } from "../filters/bufferParameters";
export { INPUT_PARAMETERS } from "./inputParameters";
export { STAMP_SOURCES, stampReaderFor, stampSourceProblem, type StampReader, type StampSourceDescriptor } from "../messages/stampSources";
export { pipelineSchema } from "./configSchema";
export { ConfigLoadError, loadConfig, type LoadConfigOptions } from "./loadConfig";
export { FuseYamlError, fusionFromFuseYaml, type FuseYamlImport, type FuseYamlIssue } from "../fusion/config";
export { DROP_REASONS, type DropReason } from "../time/DropReason";
export { FusionConfigError, validateFusionConfig } from "../fusion/config";
/** The fused pose and logged transaction shapes the CLI and panel read from a fusion run. */
export type { FusedPose, TransactionRecord } from "../fusion/runner";
/** How the CLI's summary words a fusion run's counts and final pose, for the panel to say it alike. */
export { dropCountText, finalPoseText, transactionCountText } from "../fusion/runner";
export type { FusionDrop, TransactionJson } from "../fusion/core";
export { motionModelDescriptors, sensorDescriptors } from "../fusion/registry";
/** Angles wrapped into [−π, π) as fuse wraps them, for the panel's trajectory alignment. */
export { wrapAngle } from "../fusion/math/angles";
export { quaternionAt, stampOf, yawOf } from "../messages";
export { matchedTime, tupleMemberTime } from "./matchedTime";
