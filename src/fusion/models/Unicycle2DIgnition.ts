import {
  ABSOLUTE_ACCELERATION_LINEAR_2D,
  ABSOLUTE_ORIENTATION_2D,
  ABSOLUTE_POSITION_2D,
  ABSOLUTE_VELOCITY_ANGULAR_2D,
  ABSOLUTE_VELOCITY_LINEAR_2D,
  ACCELERATION_LINEAR_2D,
  AsyncSensorModel,
  Constraint,
  diagonal,
  fromRows,
  ORIENTATION_2D,
  POSITION_2D,
  resolveDeviceId,
  Transaction,
  Variable,
  VELOCITY_ANGULAR_2D,
  VELOCITY_LINEAR_2D,
  type Matrix,
  type SensorMessage,
} from "../core";
import { validateMeasurement } from "./common/measurement";
import { fuseCoreYaw } from "./common/quaternion";
import { asObject, readHeader, readPoseWithCovariance } from "./common/rosMessages";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ignitionParameters, type IgnitionOptions } from "./common/sensorFamilies";

/** fuse_models::Unicycle2DIgnition parameters (reference/fuse.md §3.6) (the ignition family's; state [x, y, yaw, vx, vy, vyaw, ax, ay]). */
export type Unicycle2DIgnitionOptions = IgnitionOptions;

/**
 * fuse_models::Unicycle2DIgnition: a prior on the full unicycle state (5 variables, 5 absolute
 * constraints) at start-up (stamped `context.now()`), and on every valid `set_pose` message
 * (finite, unit quaternion ±1e-3, symmetric PD position covariance, yaw variance > 0; an invalid
 * one is dropped with `invalid-covariance`). Mark it `ignition: true` in the optimizer.
 */
export class Unicycle2DIgnition extends AsyncSensorModel {
  public readonly topics: readonly string[];
  readonly #options: Unicycle2DIgnitionOptions;
  readonly #deviceId: string;
  #sentInitial = false;

  public constructor(options: Unicycle2DIgnitionOptions = {}) {
    super();
    this.#options = options;
    this.topics = [options.topic ?? "set_pose"];
    this.#deviceId = resolveDeviceId(options);
  }

  protected override onStart(): void {
    if ((this.#options.publishOnStartup ?? true) && !this.#sentInitial) {
      const s = this.#options.initialState ?? [0, 0, 0, 0, 0, 0, 0, 0];
      const sigma = this.#options.initialSigma ?? new Array<number>(8).fill(1e-9);
      const poseCov = diagonal([sigma[0]! ** 2, sigma[1]! ** 2, sigma[2]! ** 2]);
      this.#sendPrior(this.context.now(), s, poseCov, sigma);
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
    const c = pose.covariance;
    const posCov = fromRows([
      [c[0]!, c[1]!],
      [c[6]!, c[7]!],
    ]);
    let problem: string | undefined;
    if (!pose.position.every(Number.isFinite) || ![qx, qy, qz, qw].every(Number.isFinite)) {
      problem = "pose is not finite";
    } else if (Math.abs(Math.hypot(qx, qy, qz, qw) - 1) > 1e-3) {
      problem = "orientation is not a unit quaternion";
    } else if (validateMeasurement([0, 0], posCov) != undefined) {
      problem = `position covariance: ${validateMeasurement([0, 0], posCov)!}`;
    } else if (!(c[35]! > 0)) {
      problem = "yaw variance is not positive";
    }
    if (problem != undefined) {
      this.context.drop({
        sensor: this.name,
        topic: event.topic,
        stamp: header.stamp,
        reason: "invalid-covariance",
        detail: problem,
      });
      return;
    }
    const sigma = this.#options.initialSigma ?? new Array<number>(8).fill(1e-9);
    const s = this.#options.initialState ?? [0, 0, 0, 0, 0, 0, 0, 0];
    const poseCov = fromRows([
      [c[0]!, c[1]!, c[5]!],
      [c[6]!, c[7]!, c[11]!],
      [c[30]!, c[31]!, c[35]!],
    ]);
    this.#sendPrior(header.stamp, [pose.position[0], pose.position[1], fuseCoreYaw(pose.orientation), ...s.slice(3)], poseCov, sigma);
  }

  #sendPrior(stamp: number, s: readonly number[], poseCov: Matrix, sigma: readonly number[]): void {
    const ids = this.context.uuids;
    const dev = this.#deviceId;
    const loss = this.#options.loss ?? null;
    const tx = new Transaction(stamp).addInvolvedStamp(stamp);
    const add = (type: string, ctype: string, values: number[], cov: Matrix): void => {
      const v = Variable.stamped(ids, type, stamp, dev, values);
      tx.addVariable(v);
      tx.addConstraint(
        Constraint.fromCovariance({ type: ctype, source: this.name, variables: [v.uuid], mean: values, partialCovariance: cov, loss }),
      );
    };
    const pc = poseCov.data;
    add(POSITION_2D, ABSOLUTE_POSITION_2D, [s[0]!, s[1]!], fromRows([[pc[0]!, pc[1]!], [pc[3]!, pc[4]!]]));
    add(ORIENTATION_2D, ABSOLUTE_ORIENTATION_2D, [s[2]!], fromRows([[pc[8]!]]));
    add(VELOCITY_LINEAR_2D, ABSOLUTE_VELOCITY_LINEAR_2D, [s[3]!, s[4]!], diagonal([sigma[3]! ** 2, sigma[4]! ** 2]));
    add(VELOCITY_ANGULAR_2D, ABSOLUTE_VELOCITY_ANGULAR_2D, [s[5]!], fromRows([[sigma[5]! ** 2]]));
    add(ACCELERATION_LINEAR_2D, ABSOLUTE_ACCELERATION_LINEAR_2D, [s[6]!, s[7]!], diagonal([sigma[6]! ** 2, sigma[7]! ** 2]));
    this.sendTransaction(tx);
  }
}

/** fuse_models::Unicycle2DIgnition's plugin descriptor. */
export const UNICYCLE_2D_IGNITION: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Unicycle2DIgnition",
  help: "prior on the unicycle state at start-up and on each set_pose message",
  messageTypes: ["geometry_msgs/PoseWithCovarianceStamped"],
  defaultTopic: "set_pose",
  parameters: ignitionParameters(["x", "y", "yaw", "vx", "vy", "vyaw", "ax", "ay"]),
  create: (p) => new Unicycle2DIgnition(p),
};
