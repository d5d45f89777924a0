/*
 * CONTRACT (fusion core; helper G's optimizer and motion models rely on exactly this):
 * - Stamps are Lockstep relative integer-ns numbers (src/time). `StampedUuids(timeBase, recipe)`
 *   gives fuse's deterministic stamped-variable UUIDs ("ros1" | "ros2", reference/fuse.md §1.7).
 * - `Variable`: {uuid, type (fuse name), data: Float64Array (size), hold, stamp?, deviceId?};
 *   `Variable.stamped(ids, type, stamp, deviceId, data?)`; `VARIABLE_TYPES[type].wrapsAngle` marks
 *   Orientation2DStamped (manifold wraps with `wrapAngle`, [-π, π)). `clone()` copies data.
 * - `Constraint`: {uuid (v4 default), type (fuse name), source, variables (ordered uuids), mean
 *   (full length, Float64Array), sqrtInformation: Matrix (k×n, A = chol_upper(Σ⁻¹), scattered
 *   columns for partial measurements), covariance: Matrix (n×n), loss: LossConfig | null, extra?}
 *   (type-specific JSON fields, e.g. `{dt}` for the unicycle). Immutable; subclass to add fields.
 *   `Constraint.fromCovariance({...partialCovariance, indices})` and `whiten()` build A.
 * - `Matrix`: {rows, cols, data: Float64Array row-major}; helpers in Matrix.ts / linalg.ts.
 * - `Transaction`: fuse's add/remove/merge semantics (§1.3); `involvedStamps` sorted unique;
 *   `minStamp()`, `maxStamp()`, `empty()`, `merge(other, {overwrite})`, `addVariable(v, {overwrite})`, `toJson(base, source)`.
 * - `Graph` (implements `ReadonlyGraph`): HashGraph bookkeeping; `update(tx)` order add vars, add
 *   constraints, remove constraints, remove vars; throws `GraphError` (unknown variable in a
 *   constraint; removing a variable still in use); `holdVariable(uuid)` / `releaseVariable(uuid)`. `getVariable()` returns the stored variable
 *   whose `data` the optimizer writes in place; `clone()` deep-copies variables.
 * - `SensorModel` / `AsyncSensorModel`, `MotionModel` {name, initialize(context, name), start,
 *   stop, graphCallback(graph), apply(tx): boolean}; `TimestampManager(generator, bufferLengthNs)`
 *   with `query(tx, {updateVariables})` (§1.2); `FusionContext` {timeBase, uuids, transforms?,
 *   drop(), warn(), now()}.
 * These shapes are stable; additions only.
 */
export { AsyncSensorModel } from "./AsyncSensorModel";
export {
  ABSOLUTE_ACCELERATION_LINEAR_3D,
  ABSOLUTE_ORIENTATION_3D_EULER,
  ABSOLUTE_POSE_3D,
  ABSOLUTE_POSITION_3D,
  ABSOLUTE_VELOCITY_ANGULAR_3D,
  ABSOLUTE_VELOCITY_LINEAR_3D,
  OMNIDIRECTIONAL_3D_KINEMATIC,
  RELATIVE_POSE_3D,
  ABSOLUTE_ACCELERATION_LINEAR_2D,
  ABSOLUTE_ORIENTATION_2D,
  ABSOLUTE_POSE_2D,
  ABSOLUTE_POSITION_2D,
  ABSOLUTE_VELOCITY_ANGULAR_2D,
  ABSOLUTE_VELOCITY_LINEAR_2D,
  Constraint,
  MARGINAL,
  RELATIVE_POSE_2D,
  UNICYCLE_2D_KINEMATIC,
  whiten,
  type ConstraintInit,
  type LossConfig,
} from "./Constraint";
export type { FusionContext, FusionDrop, RigidTransform, TransformLookup } from "./FusionContext";
export { Graph, GraphError, type ReadonlyGraph } from "./Graph";
export * as linalg from "./linalg";
export { at, diagonal, fromRows, identity, toRows, zeros, type Matrix } from "./Matrix";
export type { MotionModel } from "./MotionModel";
export type { SensorMessage, SensorModel, TransactionCallback } from "./SensorModel";
export {
  TimestampManager,
  TimestampOutOfBufferError,
  type MotionModelGenerator,
  type MotionModelSegment,
  type MotionSegmentOutput,
} from "./TimestampManager";
export {
  constraintToJson,
  Transaction,
  variableToJson,
  type ConstraintJson,
  type MergeOptions,
  type TransactionJson,
  type VariableJson,
} from "./Transaction";
export {
  NIL_UUID,
  randomUuid,
  resolveDeviceId,
  StampedUuids,
  uuidFromName,
  uuidBytes,
  uuidFromNamespace,
  type UuidRecipe,
} from "./uuid";
export {
  ACCELERATION_ANGULAR_3D,
  ACCELERATION_LINEAR_3D,
  ORIENTATION_3D,
  POSITION_3D,
  VELOCITY_ANGULAR_3D,
  VELOCITY_LINEAR_3D,
  ACCELERATION_ANGULAR_2D,
  ACCELERATION_LINEAR_2D,
  ORIENTATION_2D,
  POSITION_2D,
  Variable,
  VARIABLE_TYPES,
  VELOCITY_ANGULAR_2D,
  VELOCITY_LINEAR_2D,
  type VariableTypeInfo,
} from "./Variable";
export { wrapAngle } from "../math/angles";
