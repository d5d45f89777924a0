import type { LossConfig, SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { angular3DIndices, linear3DIndices } from "./common/dimensions";
import type { PoseMeasurement, VectorPairMeasurement } from "./common/measurement";
import { quatInverse, quatToMatrix, rotate } from "./common/quaternion";
import { asObject, place3x3, readQuaternion, readVector3 } from "./common/rosMessages";
import { transformPose, type OrientationTransform } from "./common/sensorProc";
import { processAbsolutePose3D, processAccel3D, processTwist3D } from "./common/sensorProc3d";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ANGULAR_3D, LINEAR_3D, SENSOR_COMMON, dims, loss } from "../registry/commonParameters";

/** fuse_models::Imu3D parameters, camelCase of fuse's YAML names. */
export interface Imu3DOptions extends CommonSensorOptions {
  readonly orientationDimensions?: readonly string[];
  readonly angularVelocityDimensions?: readonly string[];
  readonly linearAccelerationDimensions?: readonly string[];
  readonly removeGravitationalAcceleration?: boolean;
  readonly gravitationalAcceleration?: number;
  readonly orientationTargetFrame?: string;
  readonly twistTargetFrame?: string;
  readonly accelerationTargetFrame?: string;
  readonly orientationTransform?: OrientationTransform;
  readonly poseLoss?: LossConfig | null;
  readonly angularVelocityLoss?: LossConfig | null;
  readonly linearAccelerationLoss?: LossConfig | null;
}

/**
 * fuse_models::Imu3D on sensor_msgs/Imu: orientation on the selected roll/pitch/yaw
 * (Orientation3D + AbsoluteOrientation3DStampedEulerConstraint, the orientation moved into its
 * target frame), angular velocity (VelocityAngular3D) and linear acceleration
 * (AccelerationLinear3D; with `removeGravitationalAcceleration`, gravity (0, 0, g) rotated into
 * the IMU frame by the measured orientation's inverse is subtracted first), each on the selected
 * axes and rotated into its target frame. Differential mode is not supported yet.
 */
export class Imu3D extends Fuse2DSensorModel<Imu3DOptions> {
  readonly #ori: number[];
  readonly #ang: number[];
  readonly #acc: number[];

  public constructor(options: Imu3DOptions) {
    super(options);
    this.#ori = angular3DIndices(options.orientationDimensions, "orientationDimensions");
    this.#ang = angular3DIndices(options.angularVelocityDimensions, "angularVelocityDimensions");
    this.#acc = linear3DIndices(options.linearAccelerationDimensions, "linearAccelerationDimensions");
  }

  protected override process(event: SensorMessage, stamp: number, frameId: string, tx: Transaction): void {
    const o = this.options;
    const msg = asObject(event.message);
    const env = this.env;
    const orientation = readQuaternion(msg.orientation);
    if (this.#ori.length > 0) {
      const measured: PoseMeasurement = { stamp, frameId, position: [0, 0, 0], orientation, covariance: place3x3(msg.orientation_covariance, 3) };
      const pose = transformPose(env, measured, o.orientationTargetFrame ?? "", "orientation", o.orientationTransform ?? "fuse");
      if (pose) {
        processAbsolutePose3D(env, pose, o.poseLoss ?? null, [], this.#ori, tx);
      }
    }
    const twist: VectorPairMeasurement = {
      stamp,
      frameId,
      linear: [0, 0, 0],
      angular: readVector3(msg.angular_velocity),
      covariance: place3x3(msg.angular_velocity_covariance, 3),
    };
    processTwist3D(env, twist, null, o.angularVelocityLoss ?? null, o.twistTargetFrame ?? "", [], this.#ang, tx);
    const accel = readVector3(msg.linear_acceleration);
    let linear: [number, number, number] = [accel[0], accel[1], accel[2]];
    if (o.removeGravitationalAcceleration ?? false) {
      const g = rotate(quatToMatrix(quatInverse(orientation)), [0, 0, o.gravitationalAcceleration ?? 9.80665]);
      linear = [linear[0] - g[0], linear[1] - g[1], linear[2] - g[2]];
    }
    processAccel3D(
      env,
      { stamp, frameId, linear, angular: [0, 0, 0], covariance: place3x3(msg.linear_acceleration_covariance, 0) },
      o.linearAccelerationLoss ?? null,
      o.accelerationTargetFrame ?? "",
      this.#acc,
      tx,
    );
  }
}

/** fuse_models::Imu3D's plugin descriptor. */
export const IMU_3D: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Imu3D",
  help: "3D orientation, angular velocity and linear acceleration from sensor_msgs/Imu",
  messageTypes: ["sensor_msgs/Imu"],
  parameters: [
    ...SENSOR_COMMON,
    dims("orientationDimensions", ANGULAR_3D, "orientation axes (roll, pitch, yaw)"),
    dims("angularVelocityDimensions", ANGULAR_3D, "angular velocity axes"),
    dims("linearAccelerationDimensions", LINEAR_3D, "linear acceleration axes"),
    { name: "removeGravitationalAcceleration", type: { kind: "bool" }, default: false, help: "subtract gravity (rotated by the measured orientation) from the acceleration" },
    { name: "gravitationalAcceleration", type: { kind: "number" }, default: 9.80665, unit: "m/s²", help: "gravity magnitude" },
    { name: "orientationTargetFrame", type: { kind: "string" }, default: "", help: "transform the orientation into this frame" },
    { name: "twistTargetFrame", type: { kind: "string" }, default: "", help: "rotate the angular velocity into this frame" },
    { name: "accelerationTargetFrame", type: { kind: "string" }, default: "", help: "rotate the acceleration into this frame" },
    { name: "orientationTransform", type: { kind: "enum", values: ["fuse", "body"] }, default: "fuse", help: "how a mount rotation applies to the orientation (Lockstep; see Imu2D)" },
    loss("poseLoss", "orientation"),
    loss("angularVelocityLoss", "angular velocity"),
    loss("linearAccelerationLoss", "linear acceleration"),
  ],
  create: (p) => new Imu3D(p as unknown as Imu3DOptions),
};
