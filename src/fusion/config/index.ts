export { FusionConfigError } from "./FusionConfigError";
export {
  parseFusionConfig,
  SENSOR_PARAMETERS,
  type FusionConfig,
  type MotionModelConfig,
  type OptimizerConfig,
  type SensorConfig,
} from "./fusionConfig";
