import { childFrameIdOf } from "../../messages";
import type { LossConfig, SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { PosePath, type PosePathOptions } from "./common/PosePath";
import { angularIndices, linearIndices } from "./common/dimensions";
import { asObject, readPoseWithCovariance, readVectorPairWithCovariance } from "./common/rosMessages";
import { processTwist } from "./common/sensorProc";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ANGULAR_2D, DIFFERENTIAL, LINEAR_2D, SENSOR_COMMON, dims, loss } from "../registry/commonParameters";

/** fuse_models::Odometry2D parameters (reference/fuse.md §3.1), camelCase of fuse's YAML names. */
export interface Odometry2DOptions extends CommonSensorOptions, PosePathOptions {
  /** `position_dimensions` ("x", "y"); default none. */
  readonly positionDimensions?: readonly string[];
  /** `orientation_dimensions` ("yaw"); default none. */
  readonly orientationDimensions?: readonly string[];
  /** `linear_velocity_dimensions` ("x", "y"); default none. */
  readonly linearVelocityDimensions?: readonly string[];
  /** `angular_velocity_dimensions` ("yaw"); default none. */
  readonly angularVelocityDimensions?: readonly string[];
  /** `pose_target_frame`; default "" (use the message frame). */
  readonly poseTargetFrame?: string;
  /** `twist_target_frame`; default "" (use child_frame_id). */
  readonly twistTargetFrame?: string;
  readonly linearVelocityLoss?: LossConfig | null;
  readonly angularVelocityLoss?: LossConfig | null;
}

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
    dims("positionDimensions", LINEAR_2D, "position axes"),
    dims("orientationDimensions", ANGULAR_2D, "orientation axes"),
    dims("linearVelocityDimensions", LINEAR_2D, "linear velocity axes"),
    dims("angularVelocityDimensions", ANGULAR_2D, "angular velocity axes"),
    { name: "useTwistCovariance", type: { kind: "bool" }, default: true, help: "differential: relative covariance from the twist covariance" },
    { name: "twistCovarianceOffsetDiagonal", type: { kind: "vector", length: 3, min: 0 }, default: [0, 0, 0], help: "differential: subtracted from the twist covariance (x, y, yaw)" },
    { name: "poseTargetFrame", type: { kind: "string" }, default: "", help: "transform the pose into this frame (empty = as received)" },
    { name: "twistTargetFrame", type: { kind: "string" }, default: "", help: "rotate the twist into this frame (empty = child_frame_id)" },
    loss("poseLoss", "pose"),
    loss("linearVelocityLoss", "linear velocity"),
    loss("angularVelocityLoss", "angular velocity"),
  ],
  create: (p) => new Odometry2D(p as unknown as Odometry2DOptions),
};
