import { childFrameIdOf } from "../../messages";
import type { LossConfig, SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { angularIndices, linearIndices } from "./common/dimensions";
import type { PoseMeasurement } from "./common/measurement";
import { asObject, readPoseWithCovariance, readVectorPairWithCovariance } from "./common/rosMessages";
import {
  processAbsolutePose,
  processDifferentialPose,
  processDifferentialPoseWithTwistCovariance,
  processTwist,
  rotateVectorPair,
  transformPose,
} from "./common/sensorProc";

/** fuse_models::Odometry2D parameters (reference/fuse.md §3.1), camelCase of fuse's YAML names. */
export interface Odometry2DOptions extends CommonSensorOptions {
  /** `position_dimensions` ("x", "y"); default none. */
  readonly positionDimensions?: readonly string[];
  /** `orientation_dimensions` ("yaw"); default none. */
  readonly orientationDimensions?: readonly string[];
  /** `linear_velocity_dimensions` ("x", "y"); default none. */
  readonly linearVelocityDimensions?: readonly string[];
  /** `angular_velocity_dimensions` ("yaw"); default none. */
  readonly angularVelocityDimensions?: readonly string[];
  /** Relative pose constraints between consecutive messages. Default false. */
  readonly differential?: boolean;
  /** Differential only: independent pose covariances. Default true. */
  readonly independent?: boolean;
  /** Differential only: build the relative covariance from the twist. Default true. */
  readonly useTwistCovariance?: boolean;
  /** Differential only: added to the relative covariance (3 values, default 0). */
  readonly minimumPoseRelativeCovarianceDiagonal?: readonly number[];
  /** Differential only: subtracted from the twist covariance (3 values, default 0). */
  readonly twistCovarianceOffsetDiagonal?: readonly number[];
  /** `pose_target_frame`; default "" (use the message frame). */
  readonly poseTargetFrame?: string;
  /** `twist_target_frame`; default "" (use child_frame_id). */
  readonly twistTargetFrame?: string;
  readonly poseLoss?: LossConfig | null;
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
  #previous: PoseMeasurement | undefined;

  public constructor(options: Odometry2DOptions) {
    super(options);
    this.#pos = linearIndices(options.positionDimensions, "positionDimensions");
    this.#ori = angularIndices(options.orientationDimensions, "orientationDimensions");
    this.#lin = linearIndices(options.linearVelocityDimensions, "linearVelocityDimensions");
    this.#ang = angularIndices(options.angularVelocityDimensions, "angularVelocityDimensions");
  }

  protected override onSensorStart(): void {
    this.#previous = undefined;
  }

  protected override process(event: SensorMessage, stamp: number, frameId: string, tx: Transaction): void {
    const o = this.options;
    const msg = asObject(event.message);
    const pose = readPoseWithCovariance(msg.pose, stamp, frameId);
    const twist = readVectorPairWithCovariance(msg.twist, "twist", stamp, childFrameIdOf(event.message) ?? "");
    const env = this.env;
    if (o.differential ?? false) {
      if (this.#pos.length > 0 || this.#ori.length > 0) {
        const current = transformPose(env, pose, o.poseTargetFrame ?? "", "pose");
        if (current != undefined) {
          const previous = this.#previous;
          if (previous != undefined) {
            if (o.useTwistCovariance ?? true) {
              const tw = rotateVectorPair(env, twist, o.twistTargetFrame ?? "", "twist");
              if (tw != undefined) {
                processDifferentialPoseWithTwistCovariance(
                  env,
                  previous,
                  current,
                  tw,
                  o.minimumPoseRelativeCovarianceDiagonal ?? [0, 0, 0],
                  o.twistCovarianceOffsetDiagonal ?? [0, 0, 0],
                  o.poseLoss ?? null,
                  this.#pos,
                  this.#ori,
                  tx,
                );
              }
            } else {
              processDifferentialPose(
                env,
                previous,
                current,
                (o.independent ?? true) ? "independent" : "dependent",
                o.minimumPoseRelativeCovarianceDiagonal ?? [0, 0, 0],
                o.poseLoss ?? null,
                this.#pos,
                this.#ori,
                tx,
              );
            }
          }
          this.#previous = current;
        }
      }
    } else {
      processAbsolutePose(env, pose, o.poseLoss ?? null, o.poseTargetFrame ?? "", this.#pos, this.#ori, tx);
    }
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
