import type { SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { PosePath, type PosePathOptions } from "./common/PosePath";
import { angularIndices, linearIndices } from "./common/dimensions";
import { imuParameters, readImu, type ImuOptions } from "./common/sensorFamilies";
import { processAccel, processTwist } from "./common/sensorProc";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ANGULAR_2D, DIFFERENTIAL, LINEAR_2D, SENSOR_COMMON } from "../registry/commonParameters";

/** fuse_models::Imu2D parameters (reference/fuse.md §3.2): the IMU family's, plus differential mode. */
export interface Imu2DOptions extends CommonSensorOptions, PosePathOptions, ImuOptions {}

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
    const imu = readImu(event.message, stamp, frameId, o);
    const env = this.env;
    this.#posePath.process(env, o, imu.orientation, imu.angularVelocity, tx);
    processTwist(env, imu.angularVelocity, null, o.angularVelocityLoss ?? null, o.twistTargetFrame ?? "", [], this.#ang, tx);
    processAccel(env, imu.linearAcceleration, o.linearAccelerationLoss ?? null, o.accelerationTargetFrame ?? "", this.#acc, tx);
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
    { name: "useTwistCovariance", type: { kind: "bool" }, default: true, help: "differential: relative covariance from the angular velocity covariance" },
    { name: "twistCovarianceOffsetDiagonal", type: { kind: "vector", length: 3, min: 0 }, default: [0, 0, 0], help: "differential: subtracted from the twist covariance" },
    ...imuParameters(LINEAR_2D, ANGULAR_2D),
  ],
  create: (p) => new Imu2D(p as unknown as Imu2DOptions),
};
