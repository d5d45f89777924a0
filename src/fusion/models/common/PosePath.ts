import type { PoseMeasurement, VectorPairMeasurement } from "./measurement";
import type { PoseTwistOptions } from "./sensorFamilies";
import {
  processAbsolutePose,
  processDifferentialPose,
  processDifferentialPoseWithTwistCovariance,
  rotateVectorPair,
  transformPose,
  type PoseTarget,
  type ProcEnv,
} from "./sensorProc";
import type { Transaction } from "../../core";

/** The pose-path parameters Odometry2D and Imu2D share (reference/fuse.md §3.1, §3.2). */
export interface PosePathOptions extends Pick<PoseTwistOptions, "twistTargetFrame" | "poseLoss"> {
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
}

/**
 * The pose branch of fuse_models Odometry2D / Imu2D, with its one piece of state (the previous
 * kept pose): absolute pose constraints, or (differential) relative ones between the previous kept
 * pose and this one, with the covariance from the twist (`useTwistCovariance`, default) or from the
 * two poses. In differential mode nothing is done when no pose index is selected, and a pose that
 * cannot be transformed leaves the previous one in place. Problems go to `env.problem`.
 */
export class PosePath {
  readonly #target: PoseTarget;
  #previous: PoseMeasurement | undefined;

  public constructor(target: PoseTarget) {
    this.#target = target;
  }

  /** Forgets the previous pose (start of a run). */
  public reset(): this {
    this.#previous = undefined;
    return this;
  }

  /** Adds this message's pose constraints (if any) to `tx`. */
  public process(
    env: ProcEnv,
    o: PosePathOptions,
    pose: PoseMeasurement,
    twist: VectorPairMeasurement,
    tx: Transaction,
  ): void {
    const target = this.#target;
    const pos = target.positionIndices;
    const ori = target.orientationIndices;
    if (!(o.differential ?? false)) {
      processAbsolutePose(env, pose, o.poseLoss ?? null, target.frame, pos, ori, tx, target.mode);
      return;
    }
    if (pos.length === 0 && ori.length === 0) {
      return;
    }
    const current = transformPose(env, pose, target.frame, target.part, target.mode);
    if (current == undefined) {
      return;
    }
    const previous = this.#previous;
    if (previous == undefined) {
      // fuse only stores the first pose.
    } else if (o.useTwistCovariance ?? true) {
      const tw = rotateVectorPair(env, twist, o.twistTargetFrame ?? "", "twist");
      if (tw != undefined) {
        processDifferentialPoseWithTwistCovariance(
          env,
          previous,
          current,
          o.minimumPoseRelativeCovarianceDiagonal ?? [0, 0, 0],
          o.twistCovarianceOffsetDiagonal ?? [0, 0, 0],
          tw,
          o.poseLoss ?? null,
          target,
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
        target,
        tx,
      );
    }
    this.#previous = current;
  }
}
