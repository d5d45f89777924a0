import {
  ABSOLUTE_ACCELERATION_LINEAR_3D,
  ABSOLUTE_POSE_3D,
  ABSOLUTE_VELOCITY_ANGULAR_3D,
  ABSOLUTE_VELOCITY_LINEAR_3D,
  ACCELERATION_LINEAR_3D,
  Constraint,
  diagonal,
  ORIENTATION_3D,
  POSITION_3D,
  VELOCITY_ANGULAR_3D,
  VELOCITY_LINEAR_3D,
  zeros,
  type Matrix,
  type Transaction,
} from "../core";
import { IgnitionSensorModel, type PosePrior } from "./IgnitionSensorModel";
import { validateMeasurement, type PoseMeasurement } from "./common/measurement";
import { OMNIDIRECTIONAL_STATE_COMPONENTS } from "../math/omnidirectional3d";
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
export class Omnidirectional3DIgnition extends IgnitionSensorModel {
  public constructor(options: Omnidirectional3DIgnitionOptions = {}) {
    super(options, 15);
  }

  protected override initialPose(): PosePrior {
    const s = this.state;
    const q = new Float64Array(4);
    quaternionOfRpy(s[3]!, s[4]!, s[5]!, q, 0);
    return { pose: [s[0]!, s[1]!, s[2]!, ...q], covariance: diagonal(this.sigma.slice(0, 6).map((v) => v * v)) };
  }

  protected override covarianceProblem(pose: PoseMeasurement): string | undefined {
    const p = validateMeasurement([0, 0, 0, 0, 0, 0], covariance6(pose));
    return p == undefined ? undefined : `pose covariance: ${p}`;
  }

  protected override measuredPose(pose: PoseMeasurement): PosePrior {
    const [qx, qy, qz, qw] = pose.orientation;
    return { pose: [...pose.position, qw, qx, qy, qz], covariance: covariance6(pose) };
  }

  protected override addPrior(tx: Transaction, stamp: number, prior: PosePrior): void {
    const s = this.state;
    const sigma = this.sigma;
    const pose = prior.pose;
    const pos = this.stateVariable(POSITION_3D, stamp, pose.slice(0, 3));
    const ori = this.stateVariable(ORIENTATION_3D, stamp, pose.slice(3, 7));
    tx.addVariable(pos);
    tx.addVariable(ori);
    const loss = this.options.loss ?? null;
    const whitened = Constraint.fromCovariance({ type: ABSOLUTE_POSE_3D, source: this.name, variables: [], mean: [0, 0, 0, 0, 0, 0], partialCovariance: prior.covariance, indices: ALL6 });
    tx.addConstraint(
      new Constraint({ type: ABSOLUTE_POSE_3D, source: this.name, variables: [pos.uuid, ori.uuid], mean: pose, sqrtInformation: whitened.sqrtInformation, covariance: whitened.covariance, loss }),
    );
    const rate = (type: string, ctype: string, from: number): void => {
      const cov = diagonal([sigma[from]! ** 2, sigma[from + 1]! ** 2, sigma[from + 2]! ** 2]);
      this.addAbsolute(tx, stamp, type, ctype, [s[from]!, s[from + 1]!, s[from + 2]!], cov, ALL3);
    };
    rate(VELOCITY_LINEAR_3D, ABSOLUTE_VELOCITY_LINEAR_3D, 6);
    rate(VELOCITY_ANGULAR_3D, ABSOLUTE_VELOCITY_ANGULAR_3D, 9);
    rate(ACCELERATION_LINEAR_3D, ABSOLUTE_ACCELERATION_LINEAR_3D, 12);
  }
}

/** The set_pose message's full 6 × 6 covariance. */
function covariance6(pose: PoseMeasurement): Matrix {
  const cov = zeros(6, 6);
  for (let i = 0; i < 36; i++) {
    cov.data[i] = pose.covariance[i]!;
  }
  return cov;
}

/** fuse_models::Omnidirectional3DIgnition's plugin descriptor. */
export const OMNIDIRECTIONAL_3D_IGNITION: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Omnidirectional3DIgnition",
  help: "prior on the 15-dimensional 3D state at start-up and on each set_pose message",
  messageTypes: ["geometry_msgs/PoseWithCovarianceStamped"],
  defaultTopic: "set_pose",
  parameters: ignitionParameters(OMNIDIRECTIONAL_STATE_COMPONENTS),
  create: (p) => new Omnidirectional3DIgnition(p),
};
