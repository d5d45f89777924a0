import type { SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { PosePath, type PosePathOptions } from "./common/PosePath";
import { dimensionIndices, PLANAR_AXES, SPATIAL_AXES, type AxisNames } from "./common/dimensions";
import type { PoseMeasurement, VectorPairMeasurement } from "./common/measurement";
import type { FamilyMessage, PoseTwistOptions, SensorFamily } from "./common/sensorFamilies";
import type { PoseTarget, ProcEnv } from "./common/sensorProc";
import { AbsolutePose3D } from "./common/sensorProc3d";
import { PLANAR, SPATIAL, type VectorSpace } from "./common/vectorSpaces";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ANGULAR_2D, ANGULAR_3D, DIFFERENTIAL, LINEAR_2D, LINEAR_3D, SENSOR_COMMON } from "../registry/commonParameters";
import type { ParameterKind, ParameterSpec } from "../registry/parameters";

/** How a sensor turns the pose part of its messages into constraints. */
export interface PoseHandler<O> {
  /** Forgets any state (start of a run). */
  reset(): unknown;
  /** Adds this message's pose constraints (if any) to `tx`. */
  process(env: ProcEnv, options: O, pose: PoseMeasurement, twist: VectorPairMeasurement, tx: Transaction): void;
}

/** The 2D or 3D form of a family sensor: its space, dimension names, pose handling and what that handling reads. */
export interface PoseMode<O> {
  readonly space: VectorSpace;
  /** The dimension names its variables accept, as indices and as parameter kinds (linear, angular). */
  readonly axes: AxisNames;
  readonly linear: ParameterKind;
  readonly angular: ParameterKind;
  handler(target: PoseTarget): PoseHandler<O>;
  /** The parameters the pose handling reads (before the family's). */
  parameters(family: SensorFamily<never, FamilyMessage, string>): readonly ParameterSpec[];
}

/** 2D: the pose path (absolute or differential poses, fuse's 2D sensors). */
export const PLANAR_POSE_PATH: PoseMode<PosePathOptions> = {
  space: PLANAR,
  axes: PLANAR_AXES,
  linear: LINEAR_2D,
  angular: ANGULAR_2D,
  handler: (target) => new PosePath(target),
  parameters: (family) => [
    ...DIFFERENTIAL,
    { name: "useTwistCovariance", type: { kind: "bool" }, default: true, help: family.posePathHelp.useTwistCovariance },
    { name: "twistCovarianceOffsetDiagonal", type: { kind: "vector", length: 3, min: 0 }, default: [0, 0, 0], help: family.posePathHelp.twistCovarianceOffsetDiagonal },
  ],
};

/** 3D: absolute poses only (fuse's 3D differential mode is not supported yet). */
export const SPATIAL_ABSOLUTE_POSE: PoseMode<Pick<PoseTwistOptions, "poseLoss">> = {
  space: SPATIAL,
  axes: SPATIAL_AXES,
  linear: LINEAR_3D,
  angular: ANGULAR_3D,
  handler: (target) => new AbsolutePose3D(target),
  parameters: () => [],
};

/**
 * A fuse_models family sensor (Imu2D, Imu3D, Odometry2D, Odometry3D) in one pose mode: its
 * dimension options read with the names the mode's variables accept (the constructor throws
 * RangeError naming a bad one), then per kept message the pose part through the mode's pose
 * handler and the rest as the family does it, in that order.
 */
export class FamilySensorModel<
  O extends CommonSensorOptions & Readonly<Partial<Record<K, readonly string[]>>>,
  M extends FamilyMessage,
  K extends string,
> extends Fuse2DSensorModel<O> {
  readonly #family: SensorFamily<O, M, K>;
  readonly #space: VectorSpace;
  readonly #selected: Readonly<Record<K, readonly number[]>>;
  readonly #pose: PoseHandler<O>;

  public constructor(options: O, family: SensorFamily<O, M, K>, mode: PoseMode<O>) {
    super(options);
    this.#family = family;
    this.#space = mode.space;
    this.#selected = dimensionIndices(options, mode.axes, family.dimensions);
    this.#pose = mode.handler(family.poseTarget(options, this.#selected));
  }

  protected override onSensorStart(): void {
    this.#pose.reset();
  }

  protected override process(event: SensorMessage, stamp: number, frameId: string, tx: Transaction): void {
    const o = this.options;
    const m = this.#family.read(event.message, stamp, frameId, o);
    const env = this.env;
    this.#pose.process(env, o, m.pose, m.twist, tx);
    this.#family.processRest(env, m, o, this.#selected, this.#space, tx);
  }
}

/** A class of family sensors (what `familySensorModel` makes): its family and pose mode, and its constructor. */
export interface FamilySensorClass<
  O extends CommonSensorOptions & Readonly<Partial<Record<K, readonly string[]>>>,
  M extends FamilyMessage,
  K extends string,
> {
  readonly family: SensorFamily<O, M, K>;
  readonly mode: PoseMode<O>;
  new (options: O): FamilySensorModel<O, M, K>;
}

/**
 * The class of one family's sensors in one pose mode (fuse_models' Imu2D, Odometry3D, …),
 * constructed from the sensor's options.
 */
export function familySensorModel<
  O extends CommonSensorOptions & Readonly<Partial<Record<K, readonly string[]>>>,
  M extends FamilyMessage,
  K extends string,
>(family: SensorFamily<O, M, K>, mode: PoseMode<O>): FamilySensorClass<O, M, K> {
  return class extends FamilySensorModel<O, M, K> {
    public static readonly family = family;
    public static readonly mode = mode;

    public constructor(options: O) {
      super(options, family, mode);
    }
  };
}

/**
 * A family sensor's plugin descriptor: the family's message types; the common sensor parameters,
 * the pose mode's, then the family's with the mode's dimension names; built by `sensor`.
 */
export function familyDescriptor<
  O extends CommonSensorOptions & Readonly<Partial<Record<K, readonly string[]>>>,
  M extends FamilyMessage,
  K extends string,
>(sensor: FamilySensorClass<O, M, K>, type: string, help: string): SensorDescriptor {
  return {
    role: "sensor",
    type,
    help,
    messageTypes: sensor.family.messageTypes,
    parameters: [...SENSOR_COMMON, ...sensor.mode.parameters(sensor.family), ...sensor.family.parameters(sensor.mode.linear, sensor.mode.angular)],
    create: (p) => new sensor(p as unknown as O),
  };
}
