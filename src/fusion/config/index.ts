export { FusionConfigError } from "./FusionConfigError";
export { fusionConfigSchema } from "./fusionSchema";
export {
  parseFusionConfig,
  validateFusionConfig,
  type FusionConfig,
  type FusionConfigIssue,
  type MotionModelConfig,
  type OptimizerConfig,
  type SensorConfig,
} from "./fusionConfig";
