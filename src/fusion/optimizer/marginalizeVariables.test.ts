import { describe, expect, it } from "vitest";

import { GraphProblem } from "./GraphProblem";
import { LevenbergMarquardt } from "./LevenbergMarquardt";
import { MarginalConstraint } from "./MarginalConstraint";
import { costFunctionFor } from "./costFunctionFor";
import { marginalizeVariables } from "./marginalizeVariables";
import { linearStep, position, testContext } from "./testing";
import {
  ABSOLUTE_POSE_2D,
  Constraint,
  constraintToJson,
  diagonal,
  Graph,
  MARGINAL,
  NIL_UUID,
  ORIENTATION_2D,
  RELATIVE_POSE_2D,
  Variable,
} from "../core";
import { inverse, multiply, transpose } from "../core/linalg";
import { wrapAngle } from "../math/angles";

const TIGHT = { functionTolerance: 0, parameterTolerance: 1e-14, gradientTolerance: 1e-14 };
const S = 1_000_000_000;

/** A chain of 6 positions with absolute and relative measurements (linear, inconsistent). */
function chainGraph(): { graph: Graph; stamps: number[]; ids: ReturnType<typeof testContext>["uuids"] } {
  const { uuids: ids } = testContext();
  const graph = new Graph();
  const stamps = [0, 1, 2, 3, 4, 5].map((k) => k * S);
  const z: [number, number][] = [
    [0, 0],
    [1.1, 0.2],
    [2.3, -0.1],
    [2.9, 0.4],
    [4.2, 0.1],
    [5.1, -0.3],
  ];
  stamps.forEach((t, k) => {
    const prev = k === 0 ? undefined : { stamp: stamps[k - 1]!, d: [1, 0] as const, varD: 0.04 * (k + 1) };
    graph.update(linearStep(ids, t, z[k]!, 0.5 + 0.1 * k, prev));
  });
  return { graph, stamps, ids };
}

describe("marginalizeVariables", () => {
  it("keeps the estimate and covariance of the remaining variables (linear-Gaussian case)", () => {
    const full = chainGraph();
    const lm = new LevenbergMarquardt(TIGHT);
    const fullProblem = new GraphProblem(full.graph);
    lm.solve(fullProblem.problem);
    const keep = full.stamps.slice(3).map((t) => position(full.ids, t).uuid);
    const want = keep.map((u) => Array.from(full.graph.getVariable(u).data));
    const wantCov = lm.covariance(fullProblem.problem, keep.map((u) => fullProblem.blockOf(u)!))!;

    // Marginalize the three oldest positions from an unsolved copy, then solve what is left.
    const part = chainGraph();
    const old = part.stamps.slice(0, 3).map((t) => position(part.ids, t).uuid);
    const tx = marginalizeVariables("fixed_lag_smoother", old, part.graph, 2.5 * S);
    expect(tx.removedVariables).toEqual(old);
    expect(tx.removedConstraints).toHaveLength(3 + 3); // 3 absolute + 3 relative (0-1, 1-2, 2-3)
    expect(tx.addedConstraints).toHaveLength(1);
    const marginal = tx.addedConstraints[0] as MarginalConstraint;
    expect(marginal).toBeInstanceOf(MarginalConstraint);
    expect(marginal.type).toBe(MARGINAL);
    expect(marginal.source).toBe("fixed_lag_smoother");
    expect(marginal.variables).toEqual([position(part.ids, 3 * S).uuid]);
    // Its covariance, worked out when first read, is (AᵀA)⁻¹, and the JSON carries it.
    const a = marginal.sqrtInformation;
    const wantMarginalCov = inverse(multiply(transpose(a), a))!;
    marginal.covariance.data.forEach((v, i) => { expect(v).toBeCloseTo(wantMarginalCov.data[i]!, 12); });
    expect(constraintToJson(marginal).covariance.flat()).toEqual(Array.from(marginal.covariance.data));
    part.graph.update(tx);
    expect(part.graph.variableCount).toBe(3);
    const partProblem = new GraphProblem(part.graph);
    const lm2 = new LevenbergMarquardt(TIGHT);
    lm2.solve(partProblem.problem);
    keep.forEach((u, i) => {
      const got = part.graph.getVariable(u).data;
      expect(got[0]).toBeCloseTo(want[i]![0]!, 9);
      expect(got[1]).toBeCloseTo(want[i]![1]!, 9);
    });
    const gotCov = lm2.covariance(partProblem.problem, keep.map((u) => partProblem.blockOf(u)!))!;
    gotCov.forEach((v, i) => { expect(v).toBeCloseTo(wantCov[i]!, 9); });
  });

  it("linearizes non-linear pose constraints exactly at the solution (matches batch to first order)", () => {
    // Poses with relative constraints around ±π: after solving, marginalizing the first pose and
    // re-solving leaves the others where they were (the marginal's gradient at x̄ matches).
    const { uuids: ids } = testContext();
    const graph = new Graph();
    const yaws = [Math.PI - 0.1, -Math.PI + 0.2, -Math.PI + 0.5];
    const vars = yaws.map((yaw, k) => ({
      p: position(ids, k * S, [k, 0.5 * k]),
      o: Variable.stamped(ids, ORIENTATION_2D, k * S, NIL_UUID, [yaw]),
    }));
    for (const v of vars) {
      graph.addVariable(v.p);
      graph.addVariable(v.o);
    }
    graph.addConstraint(
      Constraint.fromCovariance({
        type: ABSOLUTE_POSE_2D,
        source: "t",
        variables: [vars[0]!.p.uuid, vars[0]!.o.uuid],
        mean: [0, 0, Math.PI - 0.1],
        partialCovariance: diagonal([0.01, 0.01, 0.01]),
      }),
    );
    for (let k = 1; k < 3; k++) {
      graph.addConstraint(
        Constraint.fromCovariance({
          type: RELATIVE_POSE_2D,
          source: "t",
          variables: [vars[k - 1]!.p.uuid, vars[k - 1]!.o.uuid, vars[k]!.p.uuid, vars[k]!.o.uuid],
          mean: [1, 0.2, 0.3],
          partialCovariance: diagonal([0.1, 0.1, 0.05]),
        }),
      );
    }
    new LevenbergMarquardt(TIGHT).solve(new GraphProblem(graph).problem);
    const before = vars
      .slice(1)
      .map((v) => [...graph.getVariable(v.p.uuid).data, graph.getVariable(v.o.uuid).data[0]!]);
    graph.update(marginalizeVariables("fls", [vars[0]!.p.uuid, vars[0]!.o.uuid], graph, 0));
    new LevenbergMarquardt(TIGHT).solve(new GraphProblem(graph).problem);
    vars.slice(1).forEach((v, i) => {
      const p = graph.getVariable(v.p.uuid).data;
      expect(p[0]).toBeCloseTo(before[i]![0]!, 8);
      expect(p[1]).toBeCloseTo(before[i]![1]!, 8);
      expect(Math.abs(wrapAngle(graph.getVariable(v.o.uuid).data[0]! - before[i]![2]!))).toBeLessThan(1e-8);
    });
  });

  it("keeps the remaining estimate and covariance when the marginalized block's envelope has a gap", () => {
    // Positions 0…3 with absolute measurements; 0 is linked to 2 and to the kept 3, while 1 has
    // only its own: the rows of 1 start right of column 0, which the rows of 2 still reach.
    const graphWithGap = (): { graph: Graph; ids: ReturnType<typeof testContext>["uuids"] } => {
      const { uuids: ids } = testContext();
      const graph = new Graph();
      graph.update(linearStep(ids, 0, [0, 0], 0.5));
      graph.update(linearStep(ids, S, [1.2, 0.1], 0.7));
      graph.update(linearStep(ids, 2 * S, [2.1, -0.2], 0.6, { stamp: 0, d: [2, 0], varD: 0.05 }));
      graph.update(linearStep(ids, 3 * S, [2.8, 0.3], 0.9, { stamp: 0, d: [3, 0.2], varD: 0.08 }));
      return { graph, ids };
    };
    // First a marginalization whose block is dense, so that the solver's reused buffers hold
    // non-zeros wherever the next block has none.
    const dense = new Graph();
    const { uuids: denseIds } = testContext();
    dense.update(linearStep(denseIds, 0, [0, 0], 0.5));
    dense.update(linearStep(denseIds, S, [1, 0], 0.5, { stamp: 0, d: [1, 0], varD: 0.1 }));
    dense.update(linearStep(denseIds, 2 * S, [2, 0], 0.5, { stamp: 0, d: [2, 0], varD: 0.1 }));
    dense.update(linearStep(denseIds, 2 * S, [2, 0], 0.5, { stamp: S, d: [1, 0], varD: 0.1 }));
    dense.update(linearStep(denseIds, 3 * S, [3, 0], 0.5, { stamp: 2 * S, d: [1, 0], varD: 0.1 }));
    const denseOld = [0, S, 2 * S].map((t) => position(denseIds, t).uuid);
    expect(marginalizeVariables("fls", denseOld, dense, 2.5 * S).addedConstraints).toHaveLength(1);

    const full = graphWithGap();
    const lm = new LevenbergMarquardt(TIGHT);
    const fullProblem = new GraphProblem(full.graph);
    lm.solve(fullProblem.problem);
    const kept = position(full.ids, 3 * S).uuid;
    const want = Array.from(full.graph.getVariable(kept).data);
    const wantCov = lm.covariance(fullProblem.problem, [fullProblem.blockOf(kept)!])!;

    const part = graphWithGap();
    const old = [0, S, 2 * S].map((t) => position(part.ids, t).uuid);
    part.graph.update(marginalizeVariables("fls", old, part.graph, 2.5 * S));
    expect(part.graph.variableCount).toBe(1);
    const partProblem = new GraphProblem(part.graph);
    const lm2 = new LevenbergMarquardt(TIGHT);
    lm2.solve(partProblem.problem);
    const got = part.graph.getVariable(kept).data;
    expect(got[0]).toBeCloseTo(want[0]!, 9);
    expect(got[1]).toBeCloseTo(want[1]!, 9);
    const gotCov = lm2.covariance(partProblem.problem, [partProblem.blockOf(kept)!])!;
    gotCov.forEach((v, i) => { expect(v).toBeCloseTo(wantCov[i]!, 9); });
  });

  it("refuses a constraint with a non-finite residual or Jacobian entry, and only then", () => {
    const { graph, stamps, ids } = chainGraph();
    const old = stamps.slice(0, 3).map((t) => position(ids, t).uuid);
    const spoiled = graph.getConnectedConstraints(old[1]!)[0]!;
    /** The usual cost, with `value` written over one output entry of `spoiled`'s evaluations. */
    const spoiling = (value: number, where: "residual" | "jacobian" | "none") => (c: Constraint) => {
      const built = costFunctionFor(c);
      if (c !== spoiled || where === "none") {
        return built;
      }
      const cost = built.cost;
      return {
        ...built,
        cost: {
          numResiduals: cost.numResiduals,
          parameterBlockSizes: cost.parameterBlockSizes,
          evaluate: (p: readonly Float64Array[], r: Float64Array, j: readonly (Float64Array | null)[] | null) => {
            const ok = cost.evaluate(p, r, j);
            if (where === "residual") {
              r[cost.numResiduals - 1] = value;
            } else if (j?.[0]) {
              j[0][1] = value;
            }
            return ok;
          },
        },
      };
    };
    for (const value of [NaN, Infinity, -Infinity]) {
      for (const where of ["residual", "jacobian"] as const) {
        expect(() => marginalizeVariables("fls", old, graph, 0, spoiling(value, where))).toThrow(RangeError);
      }
    }
    for (const value of [Number.MAX_VALUE, -0, 5e-324]) {
      expect(() => marginalizeVariables("fls", old, graph, 0, spoiling(value, "jacobian"))).not.toThrow();
    }
    expect(() => marginalizeVariables("fls", old, graph, 0, spoiling(NaN, "none"))).not.toThrow();
  });

  it("returns an empty removal-only transaction when nothing remains connected", () => {
    const { uuids: ids } = testContext();
    const graph = new Graph();
    graph.update(linearStep(ids, 0, [1, 2], 1));
    const u = position(ids, 0).uuid;
    const tx = marginalizeVariables("fls", [u], graph, 0);
    expect(tx.removedVariables).toEqual([u]);
    expect(tx.addedConstraints).toHaveLength(0);
    graph.update(tx);
    expect(graph.variableCount).toBe(0);
    expect(graph.constraintCount).toBe(0);
  });
});
