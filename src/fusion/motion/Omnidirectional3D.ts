import { StateChainMotionModel, type StateChainOptions, type StateLayout } from "./StateChainMotionModel";
import {
  ACCELERATION_LINEAR_3D,
  Constraint,
  OMNIDIRECTIONAL_3D_KINEMATIC,
  ORIENTATION_3D,
  POSITION_3D,
  VELOCITY_ANGULAR_3D,
  VELOCITY_LINEAR_3D,
  whiten,
  type Matrix,
} from "../core";
import { OMNIDIRECTIONAL_STATE_COMPONENTS, predictOmnidirectional3D } from "../math/omnidirectional3d";
import type { MotionModelDescriptor } from "../registry/PluginDescriptor";
import { processNoiseDiagonal, STATE_CHAIN } from "../registry/commonParameters";

/** Options of the Omnidirectional3D motion model (fuse_models::Omnidirectional3D parameters). */
export interface Omnidirectional3DOptions extends StateChainOptions {
  /**
   * `process_noise_diagonal`: 15 variances per second (x, y, z, roll, pitch, yaw, vx, vy, vz,
   * vroll, vpitch, vyaw, ax, ay, az). Required.
   */
  readonly processNoiseDiagonal: readonly number[];
  /** `scale_process_noise`: scale the position and orientation noise by the squared velocity norms. Default false. */
  readonly scaleProcessNoise?: boolean;
  /** `velocity_linear_norm_min` (m/s). Default 1e-3. */
  readonly velocityLinearNormMin?: number;
  /** `velocity_angular_norm_min` (rad/s). Default 1e-3. */
  readonly velocityAngularNormMin?: number;
}

const ALL_INDICES: readonly number[] = Array.from({ length: 15 }, (_, i) => i);
/** The kinematic constraint's mean (the expected residual, zero); shared, as a Constraint copies its mean. */
const ZERO_MEAN = new Float64Array(15);

/**
 * The state [x, y, z, qw, qx, qy, qz, vx, vy, vz, vroll, vpitch, vyaw, ax, ay, az] as Position3D,
 * Orientation3D, VelocityLinear3D, VelocityAngular3D, AccelerationLinear3D (starting at the
 * origin, identity orientation, at rest), predicted by `predictOmnidirectional3D`.
 */
function omnidirectionalLayout(linearNormMin: number, angularNormMin: number): StateLayout {
  return {
    label: "Omnidirectional3D",
    types: [POSITION_3D, ORIENTATION_3D, VELOCITY_LINEAR_3D, VELOCITY_ANGULAR_3D, ACCELERATION_LINEAR_3D],
    offsets: [0, 3, 7, 10, 13],
    sizes: [3, 4, 3, 3, 3],
    valueNames: ["position", "position", "position", "orientation", "orientation", "orientation", "orientation",
      "linear velocity", "linear velocity", "linear velocity", "angular velocity", "angular velocity", "angular velocity",
      "linear acceleration", "linear acceleration", "linear acceleration"],
    noiseNames: OMNIDIRECTIONAL_STATE_COMPONENTS,
    initialState: [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    predict: predictOmnidirectional3D,
    scaleNoise: (state, q) => {
      const fl = Math.max(linearNormMin, Math.hypot(state[7]!, state[8]!, state[9]!)) ** 2;
      const fa = Math.max(angularNormMin, Math.hypot(state[10]!, state[11]!, state[12]!)) ** 2;
      for (let i = 0; i < 3; i++) {
        q[i] = q[i]! * fl;
        q[3 + i] = q[3 + i]! * fa;
      }
    },
    constraint: kinematicConstraint,
  };
}

/**
 * The Omnidirectional3D motion model (fuse_models::Omnidirectional3D): fuse's chain of
 * 15-dimensional states (see StateChainMotionModel for the chain's guarantees) joined by
 * `fuse_models::Omnidirectional3DStateKinematicConstraint` with covariance `diag(q)·dt` (with
 * `scaleProcessNoise`, the position block times max(velocityLinearNormMin, ‖v‖)² and the
 * orientation block times max(velocityAngularNormMin, ‖ω‖)²).
 */
export class Omnidirectional3D extends StateChainMotionModel {
  /** Throws RangeError naming the option when an option is invalid. */
  public constructor(options: Omnidirectional3DOptions) {
    super(
      options,
      omnidirectionalLayout(options.velocityLinearNormMin ?? 1e-3, options.velocityAngularNormMin ?? 1e-3),
    );
  }
}

/**
 * The kinematic constraint between two states (10 UUIDs), covariance Q·dt (whitened here unless
 * `sqrtInformation` is given), JSON with `dt`.
 */
function kinematicConstraint(
  source: string,
  variables: readonly string[],
  dt: number,
  covariance: Matrix,
  sqrtInformation?: Matrix,
): Constraint {
  return new Constraint({
    type: OMNIDIRECTIONAL_3D_KINEMATIC,
    source,
    variables,
    mean: ZERO_MEAN,
    sqrtInformation: sqrtInformation ?? whiten(covariance, ALL_INDICES, 15, OMNIDIRECTIONAL_3D_KINEMATIC).sqrtInformation,
    covariance,
    extra: { dt },
  });
}

/** fuse_models::Omnidirectional3D's plugin descriptor. */
export const OMNIDIRECTIONAL_3D: MotionModelDescriptor = {
  role: "motion",
  type: "fuse_models::Omnidirectional3D",
  help: "3D constant-velocity, constant-acceleration motion model (15-dimensional state)",
  parameters: [
    processNoiseDiagonal(OMNIDIRECTIONAL_STATE_COMPONENTS),
    { name: "scaleProcessNoise", type: { kind: "bool" }, default: false, help: "scale the pose noise by the squared velocity norms" },
    { name: "velocityLinearNormMin", type: { kind: "number", min: 0, exclusiveMin: true }, default: 1e-3, unit: "m/s", help: "lower bound of the linear velocity norm" },
    { name: "velocityAngularNormMin", type: { kind: "number", min: 0, exclusiveMin: true }, default: 1e-3, unit: "rad/s", help: "lower bound of the angular velocity norm" },
    ...STATE_CHAIN,
  ],
  create: (p) => new Omnidirectional3D(p as unknown as Omnidirectional3DOptions),
};
