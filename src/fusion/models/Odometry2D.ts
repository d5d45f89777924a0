import { childFrameIdOf } from "../../messages";
import type { SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { PosePath, type PosePathOptions } from "./common/PosePath";
import { angularIndices, linearIndices } from "./common/dimensions";
import { asObject, readPoseWithCovariance, readVectorPairWithCovariance } from "./common/rosMessages";
import { odometryParameters, type OdometryOptions } from "./common/sensorFamilies";
import { processTwist } from "./common/sensorProc";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ANGULAR_2D, DIFFERENTIAL, LINEAR_2D, SENSOR_COMMON } from "../registry/commonParameters";

/** fuse_models::Odometry2D parameters (reference/fuse.md §3.1): the odometry family's, plus differential mode. */
export interface Odometry2DOptions extends CommonSensorOptions, PosePathOptions, OdometryOptions {}

/**
 * fuse_models::Odometry2D on nav_msgs/Odometry (reference/fuse.md §3.1): absolute pose
 * (Position2D + Orientation2D + AbsolutePose2DStampedConstraint) or differential pose
 * (RelativePose2DStampedConstraint between consecutive kept messages; the first is only stored),
 * plus absolute linear/angular velocity constraints. Twist is only rotated into its target frame.
 */
export class Odometry2D extends Fuse2DSensorModel<Odometry2DOptions> {
  readonly #pos: number[];
  readonly #ori: number[];
  readonly #lin: number[];
  readonly #ang: number[];
  readonly #posePath: PosePath;

  public constructor(options: Odometry2DOptions) {
    super(options);
    this.#pos = linearIndices(options.positionDimensions, "positionDimensions");
    this.#ori = angularIndices(options.orientationDimensions, "orientationDimensions");
    this.#lin = linearIndices(options.linearVelocityDimensions, "linearVelocityDimensions");
    this.#ang = angularIndices(options.angularVelocityDimensions, "angularVelocityDimensions");
    this.#posePath = new PosePath({
      frame: options.poseTargetFrame ?? "",
      part: "pose",
      mode: "fuse",
      positionIndices: this.#pos,
      orientationIndices: this.#ori,
    });
  }

  protected override onSensorStart(): void {
    this.#posePath.reset();
  }

  protected override process(event: SensorMessage, stamp: number, frameId: string, tx: Transaction): void {
    const o = this.options;
    const msg = asObject(event.message);
    const pose = readPoseWithCovariance(msg.pose, stamp, frameId);
    const twist = readVectorPairWithCovariance(msg.twist, "twist", stamp, childFrameIdOf(event.message) ?? "");
    const env = this.env;
    this.#posePath.process(env, o, pose, twist, tx);
    processTwist(
      env,
      twist,
      o.linearVelocityLoss ?? null,
      o.angularVelocityLoss ?? null,
      o.twistTargetFrame ?? "",
      this.#lin,
      this.#ang,
      tx,
    );
  }
}

/** fuse_models::Odometry2D's plugin descriptor. */
export const ODOMETRY_2D: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Odometry2D",
  help: "2D pose and twist from nav_msgs/Odometry (absolute or differential pose, absolute twist)",
  messageTypes: ["nav_msgs/Odometry"],
  parameters: [
    ...SENSOR_COMMON,
    ...DIFFERENTIAL,
    { name: "useTwistCovariance", type: { kind: "bool" }, default: true, help: "differential: relative covariance from the twist covariance" },
    { name: "twistCovarianceOffsetDiagonal", type: { kind: "vector", length: 3, min: 0 }, default: [0, 0, 0], help: "differential: subtracted from the twist covariance (x, y, yaw)" },
    ...odometryParameters(LINEAR_2D, ANGULAR_2D),
  ],
  create: (p) => new Odometry2D(p as unknown as Odometry2DOptions),
};
