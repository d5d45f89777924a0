import { AsyncSensorModel, Constraint, resolveDeviceId, Transaction, Variable, type Matrix, type SensorMessage } from "../core";
import type { PoseMeasurement } from "./common/measurement";
import { asObject, readPoseWithCovariance } from "./common/rosMessages";
import type { IgnitionOptions } from "./common/sensorFamilies";

/** The pose part of an ignition prior: its values in the variables' layout, and their covariance. */
export interface PosePrior {
  readonly pose: readonly number[];
  readonly covariance: Matrix;
}

/**
 * What fuse_models' ignition sensors (Unicycle2DIgnition, Omnidirectional3DIgnition) share: the
 * `set_pose` topic and device id; a prior on the whole state at start-up (stamped
 * `context.now()`, once ever, unless `publishOnStartup` is false) and one on every valid
 * `set_pose` message, each a transaction involving its one stamp. A message without a usable
 * stamp is dropped with its stamp problem; a non-finite pose, a quaternion off unit norm by more
 * than 1e-3, or a covariance the model rejects (`covarianceProblem`) is dropped with
 * `invalid-covariance`. The state's other parts come from `initialState` / `initialSigma`.
 */
export abstract class IgnitionSensorModel extends AsyncSensorModel {
  public readonly topics: readonly string[];
  protected readonly options: IgnitionOptions;
  readonly #deviceId: string;
  readonly #stateSize: number = 0;
  #sentInitial = false;

  protected constructor(options: IgnitionOptions, stateSize: number) {
    super();
    this.options = options;
    this.topics = [options.topic ?? "set_pose"];
    this.#deviceId = resolveDeviceId(options);
    this.#stateSize = stateSize;
  }

  /** `initialState` (default zeros), in the motion model's order. */
  protected get state(): readonly number[] {
    return this.options.initialState ?? new Array<number>(this.#stateSize).fill(0);
  }

  /** `initialSigma` (default 1e-9 each), in the same order. */
  protected get sigma(): readonly number[] {
    return this.options.initialSigma ?? new Array<number>(this.#stateSize).fill(1e-9);
  }

  protected override onStart(): void {
    if ((this.options.publishOnStartup ?? true) && !this.#sentInitial) {
      this.#sendPrior(this.context.now(), this.initialPose());
      this.#sentInitial = true;
    }
  }

  protected override onMessage(event: SensorMessage): void {
    const header = event.header;
    if (typeof header === "string") {
      this.context.drop({ sensor: this.name, topic: event.topic, stamp: NaN, reason: header, detail: "set_pose has no stamp" });
      return;
    }
    const pose = readPoseWithCovariance(asObject(event.message).pose, header.stamp, header.frameId);
    const [qx, qy, qz, qw] = pose.orientation;
    let problem: string | undefined;
    if (!pose.position.every(Number.isFinite) || ![qx, qy, qz, qw].every(Number.isFinite)) {
      problem = "pose is not finite";
    } else if (Math.abs(Math.hypot(qx, qy, qz, qw) - 1) > 1e-3) {
      problem = "orientation is not a unit quaternion";
    } else {
      problem = this.covarianceProblem(pose);
    }
    if (problem != undefined) {
      this.context.drop({ sensor: this.name, topic: event.topic, stamp: header.stamp, reason: "invalid-covariance", detail: problem });
      return;
    }
    this.#sendPrior(header.stamp, this.measuredPose(pose));
  }

  #sendPrior(stamp: number, prior: PosePrior): void {
    const tx = new Transaction(stamp).addInvolvedStamp(stamp);
    this.addPrior(tx, stamp, prior);
    this.sendTransaction(tx);
  }

  /** Adds a variable of the state at `stamp` holding `values`, and its absolute constraint (the ignition's loss). */
  protected addAbsolute(
    tx: Transaction,
    stamp: number,
    variableType: string,
    constraintType: string,
    values: number[],
    covariance: Matrix,
    indices?: readonly number[],
  ): void {
    const v = this.stateVariable(variableType, stamp, values);
    tx.addVariable(v);
    tx.addConstraint(
      Constraint.fromCovariance({ type: constraintType, source: this.name, variables: [v.uuid], mean: values, partialCovariance: covariance, indices, loss: this.options.loss ?? null }),
    );
  }

  /** The state's stamped variable of type `type` at `stamp` (this sensor's device) holding `values`. */
  protected stateVariable(type: string, stamp: number, values: readonly number[]): Variable {
    return Variable.stamped(this.context.uuids, type, stamp, this.#deviceId, values);
  }

  /** The start-up prior's pose part, from `initialState` / `initialSigma`. */
  protected abstract initialPose(): PosePrior;

  /** Why a finite, unit-quaternion set_pose message's covariance is unusable; undefined when it is usable. */
  protected abstract covarianceProblem(pose: PoseMeasurement): string | undefined;

  /** The prior's pose part from a valid set_pose message. */
  protected abstract measuredPose(pose: PoseMeasurement): PosePrior;

  /** Adds the prior's variables and constraints (the pose part from `prior`, the rest from the state) to `tx`. */
  protected abstract addPrior(tx: Transaction, stamp: number, prior: PosePrior): void;
}
