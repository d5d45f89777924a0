import { childFrameIdOf } from "../../messages";
import type { LossConfig, SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { PosePath, type PosePathOptions } from "./common/PosePath";
import { angularIndices, linearIndices } from "./common/dimensions";
import { asObject, readPoseWithCovariance, readVectorPairWithCovariance } from "./common/rosMessages";
import { processTwist } from "./common/sensorProc";

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
