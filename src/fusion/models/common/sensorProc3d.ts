import type { PoseMeasurement } from "./measurement";
import { check, measuredConstraint, transformPose, type PoseTarget, type ProcEnv } from "./sensorProc";
import {
  ABSOLUTE_ORIENTATION_3D_EULER,
  ABSOLUTE_POSE_3D,
  Constraint,
  linalg,
  ORIENTATION_3D,
  POSITION_3D,
  Variable,
  zeros,
  type LossConfig,
  type Matrix,
  type Transaction,
} from "../../core";
import { rpyOfQuaternion } from "../../math/rotation3d";

/** The 3×3 block of a 6×6 ROS covariance starting at row/column `offset` (0 linear, 3 angular). */
function block3(cov: ArrayLike<number>, offset: number): Matrix {
  const m = zeros(3, 3);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      m.data[i * 3 + j] = cov[(i + offset) * 6 + (j + offset)]!;
    }
  }
  return m;
}

/**
 * fuse's 3D absolute pose processing: the pose moved into `target.frame` (orientation per
 * `target.mode`), then with position axes selected, Position3D + Orientation3D and an
 * AbsolutePose3DStampedConstraint over the selected (x, y, z | roll, pitch, yaw) axes; with
 * orientation axes only, Orientation3D and an AbsoluteOrientation3DStampedEulerConstraint on the
 * selected roll/pitch/yaw (the covariance's rotational block). Nothing when no axis is selected or
 * the transform is unavailable (a recorded problem). True when something was added.
 */
export function processAbsolutePose3D(
  env: ProcEnv,
  measured: PoseMeasurement,
  loss: LossConfig | null,
  target: PoseTarget,
  tx: Transaction,
): boolean {
  const { positionIndices, orientationIndices } = target;
  if (positionIndices.length === 0 && orientationIndices.length === 0) {
    return false;
  }
  const pose = transformPose(env, measured, target.frame, target.part, target.mode);
  if (pose == undefined) {
    return false;
  }
  const [qx, qy, qz, qw] = pose.orientation;
  const n = Math.hypot(qx, qy, qz, qw);
  const q = [qw / n, qx / n, qy / n, qz / n];
  const ori = Variable.stamped(env.ids, ORIENTATION_3D, pose.stamp, env.deviceId, q);
  if (positionIndices.length === 0) {
    const rpy = new Float64Array(3);
    rpyOfQuaternion(q, 0, rpy, 0);
    const mean = orientationIndices.map((i) => rpy[i]!);
    const sub = linalg.subMatrix(block3(pose.covariance, 3), orientationIndices);
    if (!check(env, "orientation", mean, sub)) {
      return false;
    }
    tx.addVariable(ori);
    tx.addConstraint(
      measuredConstraint(env, { type: ABSOLUTE_ORIENTATION_3D_EULER, variables: [ori.uuid], mean: rpy, partialCovariance: sub, indices: orientationIndices, loss }),
    );
  } else {
    const indices = [...positionIndices, ...orientationIndices.map((i) => i + 3)];
    const full = zeros(6, 6);
    for (let i = 0; i < 36; i++) {
      full.data[i] = pose.covariance[i]!;
    }
    const sub = linalg.subMatrix(full, indices);
    const value = [...pose.position, ...q];
    if (!check(env, "pose", indices.map((i) => (i < 3 ? pose.position[i]! : 0)), sub)) {
      return false;
    }
    const pos = Variable.stamped(env.ids, POSITION_3D, pose.stamp, env.deviceId, pose.position);
    tx.addVariable(pos);
    tx.addVariable(ori);
    // The mean is 7 values (x, y, z, qw, qx, qy, qz); A's 6 columns are position and rotation vector.
    const { sqrtInformation, covariance } = env.covariances.whiten(sub, indices, 6, ABSOLUTE_POSE_3D);
    tx.addConstraint(
      new Constraint({ type: ABSOLUTE_POSE_3D, source: env.source, variables: [pos.uuid, ori.uuid], mean: value, sqrtInformation, covariance, loss }),
    );
  }
  tx.addInvolvedStamp(pose.stamp);
  return true;
}

/**
 * The 3D sensors' pose handling: absolute constraints only (fuse's 3D differential mode is not
 * supported yet), so nothing to forget between runs.
 */
export class AbsolutePose3D {
  readonly #target: PoseTarget;

  public constructor(target: PoseTarget) {
    this.#target = target;
  }

  /** Nothing to forget (start of a run). */
  public reset(): this {
    return this;
  }

  /** Adds the message's absolute pose constraint (if any) to `tx`. */
  public process(env: ProcEnv, options: { readonly poseLoss?: LossConfig | null }, pose: PoseMeasurement, _twist: unknown, tx: Transaction): void {
    processAbsolutePose3D(env, pose, options.poseLoss ?? null, this.#target, tx);
  }
}
