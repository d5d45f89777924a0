import { describe, expect, it } from "vitest";

import { MarginalConstraint } from "./MarginalConstraint";
import { costFunctionFor } from "./costFunctionFor";
import { Constraint, diagonal, fromRows, MARGINAL, UNICYCLE_2D_KINEMATIC, zeros } from "../core";
import { evaluateWithJacobians } from "../math/finiteDifference";
import { HuberLoss } from "../math/losses";
import { Unicycle2DStateKinematicConstraint } from "../motion/Unicycle2DStateKinematicConstraint";

const f = (...v: number[]): Float64Array => Float64Array.from(v);
const abs = (type: string, mean: number[], variance: number[]): Constraint =>
  Constraint.fromCovariance({
    type,
    source: "t",
    variables: mean.length === 3 && type.includes("Pose") ? ["p", "o"] : ["v"],
    mean,
    partialCovariance: diagonal(variance),
  });

/** A plain kinematic constraint over ten placeholder variables with unit information. */
function unitKinematic(source: string, extra: Readonly<Record<string, unknown>> | undefined): Constraint {
  return new Constraint({
    type: UNICYCLE_2D_KINEMATIC,
    source,
    variables: "abcdefghij".split(""),
    mean: new Float64Array(8),
    sqrtInformation: diagonal(new Array(8).fill(1)),
    covariance: diagonal(new Array(8).fill(1)),
    extra,
  });
}

describe("costFunctionFor", () => {
  it("dispatches absolute constraints by fuse type name, wrapping only Orientation2D", () => {
    const orientation = costFunctionFor(
      abs("fuse_constraints::AbsoluteOrientation2DStampedConstraint", [Math.PI - 0.1], [0.25]),
    );
    expect(evaluateWithJacobians(orientation.cost, [f(-Math.PI + 0.1)]).residuals[0]).toBeCloseTo(0.4, 12);
    const angularVelocity = costFunctionFor(
      abs("fuse_constraints::AbsoluteVelocityAngular2DStampedConstraint", [Math.PI - 0.1], [0.25]),
    );
    // A yaw *rate* does not wrap: (−π + 0.1 − (π − 0.1)) / 0.5
    expect(evaluateWithJacobians(angularVelocity.cost, [f(-Math.PI + 0.1)]).residuals[0]).toBeCloseTo(
      (-2 * Math.PI + 0.2) / 0.5,
      12,
    );
    const pose = costFunctionFor(abs("fuse_constraints::AbsolutePose2DStampedConstraint", [1, 2, 0], [1, 4, 1]));
    expect(Array.from(evaluateWithJacobians(pose.cost, [f(2, 4), f(0.5)]).residuals)).toEqual([1, 1, 0.5]);
  });

  it("builds the kinematic cost from the constraint's dt and the robust loss from its config", () => {
    const c = new Unicycle2DStateKinematicConstraint("m", "abcdefghij".split(""), 0.5, diagonal(new Array(8).fill(0.1)));
    expect(costFunctionFor(c).cost.numResiduals).toBe(8);
    const plain = unitKinematic("m", { dt: 0.1 });
    expect(costFunctionFor(plain).cost.parameterBlockSizes).toEqual([2, 1, 2, 1, 2, 2, 1, 2, 1, 2]);
    const robust = Constraint.fromCovariance({
      type: "fuse_constraints::AbsolutePosition2DStampedConstraint",
      source: "t",
      variables: ["v"],
      mean: [0, 0],
      partialCovariance: diagonal([1, 1]),
      loss: { type: "fuse_loss::HuberLoss", parameters: { a: 2 } },
    });
    expect(costFunctionFor(robust).loss).toBeInstanceOf(HuberLoss);
    expect(costFunctionFor(robust)).toBe(costFunctionFor(robust)); // cached per constraint
  });

  it("builds the marginal cost from a MarginalConstraint", () => {
    const m = new MarginalConstraint({
      source: "fls",
      variables: ["a"],
      a: [fromRows([[2, 0], [0, 3]])],
      b: [1, 1],
      linearizationPoints: [[5, 5]],
      angular: [[false, false]],
    });
    expect(m.type).toBe(MARGINAL);
    expect(Array.from(evaluateWithJacobians(costFunctionFor(m).cost, [f(6, 4)]).residuals)).toEqual([3, -2]);
  });

  it("names the constraint when it cannot build a cost", () => {
    const unknown = new Constraint({
      uuid: "u-1",
      type: "fuse_constraints::Bogus",
      source: "s",
      variables: ["v"],
      mean: [0],
      sqrtInformation: zeros(1, 1),
      covariance: zeros(1, 1),
    });
    expect(() => costFunctionFor(unknown)).toThrow(/u-1 \(fuse_constraints::Bogus from s\).*no cost function/);
    const marginalShaped = new Constraint({
      type: MARGINAL,
      source: "s",
      variables: ["v"],
      mean: [0],
      sqrtInformation: zeros(1, 1),
      covariance: zeros(1, 1),
    });
    expect(() => costFunctionFor(marginalShaped)).toThrow(/MarginalConstraint class/);
    const noDt = unitKinematic("s", undefined);
    expect(() => costFunctionFor(noDt)).toThrow(/no numeric dt/);
  });
});
