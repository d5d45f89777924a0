import type { ParameterKind, ParameterSpec } from "./parameters";

/** Dimension names a 2D linear variable accepts. */
export const LINEAR_2D: ParameterKind = { kind: "dimensions", allowed: ["x", "y"] };
/** Dimension names a 2D angular variable accepts ("z" is fuse's alias of yaw). */
export const ANGULAR_2D: ParameterKind = { kind: "dimensions", allowed: ["yaw", "z"] };
/** Dimension names a 3D linear variable accepts. */
export const LINEAR_3D: ParameterKind = { kind: "dimensions", allowed: ["x", "y", "z"] };
/** Dimension names a 3D angular variable accepts (fuse's aliases x, y, z too). */
export const ANGULAR_3D: ParameterKind = { kind: "dimensions", allowed: ["roll", "pitch", "yaw", "x", "y", "z"] };
/** A robust loss (fuse_loss). */
export const LOSS: ParameterKind = { kind: "loss" };

/** A `*_dimensions` parameter. */
export function dims(name: string, type: ParameterKind, what: string): ParameterSpec {
  return { name, type, default: [], help: `${what} measured (empty = not used)` };
}

/** A `*_loss` parameter. */
export function loss(name: string, what: string): ParameterSpec {
  return { name, type: LOSS, default: null, help: `robust loss of the ${what} constraints (null = none)` };
}

/** Parameters every fuse_models sensor reads (reference/fuse.md §3 "Other common parameters"). */
export const SENSOR_COMMON: readonly ParameterSpec[] = [
  { name: "topic", type: { kind: "string" }, help: "input topic (or give `slot`)" },
  { name: "slot", type: { kind: "integer", min: 0 }, help: "pipeline input index whose topic the sensor reads (Lockstep; instead of `topic`)" },
  { name: "throttlePeriod", type: { kind: "duration" }, default: 0, unit: "ns", help: "keep at most one message per period, by receive time (0 = off)" },
  { name: "throttleUseWallTime", type: { kind: "bool" }, default: false, help: "throttle by wall time (read for parity; receive time is used)" },
  { name: "disableChecks", type: { kind: "bool" }, default: false, help: "skip the mean and covariance validation" },
  { name: "deviceId", type: { kind: "uuid" }, help: "device UUID of the variables (default from deviceName, else NIL)" },
  { name: "deviceName", type: { kind: "string" }, help: "device name; device id = uuid5(NIL, name)" },
  { name: "queueSize", type: { kind: "integer", min: 1 }, default: 10, help: "subscriber queue size (read for parity)" },
  { name: "tfTimeout", type: { kind: "duration" }, default: 0, unit: "ns", help: "how long a transform lookup may wait (read for parity)" },
];

/** The differential-mode parameters of Odometry*, Imu*, Pose*. */
export const DIFFERENTIAL: readonly ParameterSpec[] = [
  { name: "differential", type: { kind: "bool" }, default: false, help: "relative constraints between consecutive poses instead of absolute ones" },
  { name: "independent", type: { kind: "bool" }, default: true, help: "differential: treat consecutive pose covariances as independent" },
  {
    name: "minimumPoseRelativeCovarianceDiagonal",
    type: { kind: "vector", length: 3, min: 0 },
    default: [0, 0, 0],
    help: "differential: added to the relative pose covariance (x, y, yaw)",
  },
];

/** The device parameters of motion models and ignition sensors. */
export const DEVICE: readonly ParameterSpec[] = [
  { name: "deviceId", type: { kind: "uuid" }, help: "device UUID of the variables (default from deviceName, else NIL)" },
  { name: "deviceName", type: { kind: "string" }, help: "device name; device id = uuid5(NIL, name)" },
];

/** A state-chain motion model's `processNoiseDiagonal`: one variance per second for each state component. */
export function processNoiseDiagonal(components: readonly string[]): ParameterSpec {
  return {
    name: "processNoiseDiagonal",
    type: { kind: "vector", length: components.length, min: 0 },
    required: true,
    help: `process-noise variances per second (${components.join(", ")})`,
  };
}

/** The parameters every fuse_models state-chain motion model reads after its own. */
export const STATE_CHAIN: readonly ParameterSpec[] = [
  { name: "bufferLength", type: { kind: "duration" }, default: 3_000_000_000, unit: "ns", help: "state history kept (0 = unlimited)" },
  { name: "disableChecks", type: { kind: "bool" }, default: false, help: "skip the state and covariance validation" },
  ...DEVICE,
];
