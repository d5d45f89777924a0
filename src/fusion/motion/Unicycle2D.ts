import { StateChainMotionModel, type StateChainOptions, type StateLayout } from "./StateChainMotionModel";
import { Unicycle2DStateKinematicConstraint } from "./Unicycle2DStateKinematicConstraint";
import {
  ACCELERATION_LINEAR_2D,
  ORIENTATION_2D,
  POSITION_2D,
  VELOCITY_ANGULAR_2D,
  VELOCITY_LINEAR_2D,
} from "../core";
import { predictUnicycle2D, UNICYCLE_STATE_COMPONENTS } from "../math/unicycle2d";
import type { MotionModelDescriptor } from "../registry/PluginDescriptor";
import { processNoiseDiagonal, STATE_CHAIN } from "../registry/commonParameters";

/** Options of the Unicycle2D motion model (fuse_models::Unicycle2D parameters, §3.8). */
export interface Unicycle2DOptions extends StateChainOptions {
  /**
   * `process_noise_diagonal`: the process-noise variances per second, in the order x, y, yaw, vx,
   * vy, vyaw, ax, ay. Required, 8 finite values.
   */
  readonly processNoiseDiagonal: readonly number[];
  /** `scale_process_noise`: scale the pose block by ‖(vx, vy, vyaw)‖². Default false. */
  readonly scaleProcessNoise?: boolean;
  /** `velocity_norm_min`: lower bound of that norm. Default 1e-3. */
  readonly velocityNormMin?: number;
}

/**
 * The state [x, y, yaw, vx, vy, vyaw, ax, ay] as Position2D, Orientation2D, VelocityLinear2D,
 * VelocityAngular2D, AccelerationLinear2D, predicted by `predictUnicycle2D`.
 */
function unicycleLayout(velocityNormMin: number): StateLayout {
  return {
    label: "Unicycle2D",
    types: [POSITION_2D, ORIENTATION_2D, VELOCITY_LINEAR_2D, VELOCITY_ANGULAR_2D, ACCELERATION_LINEAR_2D],
    offsets: [0, 2, 3, 5, 6],
    sizes: [2, 1, 2, 1, 2],
    valueNames: ["pose", "pose", "pose", "linear velocity", "linear velocity", "yaw velocity", "linear acceleration", "linear acceleration"],
    noiseNames: UNICYCLE_STATE_COMPONENTS,
    initialState: new Array<number>(8).fill(0),
    predict: predictUnicycle2D,
    scaleNoise: (state, q) => {
      const f = Math.max(velocityNormMin, Math.hypot(state[3]!, state[4]!, state[5]!)) ** 2;
      q[0] = q[0]! * f;
      q[1] = q[1]! * f;
      q[2] = q[2]! * f;
    },
    constraint: (source, variables, dt, covariance, sqrtInformation) =>
      new Unicycle2DStateKinematicConstraint(source, variables, dt, covariance, sqrtInformation),
  };
}

/**
 * The Unicycle2D motion model (fuse_models::Unicycle2D, reference/fuse.md §3.8 and §6.3): fuse's
 * chain of 8-dimensional planar states (see StateChainMotionModel for the chain's guarantees),
 * joined by `fuse_models::Unicycle2DStateKinematicConstraint` with covariance `diag(q)·dt` (pose
 * block scaled by `max(velocityNormMin, ‖v‖)²` when `scaleProcessNoise`); with no history the
 * variables start at zero.
 *
 * ```ts
 * const model = new Unicycle2D({ processNoiseDiagonal: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1] });
 * model.initialize(context, "unicycle_motion_model");
 * model.start();
 * model.apply(transaction); // transaction now carries the chain variables and constraints
 * ```
 */
export class Unicycle2D extends StateChainMotionModel {
  /** Throws RangeError naming the option when an option is invalid. */
  public constructor(options: Unicycle2DOptions) {
    super(options, unicycleLayout(options.velocityNormMin ?? 1e-3));
  }
}

/** fuse_models::Unicycle2D's plugin descriptor. */
export const UNICYCLE_2D: MotionModelDescriptor = {
  role: "motion",
  type: "fuse_models::Unicycle2D",
  help: "planar constant-velocity, constant-acceleration motion model (8-dimensional state)",
  parameters: [
    processNoiseDiagonal(UNICYCLE_STATE_COMPONENTS),
    { name: "scaleProcessNoise", type: { kind: "bool" }, default: false, help: "scale the pose noise by the squared velocity norm" },
    { name: "velocityNormMin", type: { kind: "number", min: 0, exclusiveMin: true }, default: 1e-3, help: "lower bound of that velocity norm" },
    ...STATE_CHAIN,
  ],
  create: (p) => new Unicycle2D(p as unknown as Unicycle2DOptions),
};
