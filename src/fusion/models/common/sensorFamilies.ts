import type { AxisNames } from "./dimensions";
import type { PoseMeasurement, VectorPairMeasurement } from "./measurement";
import { quatInverse, quatToMatrix, rotate } from "./quaternion";
import { asObject, place3x3, readPoseWithCovariance, readQuaternion, readVector3, readVectorPairWithCovariance } from "./rosMessages";
import { processAccel, processTwist, type OrientationTransform, type PoseTarget, type ProcEnv } from "./sensorProc";
import type { VectorSpace } from "./vectorSpaces";
import { childFrameIdOf } from "../../../messages";
import type { LossConfig, Transaction } from "../../core";
import { DEVICE, dims, loss } from "../../registry/commonParameters";
import type { ParameterKind, ParameterSpec } from "../../registry/parameters";

// fuse_models' Imu2D/Imu3D and Odometry2D/Odometry3D read the same parameters (the same YAML
// names; only the dimension names a 2D or 3D variable accepts differ) and the same message parts:
// each family's options, parameter specs and message handling are defined here once.

/** One message of a sensor family: its pose part and the twist that came with it. */
export interface FamilyMessage {
  readonly pose: PoseMeasurement;
  readonly twist: VectorPairMeasurement;
}

/**
 * What the 2D and 3D sensors of one fuse_models family share, whatever the space: which variable
 * kind each `*Dimensions` option names, where the pose part goes, how a message is read, and the
 * constraints on everything but the pose (added after the pose's).
 */
export interface SensorFamily<O, M extends FamilyMessage, K extends string> {
  /** ROS message types its sensors read. */
  readonly messageTypes: readonly string[];
  /** The family's parameter specs, with the given dimension names. */
  parameters(linear: ParameterKind, angular: ParameterKind): ParameterSpec[];
  /** Help of the 2D pose path's twist-covariance parameters, in the family's words. */
  readonly posePathHelp: { readonly useTwistCovariance: string; readonly twistCovarianceOffsetDiagonal: string };
  readonly dimensions: Readonly<Record<K, keyof AxisNames>>;
  poseTarget(options: O, selected: Readonly<Record<K, readonly number[]>>): PoseTarget;
  read(message: unknown, stamp: number, frameId: string, options: O): M;
  processRest(env: ProcEnv, m: M, options: O, selected: Readonly<Record<K, readonly number[]>>, space: VectorSpace, tx: Transaction): void;
}

/** The parameters fuse_models' IMU and odometry sensors (2D and 3D) all read, camelCase of fuse's YAML names. */
export interface PoseTwistOptions {
  /** `orientation_dimensions` (2D: "yaw"; 3D: "roll", "pitch", "yaw"); default none. */
  readonly orientationDimensions?: readonly string[];
  /** `angular_velocity_dimensions`; default none. */
  readonly angularVelocityDimensions?: readonly string[];
  /** `twist_target_frame`; default "" (the IMU frame; odometry: its child_frame_id). */
  readonly twistTargetFrame?: string;
  readonly poseLoss?: LossConfig | null;
  readonly angularVelocityLoss?: LossConfig | null;
}

/** The parameters fuse_models::Imu2D and Imu3D share. */
export interface ImuOptions extends PoseTwistOptions {
  /** `linear_acceleration_dimensions` (2D: "x", "y"; 3D: also "z"); default none. */
  readonly linearAccelerationDimensions?: readonly string[];
  /** Subtract gravity (rotated by the inverse IMU orientation) from the acceleration. Default false. */
  readonly removeGravitationalAcceleration?: boolean;
  /** m/s²; default 9.80665. */
  readonly gravitationalAcceleration?: number;
  /** `orientation_target_frame`; default "" (IMU frame). */
  readonly orientationTargetFrame?: string;
  /** `acceleration_target_frame`; default "" (IMU frame). */
  readonly accelerationTargetFrame?: string;
  /**
   * Lockstep option: how the orientation enters the target frame. "fuse" (default, parity) uses
   * tf2's pose transform q_target_imu ⊗ q_measured; "body" uses q_measured ⊗ q_target_imu⁻¹ (the
   * body attitude, as robot_localization). They differ for a rotated mount.
   */
  readonly orientationTransform?: OrientationTransform;
  readonly linearAccelerationLoss?: LossConfig | null;
}

/** The parameters fuse_models::Odometry2D and Odometry3D share. */
export interface OdometryOptions extends PoseTwistOptions {
  /** `position_dimensions`; default none. */
  readonly positionDimensions?: readonly string[];
  /** `linear_velocity_dimensions`; default none. */
  readonly linearVelocityDimensions?: readonly string[];
  /** `pose_target_frame`; default "" (use the message frame). */
  readonly poseTargetFrame?: string;
  readonly linearVelocityLoss?: LossConfig | null;
}

/**
 * The parameters fuse_models' ignition sensors (Unicycle2DIgnition, Omnidirectional3DIgnition)
 * share; the state's length and order are the motion model's.
 */
export interface IgnitionOptions {
  /** The state in the motion model's order; default zeros. */
  readonly initialState?: readonly number[];
  /** Standard deviations in the same order; default 1e-9 each. */
  readonly initialSigma?: readonly number[];
  /** Send the prior when started (once ever). Default true. */
  readonly publishOnStartup?: boolean;
  /** `set_pose` topic (geometry_msgs/PoseWithCovarianceStamped); default "set_pose". */
  readonly topic?: string;
  readonly loss?: LossConfig | null;
  readonly deviceId?: string;
  readonly deviceName?: string;
}

/** The IgnitionOptions parameter specs for a state of the named components (in order). */
export function ignitionParameters(components: readonly string[]): ParameterSpec[] {
  const n = components.length;
  return [
    { name: "initialState", type: { kind: "vector", length: n }, default: new Array<number>(n).fill(0), help: components.join(", ") },
    { name: "initialSigma", type: { kind: "vector", length: n, min: 0, exclusiveMin: true }, default: new Array<number>(n).fill(1e-9), help: "standard deviations of the initial state, same order" },
    { name: "publishOnStartup", type: { kind: "bool" }, default: true, help: "send the prior when started" },
    { name: "topic", type: { kind: "string" }, default: "set_pose", help: "set_pose topic" },
    loss("loss", "prior"),
    ...DEVICE,
    { name: "queueSize", type: { kind: "integer", min: 1 }, default: 10, help: "subscriber queue size (read for parity)" },
  ];
}

/** The ImuOptions parameter specs, with the dimension names of the 2D or 3D variables. */
export function imuParameters(linear: ParameterKind, angular: ParameterKind): ParameterSpec[] {
  return [
    dims("orientationDimensions", angular, "orientation axes"),
    dims("angularVelocityDimensions", angular, "angular velocity axes"),
    dims("linearAccelerationDimensions", linear, "linear acceleration axes"),
    { name: "removeGravitationalAcceleration", type: { kind: "bool" }, default: false, help: "subtract gravity (rotated by the measured orientation) from the acceleration" },
    { name: "gravitationalAcceleration", type: { kind: "number" }, default: 9.80665, unit: "m/s²", help: "gravity magnitude" },
    { name: "orientationTargetFrame", type: { kind: "string" }, default: "", help: "transform the orientation into this frame" },
    { name: "twistTargetFrame", type: { kind: "string" }, default: "", help: "rotate the angular velocity into this frame" },
    { name: "accelerationTargetFrame", type: { kind: "string" }, default: "", help: "rotate the acceleration into this frame" },
    {
      name: "orientationTransform",
      type: { kind: "enum", values: ["fuse", "body"] },
      default: "fuse",
      help: "how a mount rotation applies to the orientation: fuse's q_target_imu ⊗ q (\"fuse\") or the body attitude q ⊗ q_target_imu⁻¹ (\"body\") (Lockstep)",
    },
    loss("poseLoss", "orientation"),
    loss("angularVelocityLoss", "angular velocity"),
    loss("linearAccelerationLoss", "linear acceleration"),
  ];
}

/** The OdometryOptions parameter specs, with the dimension names of the 2D or 3D variables. */
export function odometryParameters(linear: ParameterKind, angular: ParameterKind): ParameterSpec[] {
  return [
    dims("positionDimensions", linear, "position axes"),
    dims("orientationDimensions", angular, "orientation axes"),
    dims("linearVelocityDimensions", linear, "linear velocity axes"),
    dims("angularVelocityDimensions", angular, "angular velocity axes"),
    { name: "poseTargetFrame", type: { kind: "string" }, default: "", help: "transform the pose into this frame (empty = as received)" },
    { name: "twistTargetFrame", type: { kind: "string" }, default: "", help: "rotate the twist into this frame (empty = child_frame_id)" },
    loss("poseLoss", "pose"),
    loss("linearVelocityLoss", "linear velocity"),
    loss("angularVelocityLoss", "angular velocity"),
  ];
}

/** A sensor_msgs/Imu message as fuse_models' IMU sensors read it, in the IMU frame. */
export interface ImuMeasurements extends FamilyMessage {
  /** The orientation as a pose at the origin (orientation covariance in the rotational block). */
  readonly pose: PoseMeasurement;
  /** The angular velocity as a twist with zero linear part. */
  readonly twist: VectorPairMeasurement;
  /** The linear acceleration, gravity removed when the options ask for it. */
  readonly acceleration: VectorPairMeasurement;
}

/**
 * Reads an Imu message (fuse's imu_2d / imu_3d onMessage): with `removeGravitationalAcceleration`,
 * gravity (0, 0, g) rotated into the IMU frame by the measured orientation's inverse is subtracted
 * from the acceleration.
 */
export function readImu(message: unknown, stamp: number, frameId: string, options: ImuOptions): ImuMeasurements {
  const msg = asObject(message);
  const orientation = readQuaternion(msg.orientation);
  const accel = readVector3(msg.linear_acceleration);
  let linear: [number, number, number] = [accel[0], accel[1], accel[2]];
  if (options.removeGravitationalAcceleration ?? false) {
    const g = rotate(quatToMatrix(quatInverse(orientation)), [0, 0, options.gravitationalAcceleration ?? 9.80665]);
    linear = [linear[0] - g[0], linear[1] - g[1], linear[2] - g[2]];
  }
  return {
    pose: { stamp, frameId, position: [0, 0, 0], orientation, covariance: place3x3(msg.orientation_covariance, 3) },
    twist: {
      stamp,
      frameId,
      linear: [0, 0, 0],
      angular: readVector3(msg.angular_velocity),
      covariance: place3x3(msg.angular_velocity_covariance, 3),
    },
    acceleration: { stamp, frameId, linear, angular: [0, 0, 0], covariance: place3x3(msg.linear_acceleration_covariance, 0) },
  };
}

/** The IMU family's `*Dimensions` options. */
export type ImuDimension = "orientationDimensions" | "angularVelocityDimensions" | "linearAccelerationDimensions";

/**
 * fuse_models' IMU family: the orientation alone (no position axes) into `orientationTargetFrame`
 * per `orientationTransform`; then the angular velocity and the linear acceleration, each rotated
 * into its target frame.
 */
export const IMU_FAMILY: SensorFamily<ImuOptions, ImuMeasurements, ImuDimension> = {
  messageTypes: ["sensor_msgs/Imu"],
  parameters: imuParameters,
  posePathHelp: {
    useTwistCovariance: "differential: relative covariance from the angular velocity covariance",
    twistCovarianceOffsetDiagonal: "differential: subtracted from the twist covariance",
  },
  dimensions: { orientationDimensions: "angular", angularVelocityDimensions: "angular", linearAccelerationDimensions: "linear" },
  poseTarget: (o, d) => ({ frame: o.orientationTargetFrame ?? "", part: "orientation", mode: o.orientationTransform ?? "fuse", positionIndices: [], orientationIndices: d.orientationDimensions }),
  read: readImu,
  processRest: (env, imu, o, d, space, tx) => {
    processTwist(env, imu.twist, null, o.angularVelocityLoss ?? null, o.twistTargetFrame ?? "", [], d.angularVelocityDimensions, tx, space);
    processAccel(env, imu.acceleration, o.linearAccelerationLoss ?? null, o.accelerationTargetFrame ?? "", d.linearAccelerationDimensions, tx, space);
  },
};

/** The odometry family's `*Dimensions` options. */
export type OdometryDimension = "positionDimensions" | "orientationDimensions" | "linearVelocityDimensions" | "angularVelocityDimensions";

/**
 * fuse_models' odometry family: the pose into `poseTargetFrame` (tf2's pose transform); then the
 * twist (in child_frame_id) with absolute velocity constraints, only rotated into its target frame.
 */
export const ODOMETRY_FAMILY: SensorFamily<OdometryOptions, FamilyMessage, OdometryDimension> = {
  messageTypes: ["nav_msgs/Odometry"],
  parameters: odometryParameters,
  posePathHelp: {
    useTwistCovariance: "differential: relative covariance from the twist covariance",
    twistCovarianceOffsetDiagonal: "differential: subtracted from the twist covariance (x, y, yaw)",
  },
  dimensions: {
    positionDimensions: "linear",
    orientationDimensions: "angular",
    linearVelocityDimensions: "linear",
    angularVelocityDimensions: "angular",
  },
  poseTarget: (o, d) => ({ frame: o.poseTargetFrame ?? "", part: "pose", mode: "fuse", positionIndices: d.positionDimensions, orientationIndices: d.orientationDimensions }),
  read: (message, stamp, frameId) => {
    const msg = asObject(message);
    return {
      pose: readPoseWithCovariance(msg.pose, stamp, frameId),
      twist: readVectorPairWithCovariance(msg.twist, "twist", stamp, childFrameIdOf(message) ?? ""),
    };
  },
  processRest: (env, m, o, d, space, tx) => {
    processTwist(env, m.twist, o.linearVelocityLoss ?? null, o.angularVelocityLoss ?? null, o.twistTargetFrame ?? "", d.linearVelocityDimensions, d.angularVelocityDimensions, tx, space);
  },
};
