import { motionModelDescriptors, parameterSchema, sensorDescriptors, type ParameterSpec } from "../registry";

function pluginSchema(type: string, help: string, parameters: readonly ParameterSpec[], extra: Record<string, unknown>): Record<string, unknown> {
  const properties: Record<string, unknown> = { type: { const: type }, ...extra };
  for (const p of parameters) {
    properties[p.name] = parameterSchema(p);
  }
  return {
    description: help,
    type: "object",
    required: ["type", ...parameters.filter((p) => p.required === true).map((p) => p.name)],
    properties,
    additionalProperties: false,
  };
}

/**
 * The JSON schema of the `fusion` config section, derived from the registered plugins'
 * descriptors (for config/pipeline.schema.json and editors). The validation itself is
 * `validateFusionConfig`, which reads the same descriptors.
 */
export function fusionConfigSchema(): Record<string, unknown> {
  const sensorExtra = {
    motionModels: { type: "array", items: { type: "string" }, description: "motion models applied to this sensor's transactions" },
    ignition: { type: "boolean", description: "may start or reset the optimizer" },
  };
  return {
    type: "object",
    properties: {
      uuidRecipe: { enum: ["ros1", "ros2"], description: "variable UUID recipe (default: the recording's ROS version)" },
      sensors: {
        type: "object",
        additionalProperties: { oneOf: sensorDescriptors().map((d) => pluginSchema(d.type, d.help, d.parameters, sensorExtra)) },
      },
      motionModels: {
        type: "object",
        additionalProperties: { oneOf: motionModelDescriptors().map((d) => pluginSchema(d.type, d.help, d.parameters, {})) },
      },
      optimizer: {
        type: "object",
        properties: {
          type: { enum: ["fixed-lag", "batch"], default: "fixed-lag" },
          lag: { type: ["string", "integer"], default: "5s", description: "lag_duration" },
          updatePeriod: { type: ["string", "integer"], default: "100ms", description: "optimization_period" },
          transactionTimeout: { type: ["string", "integer"], default: "100ms", description: "transaction_timeout" },
          maxIterations: { type: "integer", minimum: 1, default: 50 },
        },
        additionalProperties: false,
      },
    },
    required: ["sensors"],
    additionalProperties: false,
  };
}
