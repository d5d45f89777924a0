import type { CovarianceCache } from "./CovarianceCache";
import {
  validateMean,
  type MeasurementProblem,
  type PoseMeasurement,
  type VectorPairMeasurement,
} from "./measurement";
import {
  quatInverse,
  quatMultiply,
  quatToMatrix,
  fuseCoreYaw,
  rotate,
  rotateCovariance6,
  type Quat,
} from "./quaternion";
import { componentsOf, covarianceBlock, PLANAR, type VectorPart, type VectorSpace } from "./vectorSpaces";
import type { Stamp } from "../../../time";
import {
  ABSOLUTE_POSE_2D,
  Constraint,
  fromRows,
  linalg,
  ORIENTATION_2D,
  POSITION_2D,
  RELATIVE_POSE_2D,
  Variable,
  wrapAngle,
  zeros,
  type LossConfig,
  type Matrix,
  type RigidTransform,
  type StampedUuids,
  type Transaction,
  type TransformLookup,
} from "../../core";

/**
 * How an orientation is moved into a target frame (the IMU mounting trap, README "Fusion"):
 * - `"fuse"` (default, parity): tf2's pose transform, q_target = q_target_sensor ⊗ q_measured, as
 *   fuse's Imu2D/Odometry2D do with `*_target_frame`;
 * - `"body"`: the body orientation q_measured ⊗ q_target_sensor⁻¹, as robot_localization uses it
 *   (the sensor reports its own attitude in a world frame; the body's attitude is wanted).
 */
export type OrientationTransform = "fuse" | "body";

/** Where a sensor's pose goes and which of its components are used. */
export interface PoseTarget {
  /** Target frame of the pose ("" = the message frame). */
  readonly frame: string;
  /** Part name in the transform's problem reports (PosePath's absolute 2D branch reports "pose"). */
  readonly part: string;
  readonly mode: OrientationTransform;
  readonly positionIndices: readonly number[];
  readonly orientationIndices: readonly number[];
}

/** The selected position and orientation axes of a pose. */
export type PoseAxes = Pick<PoseTarget, "positionIndices" | "orientationIndices">;

/** What the processing helpers need from their sensor model. */
export interface ProcEnv {
  readonly source: string;
  readonly deviceId: string;
  readonly ids: StampedUuids;
  readonly transforms: TransformLookup | undefined;
  /** `!disable_checks`. */
  readonly validate: boolean;
  /** The sensor's remembered covariance verdicts and whitenings. */
  readonly covariances: CovarianceCache;
  /** Records one failed part of the message (the sensor reports the message once). */
  problem(part: string, problem: MeasurementProblem | "transform-unavailable", detail: string): void;
}

/** Covariance flat indices of (x, y, yaw) in a ROS 6×6 pose covariance. */
const POSE_XY_YAW = [0, 1, 5];

function sub3(cov: ArrayLike<number>): Matrix {
  const m = zeros(3, 3);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      m.data[i * 3 + j] = cov[POSE_XY_YAW[i]! * 6 + POSE_XY_YAW[j]!]!;
    }
  }
  return m;
}

function select(mean: ArrayLike<number>, cov: Matrix, indices: readonly number[]): [number[], Matrix] {
  return [indices.map((i) => mean[i]!), linalg.subMatrix(cov, indices)];
}

/**
 * The transform target ← source at stamp: "identity" when target is empty or equal to source,
 * undefined (and a recorded problem) when unknown.
 */
export function lookupTransform(
  env: ProcEnv,
  target: string,
  source: string,
  stamp: Stamp,
  part: string,
): RigidTransform | undefined | "identity" {
  if (target === "" || target === source) {
    return "identity";
  }
  const t = env.transforms?.lookup(target, source, stamp);
  if (t == undefined) {
    env.problem(part, "transform-unavailable", `no transform from "${source}" to "${target}"`);
  }
  return t;
}

/**
 * `m` moved into `target` by `move` (given the transform and its rotation matrix): `m` itself when
 * no transform is needed, undefined (and a recorded problem) when it is unavailable.
 */
function inFrame<M extends { readonly stamp: Stamp; readonly frameId: string }>(
  env: ProcEnv,
  m: M,
  target: string,
  part: string,
  move: (t: RigidTransform, r: number[]) => M,
): M | undefined {
  const t = lookupTransform(env, target, m.frameId, m.stamp, part);
  if (t === "identity") {
    return m;
  }
  return t == undefined ? undefined : move(t, quatToMatrix(t.rotation));
}

/**
 * A pose moved into `target` (tf2 doTransform of PoseWithCovarianceStamped: p' = R p + t,
 * orientation per `mode`, covariance rotated by block-diag(R, R)). Undefined (and a recorded
 * problem) when the transform is unavailable.
 */
export function transformPose(
  env: ProcEnv,
  pose: PoseMeasurement,
  target: string,
  part: string,
  mode: OrientationTransform = "fuse",
): PoseMeasurement | undefined {
  return inFrame(env, pose, target, part, (t, r) => {
    const p = rotate(r, pose.position);
    const q: Quat =
      mode === "fuse" ? quatMultiply(t.rotation, pose.orientation) : quatMultiply(pose.orientation, quatInverse(t.rotation));
    return {
      stamp: pose.stamp,
      frameId: target,
      position: [p[0] + t.translation[0], p[1] + t.translation[1], p[2] + t.translation[2]],
      orientation: q,
      covariance: rotateCovariance6(pose.covariance, r),
    };
  });
}

/** A twist or acceleration rotated into `target` (no lever arm, as fuse does). */
export function rotateVectorPair(
  env: ProcEnv,
  m: VectorPairMeasurement,
  target: string,
  part: string,
): VectorPairMeasurement | undefined {
  return inFrame(env, m, target, part, (_t, r) => ({
    stamp: m.stamp,
    frameId: target,
    linear: rotate(r, m.linear),
    angular: rotate(r, m.angular),
    covariance: rotateCovariance6(m.covariance, r),
  }));
}

/**
 * `Constraint.fromCovariance` for a sensor's measurement (source: the sensor), whitened through the
 * sensor's covariance cache (the same matrices, to the bit).
 */
export function measuredConstraint(
  env: ProcEnv,
  init: {
    readonly type: string;
    readonly variables: readonly string[];
    readonly mean: ArrayLike<number>;
    readonly partialCovariance: Matrix;
    readonly indices: readonly number[];
    readonly loss: LossConfig | null;
  },
): Constraint {
  const { sqrtInformation, covariance } = env.covariances.whiten(init.partialCovariance, init.indices, init.mean.length, init.type);
  return new Constraint({
    type: init.type,
    source: env.source,
    variables: init.variables,
    mean: init.mean,
    sqrtInformation,
    covariance,
    loss: init.loss,
  });
}

/** Validates a mean and covariance unless checks are off; records the problem and returns false when invalid. */
export function check(env: ProcEnv, part: string, mean: ArrayLike<number>, cov: Matrix, precision?: number): boolean {
  if (!env.validate) {
    return true;
  }
  const p = validateMean(mean) ?? env.covariances.problem(cov, precision);
  if (p != undefined) {
    env.problem(part, p, `${part}: ${describe(p)}`);
    return false;
  }
  return true;
}

function describe(p: MeasurementProblem): string {
  switch (p) {
    case "non-finite-mean":
      return "the measured value is not finite";
    case "non-finite-covariance":
      return "the covariance contains NaN or infinity";
    case "non-symmetric":
      return "the covariance is not symmetric";
    case "not-positive-definite":
      return "the covariance is not positive definite";
  }
}

/** Position + orientation variables at the pose's stamp. */
function poseVariables(env: ProcEnv, stamp: Stamp, x: number, y: number, yaw: number): [Variable, Variable] {
  return [
    Variable.stamped(env.ids, POSITION_2D, stamp, env.deviceId, [x, y]),
    Variable.stamped(env.ids, ORIENTATION_2D, stamp, env.deviceId, [yaw]),
  ];
}

/**
 * fuse's processAbsolutePoseWithCovariance: Position2D + Orientation2D at the stamp and one
 * AbsolutePose2DStampedConstraint over the selected (x, y | yaw) indices. Returns true when added.
 */
export function processAbsolutePose(
  env: ProcEnv,
  pose: PoseMeasurement,
  loss: LossConfig | null,
  targetFrame: string,
  positionIndices: readonly number[],
  orientationIndices: readonly number[],
  tx: Transaction,
  mode: OrientationTransform = "fuse",
): boolean {
  if (positionIndices.length === 0 && orientationIndices.length === 0) {
    return false;
  }
  const p = transformPose(env, pose, targetFrame, "pose", mode);
  if (p == undefined) {
    return false;
  }
  const yaw = fuseCoreYaw(p.orientation);
  const mean = [p.position[0], p.position[1], yaw];
  const indices = [...positionIndices, ...orientationIndices.map((i) => i + 2)];
  const [partialMean, partialCov] = select(mean, sub3(p.covariance), indices);
  if (!check(env, "pose", partialMean, partialCov)) {
    return false;
  }
  const [position, orientation] = poseVariables(env, pose.stamp, mean[0]!, mean[1]!, yaw);
  const fullMean = [0, 0, 0];
  indices.forEach((i) => (fullMean[i] = mean[i]!));
  tx.addVariable(position).addVariable(orientation);
  tx.addConstraint(
    measuredConstraint(env, {
      type: ABSOLUTE_POSE_2D,
      variables: [position.uuid, orientation.uuid],
      mean: fullMean,
      partialCovariance: partialCov,
      indices,
      loss,
    }),
  );
  tx.addInvolvedStamp(pose.stamp);
  return true;
}

/**
 * The relative pose constraint between two poses over the selected axes, from `measure`'s change
 * δ and covariance (undefined: nothing, its problem already recorded); nothing when no axis is
 * selected (`measure` is not called) or the selection fails validation (precision 1e-6).
 */
function relativeConstraint(
  env: ProcEnv,
  p1: PoseMeasurement,
  p2: PoseMeasurement,
  loss: LossConfig | null,
  selected: PoseAxes,
  tx: Transaction,
  measure: () => { delta: number[]; cov: Matrix } | undefined,
): boolean {
  const { positionIndices, orientationIndices } = selected;
  if (positionIndices.length === 0 && orientationIndices.length === 0) {
    return false;
  }
  const measured = measure();
  if (measured == undefined) {
    return false;
  }
  const { delta, cov } = measured;
  const indices = [...positionIndices, ...orientationIndices.map((i) => i + 2)];
  const [partialMean, partialCov] = select(delta, cov, indices);
  if (!check(env, "relative pose", partialMean, partialCov, 1e-6)) {
    return false;
  }
  const [pos1, ori1] = poseVariables(env, p1.stamp, p1.position[0], p1.position[1], fuseCoreYaw(p1.orientation));
  const [pos2, ori2] = poseVariables(env, p2.stamp, p2.position[0], p2.position[1], fuseCoreYaw(p2.orientation));
  const fullMean = [0, 0, 0];
  indices.forEach((i) => (fullMean[i] = delta[i]!));
  tx.addVariable(pos1).addVariable(ori1).addVariable(pos2).addVariable(ori2);
  tx.addConstraint(
    measuredConstraint(env, {
      type: RELATIVE_POSE_2D,
      variables: [pos1.uuid, ori1.uuid, pos2.uuid, ori2.uuid],
      mean: fullMean,
      partialCovariance: partialCov,
      indices,
      loss,
    }),
  );
  tx.addInvolvedStamp(p1.stamp).addInvolvedStamp(p2.stamp);
  return true;
}

/** δ = (R(−θ₁)(p₂ − p₁), wrap(θ₂ − θ₁)) and the rotation terms (reference/fuse.md §6.2b). */
function relativeMean(p1: PoseMeasurement, p2: PoseMeasurement) {
  const yaw1 = fuseCoreYaw(p1.orientation);
  const sy = Math.sin(-yaw1);
  const cy = Math.cos(-yaw1);
  const dx = p2.position[0] - p1.position[0];
  const dy = p2.position[1] - p1.position[1];
  const delta = [cy * dx - sy * dy, sy * dx + cy * dy, wrapAngle(fuseCoreYaw(p2.orientation) - yaw1)];
  return { delta, sy, cy, dx, dy };
}

/**
 * fuse's processDifferentialPoseWithCovariance (reference/fuse.md §6.2b): independent
 * `J₁Σ₁J₁ᵀ + J₂Σ₂J₂ᵀ`, or dependent `M(Σ₂ − PΣ₁Pᵀ)Mᵀ + Σ_min`; validated with precision 1e-6.
 */
export function processDifferentialPose(
  env: ProcEnv,
  pose1: PoseMeasurement,
  pose2: PoseMeasurement,
  covarianceModel: "independent" | "dependent",
  minimumCovarianceDiagonal: readonly number[],
  loss: LossConfig | null,
  selected: PoseAxes,
  tx: Transaction,
): boolean {
  return relativeConstraint(env, pose1, pose2, loss, selected, tx, () => {
    const { delta, sy, cy, dx, dy } = relativeMean(pose1, pose2);
    const c1 = sub3(pose1.covariance);
    const c2 = sub3(pose2.covariance);
    // R(−θ₁): J₂ of the independent model, M of the dependent one.
    const rotation = fromRows([
      [cy, -sy, 0],
      [sy, cy, 0],
      [0, 0, 1],
    ]);
    if (covarianceModel === "independent") {
      const j1 = fromRows([
        [-cy, sy, sy * dx + cy * dy],
        [-sy, -cy, -cy * dx + sy * dy],
        [0, 0, -1],
      ]);
      return { delta, cov: linalg.add(linalg.sandwich(j1, c1), linalg.sandwich(rotation, c2)) };
    }
    const p = fromRows([
      [1, 0, sy * delta[0]! - cy * delta[1]!],
      [0, 1, cy * delta[0]! + sy * delta[1]!],
      [0, 0, 1],
    ]);
    const inner = linalg.add(c2, linalg.scale(linalg.sandwich(p, c1), -1));
    return { delta, cov: addDiagonal(linalg.sandwich(rotation, inner), minimumCovarianceDiagonal) };
  });
}

/**
 * fuse's processDifferentialPoseWithTwistCovariance: `dt²(Σ_twist,xyψ − offset) + Σ_min`; nothing
 * (and a recorded problem) when dt < 1e-6 s.
 */
export function processDifferentialPoseWithTwistCovariance(
  env: ProcEnv,
  pose1: PoseMeasurement,
  pose2: PoseMeasurement,
  minimumCovarianceDiagonal: readonly number[],
  twistCovarianceOffsetDiagonal: readonly number[],
  twist: VectorPairMeasurement,
  loss: LossConfig | null,
  selected: PoseAxes,
  tx: Transaction,
): boolean {
  return relativeConstraint(env, pose1, pose2, loss, selected, tx, () => {
    const { delta } = relativeMean(pose1, pose2);
    const dt = (pose2.stamp - pose1.stamp) / 1e9;
    if (dt < 1e-6) {
      env.problem("relative pose", "non-finite-mean", `very small time difference ${dt} s between poses`);
      return undefined;
    }
    const tw = sub3(twist.covariance);
    for (let i = 0; i < 3; i++) {
      tw.data[i * 3 + i] = tw.data[i * 3 + i]! - (twistCovarianceOffsetDiagonal[i] ?? 0);
    }
    return { delta, cov: addDiagonal(linalg.scale(tw, dt * dt), minimumCovarianceDiagonal) };
  });
}

function addDiagonal(m: Matrix, diag: readonly number[]): Matrix {
  const out = { rows: m.rows, cols: m.cols, data: Float64Array.from(m.data) };
  for (let i = 0; i < m.rows; i++) {
    out.data[i * m.cols + i] = out.data[i * m.cols + i]! + (diag[i] ?? 0);
  }
  return out;
}

/**
 * An absolute constraint on the selected components of a vector variable (the part's variable at
 * `stamp`, holding `value`); false (and a recorded problem) when the selection fails validation.
 */
function absoluteVector(
  env: ProcEnv,
  tx: Transaction,
  what: string,
  space: VectorSpace,
  part: VectorPart,
  stamp: Stamp,
  vector: readonly number[],
  covariance6: ArrayLike<number>,
  indices: readonly number[],
  loss: LossConfig | null,
): boolean {
  const value = componentsOf(part, vector);
  const [partialMean, partialCov] = select(value, covarianceBlock(part, covariance6), indices);
  if (!check(env, what, partialMean, partialCov)) {
    return false;
  }
  const v = Variable.stamped(env.ids, part.variableType, stamp, env.deviceId, value);
  let mean = value;
  if (space.unselectedMean === "zero") {
    mean = value.map(() => 0);
    indices.forEach((i) => (mean[i] = value[i]!));
  }
  tx.addVariable(v);
  tx.addConstraint(
    measuredConstraint(env, {
      type: part.constraintType,
      variables: [v.uuid],
      mean,
      partialCovariance: partialCov,
      indices,
      loss,
    }),
  );
  return true;
}

/**
 * fuse's processTwistWithCovariance (2D or 3D per `space`): the linear and/or angular velocity
 * variable with absolute constraints on the selected axes; the twist is only rotated into
 * `targetFrame`. Each part is validated on its own; the stamp is involved when anything was added.
 */
export function processTwist(
  env: ProcEnv,
  twist: VectorPairMeasurement,
  linearLoss: LossConfig | null,
  angularLoss: LossConfig | null,
  targetFrame: string,
  linearIndices: readonly number[],
  angularIndices: readonly number[],
  tx: Transaction,
  space: VectorSpace = PLANAR,
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
    added = absoluteVector(env, tx, "linear velocity", space, space.linearVelocity, twist.stamp, t.linear, t.covariance, linearIndices, linearLoss) || added;
  }
  if (angularIndices.length > 0) {
    added = absoluteVector(env, tx, "angular velocity", space, space.angularVelocity, twist.stamp, t.angular, t.covariance, angularIndices, angularLoss) || added;
  }
  if (added) {
    tx.addInvolvedStamp(twist.stamp);
  }
  return added;
}

/**
 * fuse's processAccelWithCovariance (2D or 3D per `space`): the linear acceleration variable with
 * an absolute constraint on the selected axes; rotated only into `targetFrame`.
 */
export function processAccel(
  env: ProcEnv,
  accel: VectorPairMeasurement,
  loss: LossConfig | null,
  targetFrame: string,
  indices: readonly number[],
  tx: Transaction,
  space: VectorSpace = PLANAR,
): boolean {
  if (indices.length === 0) {
    return false;
  }
  const a = rotateVectorPair(env, accel, targetFrame, "acceleration");
  if (a == undefined) {
    return false;
  }
  const added = absoluteVector(env, tx, "linear acceleration", space, space.linearAcceleration, accel.stamp, a.linear, a.covariance, indices, loss);
  if (added) {
    tx.addInvolvedStamp(accel.stamp);
  }
  return added;
}
