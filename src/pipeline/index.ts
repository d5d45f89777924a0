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
} from "./config";
export { ConfigError, type ConfigIssue } from "./ConfigError";
export { createPolicy } from "./createPolicy";
export { DEFAULT_PUBLISH_NAMESPACE, parseConfig, parseConfigText } from "./parseConfig";
export { Pipeline, type PipelineOptions } from "./Pipeline";
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
  SlotItem,
} from "./types";
