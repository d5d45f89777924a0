import { childFrameIdOf } from "../../messages";
import type { SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { angular3DIndices, linear3DIndices } from "./common/dimensions";
import { asObject, readPoseWithCovariance, readVectorPairWithCovariance } from "./common/rosMessages";
import { odometryParameters, type OdometryOptions } from "./common/sensorFamilies";
import { processTwist, transformPose } from "./common/sensorProc";
import { processAbsolutePose3D } from "./common/sensorProc3d";
import { SPATIAL } from "./common/vectorSpaces";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ANGULAR_3D, LINEAR_3D, SENSOR_COMMON } from "../registry/commonParameters";

/** fuse_models::Odometry3D parameters: the odometry family's. */
export interface Odometry3DOptions extends CommonSensorOptions, OdometryOptions {}

/**
 * fuse_models::Odometry3D on nav_msgs/Odometry: absolute pose on the selected axes
 * (Position3D + Orientation3D + AbsolutePose3DStampedConstraint, or orientation alone with the
 * Euler constraint) and absolute linear / angular velocity on the selected axes (twist only
 * rotated into its target frame). Differential mode is not supported yet (a config error).
 */
export class Odometry3D extends Fuse2DSensorModel<Odometry3DOptions> {
  readonly #pos: number[];
  readonly #ori: number[];
  readonly #lin: number[];
  readonly #ang: number[];

  public constructor(options: Odometry3DOptions) {
    super(options);
    this.#pos = linear3DIndices(options.positionDimensions, "positionDimensions");
    this.#ori = angular3DIndices(options.orientationDimensions, "orientationDimensions");
    this.#lin = linear3DIndices(options.linearVelocityDimensions, "linearVelocityDimensions");
    this.#ang = angular3DIndices(options.angularVelocityDimensions, "angularVelocityDimensions");
  }

  protected override process(event: SensorMessage, stamp: number, frameId: string, tx: Transaction): void {
    const o = this.options;
    const msg = asObject(event.message);
    const env = this.env;
    if (this.#pos.length > 0 || this.#ori.length > 0) {
      const pose = transformPose(env, readPoseWithCovariance(msg.pose, stamp, frameId), o.poseTargetFrame ?? "", "pose");
      if (pose) {
        processAbsolutePose3D(env, pose, o.poseLoss ?? null, this.#pos, this.#ori, tx);
      }
    }
    const twist = readVectorPairWithCovariance(msg.twist, "twist", stamp, childFrameIdOf(event.message) ?? "");
    processTwist(env, twist, o.linearVelocityLoss ?? null, o.angularVelocityLoss ?? null, o.twistTargetFrame ?? "", this.#lin, this.#ang, tx, SPATIAL);
  }
}

/** fuse_models::Odometry3D's plugin descriptor. */
export const ODOMETRY_3D: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Odometry3D",
  help: "3D pose and twist from nav_msgs/Odometry (absolute, selected axes)",
  messageTypes: ["nav_msgs/Odometry"],
  parameters: [
    ...SENSOR_COMMON,
    ...odometryParameters(LINEAR_3D, ANGULAR_3D),
  ],
  create: (p) => new Odometry3D(p as unknown as Odometry3DOptions),
};
