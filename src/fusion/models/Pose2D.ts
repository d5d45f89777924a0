import type { LossConfig, SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { dimensionIndices, PLANAR_AXES } from "./common/dimensions";
import type { PoseMeasurement } from "./common/measurement";
import { asObject, readPoseWithCovariance } from "./common/rosMessages";
import { processAbsolutePose, processDifferentialPose, transformPose } from "./common/sensorProc";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ANGULAR_2D, DIFFERENTIAL, LINEAR_2D, SENSOR_COMMON, dims, loss } from "../registry/commonParameters";

/** fuse_models::Pose2D parameters (reference/fuse.md §3.3). */
export interface Pose2DOptions extends CommonSensorOptions {
  readonly positionDimensions?: readonly string[];
  readonly orientationDimensions?: readonly string[];
  readonly differential?: boolean;
  /** Differential only; default true. */
  readonly independent?: boolean;
  readonly minimumPoseRelativeCovarianceDiagonal?: readonly number[];
  /** `target_frame`; default "" (message frame). */
  readonly targetFrame?: string;
  readonly loss?: LossConfig | null;
}

/**
 * fuse_models::Pose2D on geometry_msgs/PoseWithCovarianceStamped: absolute pose constraints, or
 * relative ones between consecutive kept messages (independent or dependent covariance; no
 * twist-covariance option).
 */
export class Pose2D extends Fuse2DSensorModel<Pose2DOptions> {
  readonly #pos: readonly number[];
  readonly #ori: readonly number[];
  #previous: PoseMeasurement | undefined;

  public constructor(options: Pose2DOptions) {
    super(options);
    const d = dimensionIndices(options, PLANAR_AXES, { positionDimensions: "linear", orientationDimensions: "angular" });
    this.#pos = d.positionDimensions;
    this.#ori = d.orientationDimensions;
  }

  protected override onSensorStart(): void {
    this.#previous = undefined;
  }

  protected override process(event: SensorMessage, stamp: number, frameId: string, tx: Transaction): void {
    const o = this.options;
    const pose = readPoseWithCovariance(asObject(event.message).pose, stamp, frameId);
    const env = this.env;
    if (o.differential ?? false) {
      const current = transformPose(env, pose, o.targetFrame ?? "", "pose");
      if (current == undefined) {
        return;
      }
      if (this.#previous != undefined) {
        processDifferentialPose(
          env,
          this.#previous,
          current,
          (o.independent ?? true) ? "independent" : "dependent",
          o.minimumPoseRelativeCovarianceDiagonal ?? [0, 0, 0],
          o.loss ?? null,
          { positionIndices: this.#pos, orientationIndices: this.#ori },
          tx,
        );
      }
      this.#previous = current;
    } else {
      processAbsolutePose(env, pose, o.loss ?? null, o.targetFrame ?? "", this.#pos, this.#ori, tx);
    }
  }
}

/** fuse_models::Pose2D's plugin descriptor. */
export const POSE_2D: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Pose2D",
  help: "2D pose from geometry_msgs/PoseWithCovarianceStamped",
  messageTypes: ["geometry_msgs/PoseWithCovarianceStamped"],
  parameters: [
    ...SENSOR_COMMON,
    ...DIFFERENTIAL,
    dims("positionDimensions", LINEAR_2D, "position axes"),
    dims("orientationDimensions", ANGULAR_2D, "orientation axes"),
    { name: "targetFrame", type: { kind: "string" }, default: "", help: "transform the pose into this frame" },
    loss("loss", "pose"),
  ],
  create: (p) => new Pose2D(p as unknown as Pose2DOptions),
};
