import type { GraphProblem } from "./GraphProblem";
import type { LevenbergMarquardt } from "./LevenbergMarquardt";
import type { Stamp } from "../../time";
import {
  ACCELERATION_LINEAR_2D,
  NIL_UUID,
  ORIENTATION_2D,
  POSITION_2D,
  VELOCITY_ANGULAR_2D,
  VELOCITY_LINEAR_2D,
  type ReadonlyGraph,
  type Variable,
} from "../core";

/**
 * What fuse's Odometry2DPublisher publishes after an optimization (reference/fuse.md §1.6): the
 * state at the newest stamp where position, orientation, linear and angular velocity and linear
 * acceleration all exist, with the pose and twist covariances from the inverse of the
 * information matrix at the solution (what `ceres::Covariance` computes).
 */
export interface Odometry2DEstimate {
  /** Relative stamp of the state. */
  readonly stamp: Stamp;
  readonly x: number;
  readonly y: number;
  /** Yaw in [-π, π). */
  readonly yaw: number;
  /** Body-frame velocity. */
  readonly vx: number;
  readonly vy: number;
  readonly vyaw: number;
  /** Body-frame linear acceleration. */
  readonly ax: number;
  readonly ay: number;
  /** 3 × 3 row-major covariance of (x, y, yaw); NaN when the information matrix is singular. */
  readonly poseCovariance: readonly number[];
  /** 3 × 3 row-major covariance of (vx, vy, vyaw); NaN likewise. */
  readonly twistCovariance: readonly number[];
}

const TYPES = [POSITION_2D, ORIENTATION_2D, VELOCITY_LINEAR_2D, VELOCITY_ANGULAR_2D, ACCELERATION_LINEAR_2D];

/**
 * The Odometry2D estimate for the newest complete state, preferring the transaction's involved
 * stamps (newest first) and falling back to the whole graph (fuse's StampedVariableSynchronizer).
 * Undefined when no stamp has all five variables. With `options.covariance` false (default true)
 * the covariances are not computed (NaN).
 */
export function odometry2DEstimate(
  graph: ReadonlyGraph,
  involvedStamps: readonly Stamp[],
  built: GraphProblem,
  solver: LevenbergMarquardt,
  deviceId: string = NIL_UUID,
  options?: { readonly covariance?: boolean },
): Odometry2DEstimate | undefined {
  // The involved stamps first: grouping only their variables finds the same complete states.
  let byStamp = statesOf(graph, deviceId, involvedStamps);
  const complete = (s: Stamp): boolean => byStamp.get(s)?.every((v) => v != undefined) ?? false;
  let stamp: Stamp | undefined;
  for (let i = involvedStamps.length - 1; i >= 0; i--) {
    if (complete(involvedStamps[i]!)) {
      stamp = involvedStamps[i]!;
      break;
    }
  }
  if (stamp == undefined) {
    byStamp = statesOf(graph, deviceId, undefined);
    for (const s of byStamp.keys()) {
      if (complete(s) && (stamp == undefined || s > stamp)) {
        stamp = s;
      }
    }
  }
  if (stamp == undefined) {
    return undefined;
  }
  const [p, o, v, w, a] = byStamp.get(stamp)! as Readonly<Variable>[];
  const blocks = [p!, o!, v!, w!].map((x) => built.blockOf(x.uuid));
  let cov: Float64Array | undefined;
  if (options?.covariance !== false && blocks.every((b) => b != undefined)) {
    cov = solver.covariance(built.problem, blocks);
  }
  const pick = (offset: number): number[] => {
    const out: number[] = [];
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        out.push(cov ? cov[(offset + i) * 6 + offset + j]! : NaN);
      }
    }
    return out;
  };
  return {
    stamp,
    x: p!.data[0]!,
    y: p!.data[1]!,
    yaw: o!.data[0]!,
    vx: v!.data[0]!,
    vy: v!.data[1]!,
    vyaw: w!.data[0]!,
    ax: a!.data[0]!,
    ay: a!.data[1]!,
    poseCovariance: pick(0),
    twistCovariance: pick(3),
  };
}

/**
 * The device's stamped variables of the five Odometry2D types by stamp (in TYPES order; the last
 * one in graph order when a type repeats), for the given stamps only or, when undefined, all.
 */
function statesOf(
  graph: ReadonlyGraph,
  deviceId: string,
  stamps: readonly Stamp[] | undefined,
): Map<Stamp, (Readonly<Variable> | undefined)[]> {
  const byStamp = new Map<Stamp, (Readonly<Variable> | undefined)[]>();
  for (const v of graph.getVariables()) {
    if (v.stamp == undefined || (v.deviceId ?? NIL_UUID) !== deviceId) {
      continue;
    }
    if (stamps != undefined && !stamps.includes(v.stamp)) {
      continue;
    }
    const k = TYPES.indexOf(v.type);
    if (k < 0) {
      continue;
    }
    let slot = byStamp.get(v.stamp);
    if (!slot) {
      slot = [undefined, undefined, undefined, undefined, undefined];
      byStamp.set(v.stamp, slot);
    }
    slot[k] = v;
  }
  return byStamp;
}
