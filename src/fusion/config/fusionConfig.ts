import { parseDuration } from "../../time";
import type { LossConfig, UuidRecipe } from "../core";
import { FusionConfigError } from "./FusionConfigError";

/** One sensor entry of the `fusion.sensors` map (type plus fuse's parameters, camelCase). */
export interface SensorConfig {
  /** fuse_models class name, e.g. "fuse_models::Odometry2D". */
  readonly type: string;
  /** Motion models applied to this sensor's transactions (fuse's `motion_models`). */
  readonly motionModels: readonly string[];
  /** May start/reset the estimator (fuse's `ignition`). */
  readonly ignition: boolean;
  /** The plugin parameters, validated (durations already in ns). */
  readonly params: Readonly<Record<string, unknown>>;
}

/** One motion model entry of `fusion.motionModels`. */
export interface MotionModelConfig {
  /** "fuse_models::Unicycle2D". */
  readonly type: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** The optimizer section (fuse's FixedLagSmoother / BatchOptimizer parameters). */
export interface OptimizerConfig {
  readonly type: "fixed-lag" | "batch";
  /** `lag_duration` in ns (fixed-lag only); default 5 s. */
  readonly lag: number;
  /** `optimization_period` in ns; default 100 ms (10 Hz). */
  readonly updatePeriod: number;
  /** `transaction_timeout` in ns; default 100 ms. */
  readonly transactionTimeout: number;
  /** Solver iterations per cycle (Ceres `max_num_iterations`); default 50 (Ceres' default). */
  readonly maxIterations: number;
}

/** The validated `fusion` section. */
export interface FusionConfig {
  /** Explicit UUID recipe; undefined = the recording's ROS version. */
  readonly uuidRecipe: UuidRecipe | undefined;
  readonly sensors: ReadonlyMap<string, SensorConfig>;
  readonly motionModels: ReadonlyMap<string, MotionModelConfig>;
  readonly optimizer: OptimizerConfig;
}

type Kind =
  | "linearDims"
  | "angularDims"
  | "bool"
  | "number"
  | "positive"
  | "string"
  | "duration"
  | "vec3"
  | "vec8"
  | "loss"
  | "orientationTransform"
  | "uuid";

const COMMON: Record<string, Kind> = {
  topic: "string",
  slot: "number",
  throttlePeriod: "duration",
  throttleUseWallTime: "bool",
  disableChecks: "bool",
  deviceId: "uuid",
  deviceName: "string",
  queueSize: "number",
  tfTimeout: "duration",
};

const DIFFERENTIAL: Record<string, Kind> = {
  differential: "bool",
  independent: "bool",
  minimumPoseRelativeCovarianceDiagonal: "vec3",
};

/** Parameters per sensor type (fuse's YAML names in camelCase). */
export const SENSOR_PARAMETERS: Readonly<Record<string, Readonly<Record<string, Kind>>>> = {
  "fuse_models::Odometry2D": {
    ...COMMON,
    ...DIFFERENTIAL,
    positionDimensions: "linearDims",
    orientationDimensions: "angularDims",
    linearVelocityDimensions: "linearDims",
    angularVelocityDimensions: "angularDims",
    useTwistCovariance: "bool",
    twistCovarianceOffsetDiagonal: "vec3",
    poseTargetFrame: "string",
    twistTargetFrame: "string",
    poseLoss: "loss",
    linearVelocityLoss: "loss",
    angularVelocityLoss: "loss",
  },
  "fuse_models::Imu2D": {
    ...COMMON,
    ...DIFFERENTIAL,
    orientationDimensions: "angularDims",
    angularVelocityDimensions: "angularDims",
    linearAccelerationDimensions: "linearDims",
    useTwistCovariance: "bool",
    twistCovarianceOffsetDiagonal: "vec3",
    removeGravitationalAcceleration: "bool",
    gravitationalAcceleration: "number",
    orientationTargetFrame: "string",
    twistTargetFrame: "string",
    accelerationTargetFrame: "string",
    orientationTransform: "orientationTransform",
    poseLoss: "loss",
    angularVelocityLoss: "loss",
    linearAccelerationLoss: "loss",
  },
  "fuse_models::Pose2D": {
    ...COMMON,
    ...DIFFERENTIAL,
    positionDimensions: "linearDims",
    orientationDimensions: "angularDims",
    targetFrame: "string",
    loss: "loss",
  },
  "fuse_models::Twist2D": {
    ...COMMON,
    linearDimensions: "linearDims",
    angularDimensions: "angularDims",
    targetFrame: "string",
    linearLoss: "loss",
    angularLoss: "loss",
  },
  "fuse_models::Acceleration2D": {
    ...COMMON,
    dimensions: "linearDims",
    targetFrame: "string",
    loss: "loss",
  },
  "fuse_models::Unicycle2DIgnition": {
    initialState: "vec8",
    initialSigma: "vec8",
    publishOnStartup: "bool",
    topic: "string",
    loss: "loss",
    deviceId: "uuid",
    deviceName: "string",
    queueSize: "number",
  },
};

const MOTION_PARAMETERS: Readonly<Record<string, Readonly<Record<string, Kind>>>> = {
  "fuse_models::Unicycle2D": {
    processNoiseDiagonal: "vec8",
    scaleProcessNoise: "bool",
    velocityNormMin: "positive",
    bufferLength: "duration",
    disableChecks: "bool",
    deviceId: "uuid",
    deviceName: "string",
  },
};

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v != undefined && !Array.isArray(v);
}

function fail(path: string, message: string): never {
  throw new FusionConfigError(path, message);
}

function checkKeys(o: Obj, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) {
      fail(`${path}.${k}`, `unknown key (allowed: ${allowed.join(", ")})`);
    }
  }
}

function checkValue(kind: Kind, v: unknown, path: string): unknown {
  const numbers = (n: number): number[] => {
    if (!Array.isArray(v) || v.length !== n || !v.every((x) => typeof x === "number" && Number.isFinite(x))) {
      fail(path, `expected ${n} finite numbers, got ${JSON.stringify(v)}`);
    }
    return v as number[];
  };
  switch (kind) {
    case "linearDims":
    case "angularDims": {
      const allowed = kind === "linearDims" ? ["x", "y"] : ["yaw", "z"];
      if (!Array.isArray(v)) {
        fail(path, `expected a list of dimension names (${allowed.join(", ")})`);
      }
      v.forEach((d, i) => {
        if (typeof d !== "string" || !allowed.includes(d.toLowerCase())) {
          fail(`${path}[${i}]`, `${JSON.stringify(d)} is not a dimension here (allowed: ${allowed.join(", ")})`);
        }
      });
      return v;
    }
    case "bool":
      if (typeof v !== "boolean") {
        fail(path, `expected true or false, got ${JSON.stringify(v)}`);
      }
      return v;
    case "number":
    case "positive":
      if (typeof v !== "number" || !Number.isFinite(v) || (kind === "positive" && !(v > 0))) {
        fail(path, `expected a ${kind === "positive" ? "positive" : "finite"} number, got ${JSON.stringify(v)}`);
      }
      return v;
    case "string":
      if (typeof v !== "string") {
        fail(path, `expected a string, got ${JSON.stringify(v)}`);
      }
      return v;
    case "uuid":
      if (typeof v !== "string" || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) {
        fail(path, `expected a UUID string (8-4-4-4-12 hex digits), got ${JSON.stringify(v)}`);
      }
      return v;
    case "duration":
      try {
        return parseDuration(v, path);
      } catch (e) {
        return fail(path, (e as Error).message.replace(`${path}: `, ""));
      }
    case "vec3":
      return numbers(3);
    case "vec8":
      return numbers(8);
    case "orientationTransform":
      if (v !== "fuse" && v !== "body") {
        fail(path, `expected "fuse" or "body", got ${JSON.stringify(v)}`);
      }
      return v;
    case "loss": {
      if (v == undefined) {
        return null;
      }
      if (!isObj(v) || typeof v.type !== "string") {
        fail(path, `expected null or {"type": "fuse_loss::HuberLoss", "parameters": {"a": 1}}`);
      }
      checkKeys(v, ["type", "parameters"], path);
      const params = v.parameters ?? {};
      if (!isObj(params) || !Object.values(params).every((x) => typeof x === "number")) {
        fail(`${path}.parameters`, "expected an object of numbers");
      }
      const loss: LossConfig = { type: v.type, parameters: params as Record<string, number> };
      return loss;
    }
  }
}

function parseParams(
  o: Obj,
  spec: Readonly<Record<string, Kind>>,
  reserved: readonly string[],
  path: string,
): Record<string, unknown> {
  checkKeys(o, [...reserved, ...Object.keys(spec)], path);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (reserved.includes(k)) {
      continue;
    }
    out[k] = checkValue(spec[k]!, v, `${path}.${k}`);
  }
  return out;
}

/**
 * Validates a `fusion` config section (DESIGN §3.2), mirroring fuse's YAML: `sensors` and
 * `motionModels` are maps from plugin name to `{type, …parameters}` (fuse's parameter names in
 * camelCase); sensors add `motionModels: [names]` and `ignition`; `optimizer` has `type`
 * ("fixed-lag" | "batch"), `lag`, `updatePeriod`, `transactionTimeout` (durations, DESIGN §3.1)
 * and `maxIterations`; `uuidRecipe` is "ros1" | "ros2". Throws FusionConfigError with the JSON path
 * (prefixed by `path`) of the first problem: unknown keys, wrong types, unknown plugin types or
 * references, missing topics, out-of-range values.
 */
export function parseFusionConfig(value: unknown, path = "fusion"): FusionConfig {
  if (!isObj(value)) {
    fail(path, "expected an object with sensors, motionModels and optimizer");
  }
  checkKeys(value, ["sensors", "motionModels", "optimizer", "uuidRecipe"], path);
  let uuidRecipe: UuidRecipe | undefined;
  if (value.uuidRecipe != undefined) {
    if (value.uuidRecipe !== "ros1" && value.uuidRecipe !== "ros2") {
      fail(`${path}.uuidRecipe`, `expected "ros1" or "ros2", got ${JSON.stringify(value.uuidRecipe)}`);
    }
    uuidRecipe = value.uuidRecipe;
  }
  const motionModels = new Map<string, MotionModelConfig>();
  const mm = value.motionModels ?? {};
  if (!isObj(mm)) {
    fail(`${path}.motionModels`, "expected an object mapping names to motion models");
  }
  for (const [name, m] of Object.entries(mm)) {
    const p = `${path}.motionModels.${name}`;
    if (!isObj(m)) {
      fail(p, "expected an object with a type");
    }
    const spec = typeof m.type === "string" ? MOTION_PARAMETERS[m.type] : undefined;
    if (spec == undefined) {
      fail(`${p}.type`, `unknown motion model ${JSON.stringify(m.type)} (supported: ${Object.keys(MOTION_PARAMETERS).join(", ")})`);
    }
    const params = parseParams(m, spec, ["type"], p);
    if (params.processNoiseDiagonal == undefined) {
      fail(`${p}.processNoiseDiagonal`, "required: 8 process-noise variances (x, y, yaw, vx, vy, vyaw, ax, ay)");
    }
    motionModels.set(name, { type: m.type as string, params });
  }
  const sensors = new Map<string, SensorConfig>();
  const ss = value.sensors;
  if (!isObj(ss) || Object.keys(ss).length === 0) {
    fail(`${path}.sensors`, "expected an object mapping names to at least one sensor model");
  }
  for (const [name, s] of Object.entries(ss)) {
    const p = `${path}.sensors.${name}`;
    if (!isObj(s)) {
      fail(p, "expected an object with a type");
    }
    const spec = typeof s.type === "string" ? SENSOR_PARAMETERS[s.type] : undefined;
    if (spec == undefined) {
      fail(`${p}.type`, `unknown sensor model ${JSON.stringify(s.type)} (supported: ${Object.keys(SENSOR_PARAMETERS).join(", ")})`);
    }
    const params = parseParams(s, spec, ["type", "motionModels", "ignition"], p);
    const models = s.motionModels ?? [];
    if (!Array.isArray(models)) {
      fail(`${p}.motionModels`, "expected a list of motion model names");
    }
    models.forEach((m, i) => {
      if (typeof m !== "string" || !motionModels.has(m)) {
        fail(`${p}.motionModels[${i}]`, `${JSON.stringify(m)} is not a motion model in ${path}.motionModels`);
      }
    });
    if (s.ignition != undefined && typeof s.ignition !== "boolean") {
      fail(`${p}.ignition`, `expected true or false, got ${JSON.stringify(s.ignition)}`);
    }
    if (params.slot != undefined && !(Number.isInteger(params.slot) && (params.slot as number) >= 0)) {
      fail(`${p}.slot`, `expected a pipeline input index (an integer ≥ 0), got ${JSON.stringify(params.slot)}`);
    }
    if (s.type !== "fuse_models::Unicycle2DIgnition" && params.topic == undefined && params.slot == undefined) {
      fail(p, `needs a "topic" (or a "slot" index into the pipeline inputs)`);
    }
    sensors.set(name, { type: s.type as string, motionModels: models as string[], ignition: s.ignition === true, params });
  }
  const o = value.optimizer ?? {};
  if (!isObj(o)) {
    fail(`${path}.optimizer`, "expected an object");
  }
  checkKeys(o, ["type", "lag", "updatePeriod", "transactionTimeout", "maxIterations"], `${path}.optimizer`);
  const type = o.type ?? "fixed-lag";
  if (type !== "fixed-lag" && type !== "batch") {
    fail(`${path}.optimizer.type`, `expected "fixed-lag" or "batch", got ${JSON.stringify(type)}`);
  }
  const dur = (k: string, def: number): number =>
    o[k] == undefined ? def : (checkValue("duration", o[k], `${path}.optimizer.${k}`) as number);
  const updatePeriod = dur("updatePeriod", 100_000_000);
  if (updatePeriod <= 0) {
    fail(`${path}.optimizer.updatePeriod`, "must be > 0");
  }
  const maxIterations = o.maxIterations ?? 50;
  if (typeof maxIterations !== "number" || !Number.isInteger(maxIterations) || maxIterations < 1) {
    fail(`${path}.optimizer.maxIterations`, `expected a positive integer, got ${JSON.stringify(maxIterations)}`);
  }
  return {
    uuidRecipe,
    sensors,
    motionModels,
    optimizer: {
      type,
      lag: dur("lag", 5_000_000_000),
      updatePeriod,
      transactionTimeout: dur("transactionTimeout", 100_000_000),
      maxIterations,
    },
  };
}
