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
export { FuseYamlError, fusionFromFuseYaml, type FuseYamlImport, type FuseYamlIssue, type FuseYamlOptions } from "./fuseYaml";
