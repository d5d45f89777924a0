import { MarginalConstraint } from "./MarginalConstraint";
import {
  ABSOLUTE_ORIENTATION_3D_EULER,
  ABSOLUTE_POSE_3D,
  OMNIDIRECTIONAL_3D_KINEMATIC,
  RELATIVE_POSE_3D,
  ABSOLUTE_POSE_2D,
  MARGINAL,
  RELATIVE_POSE_2D,
  UNICYCLE_2D_KINEMATIC,
  type Constraint,
  type LossConfig,
} from "../core";
import { AbsoluteCost } from "../math/AbsoluteCost";
import { AbsoluteOrientation3DEulerCost } from "../math/AbsoluteOrientation3DEulerCost";
import { AbsolutePose2DCost } from "../math/AbsolutePose2DCost";
import { AbsolutePose3DCost } from "../math/AbsolutePose3DCost";
import type { CostFunction } from "../math/CostFunction";
import { MarginalCost } from "../math/MarginalCost";
import { Omnidirectional3DStateCost } from "../math/Omnidirectional3DStateCost";
import { RelativeCost } from "../math/RelativeCost";
import { RelativePose2DCost } from "../math/RelativePose2DCost";
import { RelativePose3DCost } from "../math/RelativePose3DCost";
import { Unicycle2DStateCost } from "../math/Unicycle2DStateCost";
import { createLoss, type LossFunction } from "../math/losses";
import { QUATERNION_MANIFOLD } from "../math/manifold";

/** A constraint's cost function and robust loss, as the solver uses them. */
export interface ConstraintCost {
  readonly cost: CostFunction;
  readonly loss: LossFunction | undefined;
}

const ABSOLUTE = /^fuse_constraints::Absolute(\w+?)([23])DStampedConstraint$/;
const RELATIVE = /^fuse_constraints::Relative(\w+?)([23])DStampedConstraint$/;
const cache = new WeakMap<Constraint, ConstraintCost>();

/**
 * The cost function of a constraint, dispatched on its fuse type name (reference/fuse.md §2.2,
 * §6): `AbsolutePose2DStamped`, `RelativePose2DStamped`, the generic `Absolute<V>2DStamped` /
 * `Relative<V>2DStamped` (Orientation wraps), `Unicycle2DStateKinematicConstraint` (needs `dt` in
 * seconds, from the constraint or its `extra`) and `MarginalConstraint` (needs the
 * `MarginalConstraint` class). Cached per constraint object (constraints are immutable).
 *
 * Throws RangeError naming the constraint when its type is unknown or its data is malformed.
 */
export function costFunctionFor(constraint: Constraint): ConstraintCost {
  const hit = cache.get(constraint);
  if (hit) {
    return hit;
  }
  const built = buildConstraintCost(constraint);
  cache.set(constraint, built);
  return built;
}

/**
 * `costFunctionFor` without its cache: a new cost function (and loss) every call, equal in every
 * number to the cached one. For callers that keep what they build (GraphProblem keeps one per
 * constraint while the constraint is in the graph), so that no WeakMap entry is made per
 * constraint: that entry cost as much as building the cost function. Throws as `costFunctionFor`.
 */
export function buildConstraintCost(constraint: Constraint): ConstraintCost {
  let built: ConstraintCost;
  try {
    built = { cost: build(constraint), loss: lossFor(constraint.loss) };
  } catch (error) {
    throw new RangeError(
      `constraint ${constraint.uuid} (${constraint.type} from ${constraint.source}): ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  return built;
}

function lossFor(loss: LossConfig | null): LossFunction | undefined {
  return createLoss(loss);
}

function build(c: Constraint): CostFunction {
  const a = c.sqrtInformation;
  if (a.cols !== c.mean.length && c.type !== MARGINAL && c.type !== ABSOLUTE_POSE_3D && c.type !== RELATIVE_POSE_3D) {
    throw new RangeError(
      `sqrtInformation has ${a.cols} columns but the mean has ${c.mean.length} entries`,
    );
  }
  switch (c.type) {
    case ABSOLUTE_POSE_2D:
      return new AbsolutePose2DCost(c.mean, a.data);
    case RELATIVE_POSE_2D:
      return new RelativePose2DCost(c.mean, a.data);
    case UNICYCLE_2D_KINEMATIC: {
      const dt = (c as Constraint & { dt?: unknown }).dt ?? c.extra?.dt;
      if (typeof dt !== "number") {
        throw new RangeError("the kinematic constraint has no numeric dt (seconds)");
      }
      return new Unicycle2DStateCost(dt, a.data);
    }
    case ABSOLUTE_POSE_3D:
      return new AbsolutePose3DCost(c.mean, a.data);
    case RELATIVE_POSE_3D:
      return new RelativePose3DCost(c.mean, a.data);
    case ABSOLUTE_ORIENTATION_3D_EULER:
      return new AbsoluteOrientation3DEulerCost(c.mean, a.data);
    case OMNIDIRECTIONAL_3D_KINEMATIC: {
      const dt = c.extra?.dt;
      if (typeof dt !== "number") {
        throw new RangeError("the kinematic constraint has no numeric dt (seconds)");
      }
      return new Omnidirectional3DStateCost(dt, a.data);
    }
    case MARGINAL: {
      if (!(c instanceof MarginalConstraint)) {
        throw new RangeError("a MarginalConstraint must be built with the MarginalConstraint class");
      }
      return new MarginalCost(
        c.b,
        c.a.map((block, i) => ({
          a: block.data,
          linearizationPoint: c.linearizationPoints[i]!,
          angular: c.angular[i],
          manifold: block.cols === 3 && c.linearizationPoints[i]!.length === 4 ? QUATERNION_MANIFOLD : undefined,
        })),
      );
    }
    default:
      break;
  }
  // The generic vector constraints; only Orientation2D wraps (Orientation3D is not a vector).
  const abs = ABSOLUTE.exec(c.type);
  if (abs && !(abs[1] === "Orientation" && abs[2] === "3")) {
    return new AbsoluteCost(c.mean, a.data, [abs[1] === "Orientation"]);
  }
  const rel = RELATIVE.exec(c.type);
  if (rel && !(rel[1] === "Orientation" && rel[2] === "3")) {
    return new RelativeCost(c.mean, a.data, [rel[1] === "Orientation"]);
  }
  throw new RangeError(`the optimizer has no cost function for constraint type "${c.type}"`);
}
