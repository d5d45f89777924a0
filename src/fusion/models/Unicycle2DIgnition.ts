import {
  ABSOLUTE_ACCELERATION_LINEAR_2D,
  ABSOLUTE_ORIENTATION_2D,
  ABSOLUTE_POSITION_2D,
  ABSOLUTE_VELOCITY_ANGULAR_2D,
  ABSOLUTE_VELOCITY_LINEAR_2D,
  ACCELERATION_LINEAR_2D,
  diagonal,
  fromRows,
  ORIENTATION_2D,
  POSITION_2D,
  VELOCITY_ANGULAR_2D,
  VELOCITY_LINEAR_2D,
  type Transaction,
} from "../core";
import { IgnitionSensorModel, type PosePrior } from "./IgnitionSensorModel";
import { validateMeasurement, type PoseMeasurement } from "./common/measurement";
import { fuseCoreYaw } from "./common/quaternion";
import { UNICYCLE_STATE_COMPONENTS } from "../math/unicycle2d";
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
export class Unicycle2DIgnition extends IgnitionSensorModel {
  public constructor(options: Unicycle2DIgnitionOptions = {}) {
    super(options, 8);
  }

  protected override initialPose(): PosePrior {
    const s = this.state;
    const sigma = this.sigma;
    return { pose: [s[0]!, s[1]!, s[2]!], covariance: diagonal([sigma[0]! ** 2, sigma[1]! ** 2, sigma[2]! ** 2]) };
  }

  protected override covarianceProblem(pose: PoseMeasurement): string | undefined {
    const c = pose.covariance;
    const posCov = fromRows([
      [c[0]!, c[1]!],
      [c[6]!, c[7]!],
    ]);
    const p = validateMeasurement([0, 0], posCov);
    if (p != undefined) {
      return `position covariance: ${p}`;
    }
    return c[35]! > 0 ? undefined : "yaw variance is not positive";
  }

  protected override measuredPose(pose: PoseMeasurement): PosePrior {
    const c = pose.covariance;
    const covariance = fromRows([
      [c[0]!, c[1]!, c[5]!],
      [c[6]!, c[7]!, c[11]!],
      [c[30]!, c[31]!, c[35]!],
    ]);
    return { pose: [pose.position[0], pose.position[1], fuseCoreYaw(pose.orientation)], covariance };
  }

  protected override addPrior(tx: Transaction, stamp: number, prior: PosePrior): void {
    const s = this.state;
    const sigma = this.sigma;
    const [x, y, yaw] = prior.pose;
    const pc = prior.covariance.data;
    this.addAbsolute(tx, stamp, POSITION_2D, ABSOLUTE_POSITION_2D, [x!, y!], fromRows([[pc[0]!, pc[1]!], [pc[3]!, pc[4]!]]));
    this.addAbsolute(tx, stamp, ORIENTATION_2D, ABSOLUTE_ORIENTATION_2D, [yaw!], fromRows([[pc[8]!]]));
    this.addAbsolute(tx, stamp, VELOCITY_LINEAR_2D, ABSOLUTE_VELOCITY_LINEAR_2D, [s[3]!, s[4]!], diagonal([sigma[3]! ** 2, sigma[4]! ** 2]));
    this.addAbsolute(tx, stamp, VELOCITY_ANGULAR_2D, ABSOLUTE_VELOCITY_ANGULAR_2D, [s[5]!], fromRows([[sigma[5]! ** 2]]));
    this.addAbsolute(tx, stamp, ACCELERATION_LINEAR_2D, ABSOLUTE_ACCELERATION_LINEAR_2D, [s[6]!, s[7]!], diagonal([sigma[6]! ** 2, sigma[7]! ** 2]));
  }
}

/** fuse_models::Unicycle2DIgnition's plugin descriptor. */
export const UNICYCLE_2D_IGNITION: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Unicycle2DIgnition",
  help: "prior on the unicycle state at start-up and on each set_pose message",
  messageTypes: ["geometry_msgs/PoseWithCovarianceStamped"],
  defaultTopic: "set_pose",
  parameters: ignitionParameters(UNICYCLE_STATE_COMPONENTS),
  create: (p) => new Unicycle2DIgnition(p),
};
