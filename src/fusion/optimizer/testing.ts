import { TimeBase } from "../../time";
import {
  Constraint,
  POSITION_2D,
  StampedUuids,
  Transaction,
  Variable,
  diagonal,
  NIL_UUID,
  type FusionContext,
} from "../core";

/** Test helpers shared by the optimizer tests (not part of the public API). */

export const RELATIVE_POSITION_2D = "fuse_constraints::RelativePosition2DStampedConstraint";
export const ABS_POSITION_2D = "fuse_constraints::AbsolutePosition2DStampedConstraint";

/** A FusionContext with base 0 and the ROS 1 recipe, collecting warnings. */
export function testContext(): FusionContext & { warnings: string[] } {
  const timeBase = TimeBase.forFirstStamp(0n);
  const warnings: string[] = [];
  return {
    timeBase,
    uuids: new StampedUuids(timeBase, "ros1"),
    drop: () => undefined,
    warn: (m: string) => warnings.push(m),
    now: () => 0,
    warnings,
  };
}

/** The Position2D variable at a stamp (value `init`). */
export function position(ids: StampedUuids, stamp: number, init: readonly number[] = [0, 0]): Variable {
  return Variable.stamped(ids, POSITION_2D, stamp, NIL_UUID, init);
}

/**
 * A linear-Gaussian transaction at `stamp`: a Position2D there with an absolute measurement `z`
 * (σ² = `varZ`) and, when `previous` is given, a relative measurement `d` (σ² = `varD`) from the
 * position at `previous`.
 */
export function linearStep(
  ids: StampedUuids,
  stamp: number,
  z: readonly [number, number],
  varZ: number,
  previous?: { stamp: number; d: readonly [number, number]; varD: number },
): Transaction {
  const tx = new Transaction(stamp).addInvolvedStamp(stamp);
  const p = position(ids, stamp, z);
  tx.addVariable(p);
  tx.addConstraint(
    Constraint.fromCovariance({
      type: ABS_POSITION_2D,
      source: "test",
      variables: [p.uuid],
      mean: z,
      partialCovariance: diagonal([varZ, varZ]),
    }),
  );
  if (previous) {
    const q = position(ids, previous.stamp);
    tx.addInvolvedStamp(previous.stamp);
    tx.addVariable(q);
    tx.addConstraint(
      Constraint.fromCovariance({
        type: RELATIVE_POSITION_2D,
        source: "test",
        variables: [q.uuid, p.uuid],
        mean: previous.d,
        partialCovariance: diagonal([previous.varD, previous.varD]),
      }),
    );
  }
  return tx;
}
