import {
  ABSOLUTE_ACCELERATION_LINEAR_3D,
  ABSOLUTE_POSE_3D,
  ABSOLUTE_VELOCITY_ANGULAR_3D,
  ABSOLUTE_VELOCITY_LINEAR_3D,
  ACCELERATION_LINEAR_3D,
  AsyncSensorModel,
  Constraint,
  diagonal,
  ORIENTATION_3D,
  POSITION_3D,
  resolveDeviceId,
  Transaction,
  Variable,
  VELOCITY_ANGULAR_3D,
  VELOCITY_LINEAR_3D,
  zeros,
  type Matrix,
  type SensorMessage,
} from "../core";
import { validateMeasurement } from "./common/measurement";
import { asObject, readHeader, readPoseWithCovariance } from "./common/rosMessages";
import { quaternionOfRpy } from "../math/rotation3d";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ignitionParameters, type IgnitionOptions } from "./common/sensorFamilies";

/** fuse_models::Omnidirectional3DIgnition parameters (the ignition family's; state [x, y, z, roll, pitch, yaw, vx, vy, vz, vroll, vpitch, vyaw, ax, ay, az]). */
export type Omnidirectional3DIgnitionOptions = IgnitionOptions;

const ALL6 = [0, 1, 2, 3, 4, 5];
const ALL3 = [0, 1, 2];

/**
 * fuse_models::Omnidirectional3DIgnition: a prior on the full 15-dimensional state (5 variables,
 * 4 constraints: the pose as one AbsolutePose3DStampedConstraint, then linear velocity, angular
 * velocity and linear acceleration) at start-up (stamped `context.now()`) and on every valid
 * `set_pose` message (finite pose, unit quaternion ±1e-3, symmetric positive-definite 6 × 6
 * covariance; an invalid one is dropped with `invalid-covariance`). Mark it `ignition: true`.
 */
export class Omnidirectional3DIgnition extends AsyncSensorModel {
  public readonly topics: readonly string[];
  readonly #options: Omnidirectional3DIgnitionOptions;
  readonly #deviceId: string;
  #sentInitial = false;

  public constructor(options: Omnidirectional3DIgnitionOptions = {}) {
    super();
    this.#options = options;
    this.topics = [options.topic ?? "set_pose"];
    this.#deviceId = resolveDeviceId(options);
  }

  protected override onStart(): void {
    if ((this.#options.publishOnStartup ?? true) && !this.#sentInitial) {
      const s = this.#state();
      const sigma = this.#sigma();
      const q = new Float64Array(4);
      quaternionOfRpy(s[3]!, s[4]!, s[5]!, q, 0);
      const cov = diagonal(sigma.slice(0, 6).map((v) => v * v));
      this.#sendPrior(this.context.now(), [s[0]!, s[1]!, s[2]!, ...q], cov, s);
      this.#sentInitial = true;
    }
  }

  protected override onMessage(event: SensorMessage): void {
    const header = readHeader(event.message, this.context.timeBase);
    if (typeof header === "string") {
      this.context.drop({ sensor: this.name, topic: event.topic, stamp: NaN, reason: header, detail: "set_pose has no stamp" });
      return;
    }
    const pose = readPoseWithCovariance(asObject(event.message).pose, header.stamp, header.frameId);
    const [qx, qy, qz, qw] = pose.orientation;
    const cov = zeros(6, 6);
    for (let i = 0; i < 36; i++) {
      cov.data[i] = pose.covariance[i]!;
    }
    let problem: string | undefined;
    if (!pose.position.every(Number.isFinite) || ![qx, qy, qz, qw].every(Number.isFinite)) {
      problem = "pose is not finite";
    } else if (Math.abs(Math.hypot(qx, qy, qz, qw) - 1) > 1e-3) {
      problem = "orientation is not a unit quaternion";
    } else {
      const p = validateMeasurement([0, 0, 0, 0, 0, 0], cov);
      problem = p == undefined ? undefined : `pose covariance: ${p}`;
    }
    if (problem != undefined) {
      this.context.drop({ sensor: this.name, topic: event.topic, stamp: header.stamp, reason: "invalid-covariance", detail: problem });
      return;
    }
    this.#sendPrior(header.stamp, [...pose.position, qw, qx, qy, qz], cov, this.#state());
  }

  #state(): readonly number[] {
    return this.#options.initialState ?? new Array<number>(15).fill(0);
  }

  #sigma(): readonly number[] {
    return this.#options.initialSigma ?? new Array<number>(15).fill(1e-9);
  }

  #sendPrior(stamp: number, pose: readonly number[], poseCov: Matrix, s: readonly number[]): void {
    const ids = this.context.uuids;
    const dev = this.#deviceId;
    const loss = this.#options.loss ?? null;
    const sigma = this.#sigma();
    const tx = new Transaction(stamp).addInvolvedStamp(stamp);
    const pos = Variable.stamped(ids, POSITION_3D, stamp, dev, pose.slice(0, 3));
    const ori = Variable.stamped(ids, ORIENTATION_3D, stamp, dev, pose.slice(3, 7));
    tx.addVariable(pos);
    tx.addVariable(ori);
    const whitened = Constraint.fromCovariance({ type: ABSOLUTE_POSE_3D, source: this.name, variables: [], mean: [0, 0, 0, 0, 0, 0], partialCovariance: poseCov, indices: ALL6 });
    tx.addConstraint(
      new Constraint({ type: ABSOLUTE_POSE_3D, source: this.name, variables: [pos.uuid, ori.uuid], mean: pose, sqrtInformation: whitened.sqrtInformation, covariance: whitened.covariance, loss }),
    );
    const add = (type: string, ctype: string, values: number[], from: number): void => {
      const v = Variable.stamped(ids, type, stamp, dev, values);
      tx.addVariable(v);
      const cov = diagonal([sigma[from]! ** 2, sigma[from + 1]! ** 2, sigma[from + 2]! ** 2]);
      tx.addConstraint(Constraint.fromCovariance({ type: ctype, source: this.name, variables: [v.uuid], mean: values, partialCovariance: cov, indices: ALL3, loss }));
    };
    add(VELOCITY_LINEAR_3D, ABSOLUTE_VELOCITY_LINEAR_3D, [s[6]!, s[7]!, s[8]!], 6);
    add(VELOCITY_ANGULAR_3D, ABSOLUTE_VELOCITY_ANGULAR_3D, [s[9]!, s[10]!, s[11]!], 9);
    add(ACCELERATION_LINEAR_3D, ABSOLUTE_ACCELERATION_LINEAR_3D, [s[12]!, s[13]!, s[14]!], 12);
    this.sendTransaction(tx);
  }
}

/** fuse_models::Omnidirectional3DIgnition's plugin descriptor. */
export const OMNIDIRECTIONAL_3D_IGNITION: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Omnidirectional3DIgnition",
  help: "prior on the 15-dimensional 3D state at start-up and on each set_pose message",
  messageTypes: ["geometry_msgs/PoseWithCovarianceStamped"],
  defaultTopic: "set_pose",
  parameters: ignitionParameters(["x", "y", "z", "roll", "pitch", "yaw", "vx", "vy", "vz", "vroll", "vpitch", "vyaw", "ax", "ay", "az"]),
  create: (p) => new Omnidirectional3DIgnition(p),
};
