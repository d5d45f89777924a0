import type { SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { angular3DIndices, linear3DIndices } from "./common/dimensions";
import { imuParameters, readImu, type ImuOptions } from "./common/sensorFamilies";
import { processAccel, processTwist, transformPose } from "./common/sensorProc";
import { processAbsolutePose3D } from "./common/sensorProc3d";
import { SPATIAL } from "./common/vectorSpaces";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ANGULAR_3D, LINEAR_3D, SENSOR_COMMON } from "../registry/commonParameters";

/** fuse_models::Imu3D parameters: the IMU family's. */
export interface Imu3DOptions extends CommonSensorOptions, ImuOptions {}

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
    const imu = readImu(event.message, stamp, frameId, o);
    const env = this.env;
    if (this.#ori.length > 0) {
      const pose = transformPose(env, imu.orientation, o.orientationTargetFrame ?? "", "orientation", o.orientationTransform ?? "fuse");
      if (pose) {
        processAbsolutePose3D(env, pose, o.poseLoss ?? null, [], this.#ori, tx);
      }
    }
    processTwist(env, imu.angularVelocity, null, o.angularVelocityLoss ?? null, o.twistTargetFrame ?? "", [], this.#ang, tx, SPATIAL);
    processAccel(env, imu.linearAcceleration, o.linearAccelerationLoss ?? null, o.accelerationTargetFrame ?? "", this.#acc, tx, SPATIAL);
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
    ...imuParameters(LINEAR_3D, ANGULAR_3D),
  ],
  create: (p) => new Imu3D(p as unknown as Imu3DOptions),
};
