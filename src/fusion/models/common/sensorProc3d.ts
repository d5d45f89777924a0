import type { PoseMeasurement, VectorPairMeasurement } from "./measurement";
import { check, rotateVectorPair, type ProcEnv } from "./sensorProc";
import type { Stamp } from "../../../time";
import {
  ABSOLUTE_ACCELERATION_LINEAR_3D,
  ABSOLUTE_ORIENTATION_3D_EULER,
  ABSOLUTE_POSE_3D,
  ABSOLUTE_VELOCITY_ANGULAR_3D,
  ABSOLUTE_VELOCITY_LINEAR_3D,
  ACCELERATION_LINEAR_3D,
  Constraint,
  linalg,
  ORIENTATION_3D,
  POSITION_3D,
  Variable,
  VELOCITY_ANGULAR_3D,
  VELOCITY_LINEAR_3D,
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

/** A 3-vector variable at `stamp` with an absolute constraint on the selected components. */
function vector3Constraint(
  env: ProcEnv,
  tx: Transaction,
  part: string,
  variableType: string,
  constraintType: string,
  stamp: Stamp,
  value: readonly number[],
  cov: Matrix,
  indices: readonly number[],
  loss: LossConfig | null,
): boolean {
  const mean = indices.map((i) => value[i]!);
  const sub = linalg.subMatrix(cov, indices);
  if (!check(env, part, mean, sub)) {
    return false;
  }
  const v = Variable.stamped(env.ids, variableType, stamp, env.deviceId, value);
  tx.addVariable(v);
  tx.addConstraint(
    Constraint.fromCovariance({ type: constraintType, source: env.source, variables: [v.uuid], mean: value, partialCovariance: sub, indices, loss }),
  );
  return true;
}

/**
 * fuse's 3D processTwistWithCovariance: VelocityLinear3D and/or VelocityAngular3D with absolute
 * constraints on the selected axes, the twist rotated (only) into `targetFrame`.
 */
export function processTwist3D(
  env: ProcEnv,
  twist: VectorPairMeasurement,
  linearLoss: LossConfig | null,
  angularLoss: LossConfig | null,
  targetFrame: string,
  linearIndices: readonly number[],
  angularIndices: readonly number[],
  tx: Transaction,
): boolean {
  if (linearIndices.length === 0 && angularIndices.length === 0) {
    return false;
  }
  const t = rotateVectorPair(env, twist, targetFrame, "twist");
  if (t == undefined) {
    return false;
  }
  let added = false;
  if (linearIndices.length > 0) {
    added =
      vector3Constraint(env, tx, "linear velocity", VELOCITY_LINEAR_3D, ABSOLUTE_VELOCITY_LINEAR_3D, twist.stamp, t.linear, block3(t.covariance, 0), linearIndices, linearLoss) || added;
  }
  if (angularIndices.length > 0) {
    added =
      vector3Constraint(env, tx, "angular velocity", VELOCITY_ANGULAR_3D, ABSOLUTE_VELOCITY_ANGULAR_3D, twist.stamp, t.angular, block3(t.covariance, 3), angularIndices, angularLoss) || added;
  }
  if (added) {
    tx.addInvolvedStamp(twist.stamp);
  }
  return added;
}

/** fuse's 3D processAccelWithCovariance: AccelerationLinear3D with an absolute constraint. */
export function processAccel3D(
  env: ProcEnv,
  accel: VectorPairMeasurement,
  loss: LossConfig | null,
  targetFrame: string,
  indices: readonly number[],
  tx: Transaction,
): boolean {
  if (indices.length === 0) {
    return false;
  }
  const a = rotateVectorPair(env, accel, targetFrame, "acceleration");
  if (a == undefined) {
    return false;
  }
  const added = vector3Constraint(env, tx, "linear acceleration", ACCELERATION_LINEAR_3D, ABSOLUTE_ACCELERATION_LINEAR_3D, accel.stamp, a.linear, block3(a.covariance, 0), indices, loss);
  if (added) {
    tx.addInvolvedStamp(accel.stamp);
  }
  return added;
}

/**
 * fuse's 3D absolute pose processing: with position axes selected, Position3D + Orientation3D and
 * an AbsolutePose3DStampedConstraint over the selected (x, y, z | roll, pitch, yaw) axes; with
 * orientation axes only, Orientation3D and an AbsoluteOrientation3DStampedEulerConstraint on the
 * selected roll/pitch/yaw (the covariance's rotational block). True when something was added.
 */
export function processAbsolutePose3D(
  env: ProcEnv,
  pose: PoseMeasurement,
  loss: LossConfig | null,
  positionIndices: readonly number[],
  orientationIndices: readonly number[],
  tx: Transaction,
): boolean {
  if (positionIndices.length === 0 && orientationIndices.length === 0) {
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
      Constraint.fromCovariance({ type: ABSOLUTE_ORIENTATION_3D_EULER, source: env.source, variables: [ori.uuid], mean: rpy, partialCovariance: sub, indices: orientationIndices, loss }),
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
    const c6 = Constraint.fromCovariance({ type: ABSOLUTE_POSE_3D, source: env.source, variables: [pos.uuid, ori.uuid], mean: [0, 0, 0, 0, 0, 0], partialCovariance: sub, indices, loss });
    tx.addConstraint(
      new Constraint({ uuid: c6.uuid, type: ABSOLUTE_POSE_3D, source: env.source, variables: [pos.uuid, ori.uuid], mean: value, sqrtInformation: c6.sqrtInformation, covariance: c6.covariance, loss }),
    );
  }
  tx.addInvolvedStamp(pose.stamp);
  return true;
}
