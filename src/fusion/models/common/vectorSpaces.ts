import {
  ABSOLUTE_ACCELERATION_LINEAR_2D,
  ABSOLUTE_ACCELERATION_LINEAR_3D,
  ABSOLUTE_VELOCITY_ANGULAR_2D,
  ABSOLUTE_VELOCITY_ANGULAR_3D,
  ABSOLUTE_VELOCITY_LINEAR_2D,
  ABSOLUTE_VELOCITY_LINEAR_3D,
  ACCELERATION_LINEAR_2D,
  ACCELERATION_LINEAR_3D,
  VELOCITY_ANGULAR_2D,
  VELOCITY_ANGULAR_3D,
  VELOCITY_LINEAR_2D,
  VELOCITY_LINEAR_3D,
  zeros,
  type Matrix,
} from "../../core";

/**
 * Which components of a ROS 3-vector (and of its 6×6 twist/accel covariance) one fuse variable
 * holds, and the variable and absolute-constraint types.
 */
export interface VectorPart {
  readonly variableType: string;
  readonly constraintType: string;
  /** First vector component held, and how many. */
  readonly offset: number;
  readonly size: number;
  /** Row/column of the first of them in the 6×6 covariance. */
  readonly covarianceOffset: number;
}

/**
 * The 2D or 3D form of fuse_models' twist and acceleration processing (sensor_proc.hpp's 2D and
 * 3D overloads): the parts for linear velocity, angular velocity and linear acceleration, and how
 * the absolute constraint's mean holds the components not selected (fuse's 2D code writes 0
 * there, its 3D code the measured value; only the selected ones enter the cost either way).
 */
export interface VectorSpace {
  readonly linearVelocity: VectorPart;
  readonly angularVelocity: VectorPart;
  readonly linearAcceleration: VectorPart;
  readonly unselectedMean: "zero" | "measured";
}

/** Planar: (x, y) linear parts, the yaw rate alone (covariance entry [5][5]). */
export const PLANAR: VectorSpace = {
  linearVelocity: { variableType: VELOCITY_LINEAR_2D, constraintType: ABSOLUTE_VELOCITY_LINEAR_2D, offset: 0, size: 2, covarianceOffset: 0 },
  angularVelocity: { variableType: VELOCITY_ANGULAR_2D, constraintType: ABSOLUTE_VELOCITY_ANGULAR_2D, offset: 2, size: 1, covarianceOffset: 5 },
  linearAcceleration: { variableType: ACCELERATION_LINEAR_2D, constraintType: ABSOLUTE_ACCELERATION_LINEAR_2D, offset: 0, size: 2, covarianceOffset: 0 },
  unselectedMean: "zero",
};

/** Spatial: the whole 3-vectors, linear block [0..2], angular block [3..5]. */
export const SPATIAL: VectorSpace = {
  linearVelocity: { variableType: VELOCITY_LINEAR_3D, constraintType: ABSOLUTE_VELOCITY_LINEAR_3D, offset: 0, size: 3, covarianceOffset: 0 },
  angularVelocity: { variableType: VELOCITY_ANGULAR_3D, constraintType: ABSOLUTE_VELOCITY_ANGULAR_3D, offset: 0, size: 3, covarianceOffset: 3 },
  linearAcceleration: { variableType: ACCELERATION_LINEAR_3D, constraintType: ABSOLUTE_ACCELERATION_LINEAR_3D, offset: 0, size: 3, covarianceOffset: 0 },
  unselectedMean: "measured",
};

/** The part's components of a 3-vector. */
export function componentsOf(part: VectorPart, v: readonly number[]): number[] {
  return v.slice(part.offset, part.offset + part.size);
}

/** The part's square block of a 6×6 row-major covariance. */
export function covarianceBlock(part: VectorPart, cov: ArrayLike<number>): Matrix {
  const n = part.size;
  const o = part.covarianceOffset;
  const m = zeros(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      m.data[i * n + j] = cov[(i + o) * 6 + (j + o)]!;
    }
  }
  return m;
}
