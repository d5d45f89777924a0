import type { LossConfig, SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { PosePath, type PosePathOptions } from "./common/PosePath";
import { angularIndices, linearIndices } from "./common/dimensions";
import type { PoseMeasurement, VectorPairMeasurement } from "./common/measurement";
import { quatInverse, quatToMatrix, rotate } from "./common/quaternion";
import { asObject, place3x3, readQuaternion, readVector3 } from "./common/rosMessages";
import { processAccel, processTwist, type OrientationTransform } from "./common/sensorProc";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ANGULAR_2D, DIFFERENTIAL, LINEAR_2D, SENSOR_COMMON, dims, loss } from "../registry/commonParameters";

/** fuse_models::Imu2D parameters (reference/fuse.md §3.2), camelCase of fuse's YAML names. */
export interface Imu2DOptions extends CommonSensorOptions, PosePathOptions {
  /** `orientation_dimensions` ("yaw"); default none. */
  readonly orientationDimensions?: readonly string[];
  /** `angular_velocity_dimensions` ("yaw"); default none. */
  readonly angularVelocityDimensions?: readonly string[];
  /** `linear_acceleration_dimensions` ("x", "y"); default none. */
  readonly linearAccelerationDimensions?: readonly string[];
  /** Subtract gravity (rotated by the inverse IMU orientation) from the acceleration. Default false. */
  readonly removeGravitationalAcceleration?: boolean;
  /** m/s²; default 9.80665. */
  readonly gravitationalAcceleration?: number;
  /** `orientation_target_frame`; default "" (IMU frame). */
  readonly orientationTargetFrame?: string;
  /** `twist_target_frame`; default "" (IMU frame). */
  readonly twistTargetFrame?: string;
  /** `acceleration_target_frame`; default "" (IMU frame). */
  readonly accelerationTargetFrame?: string;
  /**
   * Lockstep option: how the orientation enters the target frame. "fuse" (default, parity) uses
   * tf2's pose transform q_target_imu ⊗ q_measured; "body" uses q_measured ⊗ q_target_imu⁻¹ (the
   * body attitude, as robot_localization). They differ for a rotated mount.
   */
  readonly orientationTransform?: OrientationTransform;
  readonly angularVelocityLoss?: LossConfig | null;
  readonly linearAccelerationLoss?: LossConfig | null;
}

/**
 * fuse_models::Imu2D on sensor_msgs/Imu (reference/fuse.md §3.2): orientation through the pose
 * path with no position indices (so Position2D at (0, 0) is added too), angular velocity, and
 * linear acceleration (optionally gravity-compensated in the IMU frame, then rotated).
 */
export class Imu2D extends Fuse2DSensorModel<Imu2DOptions> {
  readonly #ori: number[];
  readonly #ang: number[];
  readonly #acc: number[];
  readonly #posePath: PosePath;

  public constructor(options: Imu2DOptions) {
    super(options);
    this.#ori = angularIndices(options.orientationDimensions, "orientationDimensions");
    this.#ang = angularIndices(options.angularVelocityDimensions, "angularVelocityDimensions");
    this.#acc = linearIndices(options.linearAccelerationDimensions, "linearAccelerationDimensions");
    this.#posePath = new PosePath({
      frame: options.orientationTargetFrame ?? "",
      part: "orientation",
      mode: options.orientationTransform ?? "fuse",
      positionIndices: [],
      orientationIndices: this.#ori,
    });
  }

  protected override onSensorStart(): void {
    this.#posePath.reset();
  }

  protected override process(event: SensorMessage, stamp: number, frameId: string, tx: Transaction): void {
    const o = this.options;
    const msg = asObject(event.message);
    const orientation = readQuaternion(msg.orientation);
    const pose: PoseMeasurement = {
      stamp,
      frameId,
      position: [0, 0, 0],
      orientation,
      covariance: place3x3(msg.orientation_covariance, 3),
    };
    const twist: VectorPairMeasurement = {
      stamp,
      frameId,
      linear: [0, 0, 0],
      angular: readVector3(msg.angular_velocity),
      covariance: place3x3(msg.angular_velocity_covariance, 3),
    };
    const env = this.env;
    this.#posePath.process(env, o, pose, twist, tx);
    processTwist(env, twist, null, o.angularVelocityLoss ?? null, o.twistTargetFrame ?? "", [], this.#ang, tx);

    const accel = readVector3(msg.linear_acceleration);
    let linear: [number, number, number] = [accel[0], accel[1], accel[2]];
    if (o.removeGravitationalAcceleration ?? false) {
      const g = rotate(quatToMatrix(quatInverse(orientation)), [0, 0, o.gravitationalAcceleration ?? 9.80665]);
      linear = [linear[0] - g[0], linear[1] - g[1], linear[2] - g[2]];
    }
    processAccel(
      env,
      { stamp, frameId, linear, angular: [0, 0, 0], covariance: place3x3(msg.linear_acceleration_covariance, 0) },
      o.linearAccelerationLoss ?? null,
      o.accelerationTargetFrame ?? "",
      this.#acc,
      tx,
    );
  }
}

/** fuse_models::Imu2D's plugin descriptor. */
export const IMU_2D: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Imu2D",
  help: "yaw, yaw rate and planar acceleration from sensor_msgs/Imu",
  messageTypes: ["sensor_msgs/Imu"],
  parameters: [
    ...SENSOR_COMMON,
    ...DIFFERENTIAL,
    dims("orientationDimensions", ANGULAR_2D, "orientation axes"),
    dims("angularVelocityDimensions", ANGULAR_2D, "angular velocity axes"),
    dims("linearAccelerationDimensions", LINEAR_2D, "linear acceleration axes"),
    { name: "useTwistCovariance", type: { kind: "bool" }, default: true, help: "differential: relative covariance from the angular velocity covariance" },
    { name: "twistCovarianceOffsetDiagonal", type: { kind: "vector", length: 3, min: 0 }, default: [0, 0, 0], help: "differential: subtracted from the twist covariance" },
    { name: "removeGravitationalAcceleration", type: { kind: "bool" }, default: false, help: "subtract gravity (rotated by the measured orientation) from the acceleration" },
    { name: "gravitationalAcceleration", type: { kind: "number" }, default: 9.80665, unit: "m/s²", help: "gravity magnitude" },
    { name: "orientationTargetFrame", type: { kind: "string" }, default: "", help: "transform the orientation into this frame" },
    { name: "twistTargetFrame", type: { kind: "string" }, default: "", help: "rotate the angular velocity into this frame" },
    { name: "accelerationTargetFrame", type: { kind: "string" }, default: "", help: "rotate the acceleration into this frame" },
    { name: "orientationTransform", type: { kind: "enum", values: ["fuse", "body"] }, default: "fuse", help: "how a mount rotation applies to the orientation: fuse's q_target_imu ⊗ q (\"fuse\") or the body attitude q ⊗ q_target_imu⁻¹ (\"body\") (Lockstep)" },
    loss("poseLoss", "orientation"),
    loss("angularVelocityLoss", "angular velocity"),
    loss("linearAccelerationLoss", "linear acceleration"),
  ],
  create: (p) => new Imu2D(p as unknown as Imu2DOptions),
};
