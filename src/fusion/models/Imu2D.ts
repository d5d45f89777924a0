import type { LossConfig, SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { PosePath, type PosePathOptions } from "./common/PosePath";
import { angularIndices, linearIndices } from "./common/dimensions";
import type { PoseMeasurement, VectorPairMeasurement } from "./common/measurement";
import { quatInverse, quatToMatrix, rotate } from "./common/quaternion";
import { asObject, place3x3, readQuaternion, readVector3 } from "./common/rosMessages";
import { processAccel, processTwist, type OrientationTransform } from "./common/sensorProc";

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
