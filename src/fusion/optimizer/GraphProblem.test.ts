import { describe, expect, it } from "vitest";

import { GraphProblem } from "./GraphProblem";
import type { Problem } from "./Problem";
import { ABS_POSITION_2D, RELATIVE_POSITION_2D, position, testContext } from "./testing";
import { Constraint, diagonal, Graph, ORIENTATION_2D, Variable } from "../core";

const S = 1_000_000_000;

/** The problem's structure: what a solver reads from it. */
function structure(problem: Problem): unknown {
  return {
    blocks: problem.blocks.map((b) => ({ data: b.data, constant: b.constant, manifold: b.manifold, localSize: b.localSize })),
    residuals: problem.residualBlocks.map((r) => ({
      cost: r.cost,
      loss: r.loss,
      blockIndices: [...r.blockIndices],
      parameters: r.parameters,
    })),
  };
}

/** Expects `rebuilt` to hold exactly what a new GraphProblem of the graph holds (same objects). */
function expectSameAsFresh(rebuilt: GraphProblem, graph: Graph, uuids: readonly string[]): void {
  const fresh = new GraphProblem(graph);
  const got = structure(rebuilt.problem) as { blocks: { data: unknown }[]; residuals: { parameters: unknown[] }[] };
  const want = structure(fresh.problem) as typeof got;
  expect(got).toEqual(want);
  // toEqual compares values; the solver writes through the data arrays, so they must be the graph's.
  got.blocks.forEach((b, i) => {
    expect(b.data).toBe(want.blocks[i]!.data);
  });
  got.residuals.forEach((r, i) => {
    r.parameters.forEach((p, k) => {
      expect(p).toBe(want.residuals[i]!.parameters[k]);
    });
  });
  for (const u of uuids) {
    expect(rebuilt.blockOf(u)).toBe(fresh.blockOf(u));
  }
}

function absolute(v: Variable, z: readonly number[]): Constraint {
  return Constraint.fromCovariance({
    type: ABS_POSITION_2D,
    source: "test",
    variables: [v.uuid],
    mean: z,
    partialCovariance: diagonal([0.5, 0.5]),
  });
}

function relative(a: Variable, b: Variable): Constraint {
  return Constraint.fromCovariance({
    type: RELATIVE_POSITION_2D,
    source: "test",
    variables: [a.uuid, b.uuid],
    mean: [1, 0],
    partialCovariance: diagonal([0.1, 0.1]),
  });
}

describe("GraphProblem.rebuild", () => {
  it("holds what a new GraphProblem holds after every change to the graph", () => {
    const { uuids: ids } = testContext();
    const graph = new Graph();
    const built = new GraphProblem();
    const vars = [0, 1, 2, 3, 4, 5].map((k) => position(ids, k * S, [k, 0]));
    const uuids = vars.map((v) => v.uuid);
    const step = (change: () => void): void => {
      change();
      built.rebuild(graph);
      expectSameAsFresh(built, graph, uuids);
    };
    step(() => {
      // The empty graph.
    });
    const abs0 = absolute(vars[0]!, [0, 0]);
    step(() => {
      graph.addVariable(vars[0]!);
      graph.addConstraint(abs0);
    });
    const rel: Constraint[] = [];
    for (let k = 1; k < 4; k++) {
      step(() => {
        graph.addVariable(vars[k]!);
        const c = relative(vars[k - 1]!, vars[k]!);
        rel.push(c);
        graph.addConstraint(c);
      });
    }
    // A variable added out of stamp order, and one with two constraints added at once.
    step(() => {
      graph.addVariable(vars[5]!);
      graph.addVariable(vars[4]!);
      graph.addConstraint(relative(vars[4]!, vars[5]!));
      graph.addConstraint(relative(vars[3]!, vars[4]!));
    });
    step(() => {
      graph.holdVariable(uuids[1]!);
    });
    step(() => {
      graph.releaseVariable(uuids[1]!);
    });
    // The oldest variable leaves (its constraints first), as marginalization does.
    step(() => {
      graph.removeConstraint(abs0.uuid);
      graph.removeConstraint(rel[0]!.uuid);
      graph.removeVariable(uuids[0]!);
    });
    // The same UUID comes back as a new variable object: its block must be over the new data.
    step(() => {
      graph.addVariable(position(ids, 0, [9, 9]));
      graph.addConstraint(relative(graph.getVariable(uuids[0]!), vars[1]!));
    });
    // A constraint out of the graph for one build, then back.
    step(() => {
      graph.removeConstraint(rel[2]!.uuid);
    });
    step(() => {
      graph.addConstraint(rel[2]!);
    });
    // An unstamped variable sorts last.
    const unstamped = new Variable({ uuid: "00000000-0000-0000-0000-0000000000aa", type: ORIENTATION_2D, data: [0.5] });
    step(() => {
      graph.addVariable(unstamped);
      graph.addConstraint(
        Constraint.fromCovariance({
          type: "fuse_constraints::AbsoluteOrientation2DStampedConstraint",
          source: "test",
          variables: [unstamped.uuid],
          mean: [0.4],
          partialCovariance: diagonal([0.2]),
        }),
      );
    });
    expect(built.problem.blocks.at(-1)!.data).toBe(graph.getVariable(unstamped.uuid).data);
    // Its constraint taken out and put back over a new variable object with the same UUID, with
    // and without a build in between.
    const prior = graph.getConnectedConstraints(unstamped.uuid)[0]!;
    const replace = (data: number): void => {
      graph.removeConstraint(prior.uuid);
      graph.removeVariable(unstamped.uuid);
      graph.addVariable(new Variable({ uuid: unstamped.uuid, type: ORIENTATION_2D, data: [data] }));
      graph.addConstraint(prior);
    };
    step(() => {
      replace(0.1);
    });
    step(() => {
      graph.removeConstraint(prior.uuid);
      graph.removeVariable(unstamped.uuid);
    });
    step(() => {
      graph.addVariable(new Variable({ uuid: unstamped.uuid, type: ORIENTATION_2D, data: [0.2] }));
      graph.addConstraint(prior);
    });
    expect(built.problem.blocks.at(-1)!.data[0]).toBe(0.2);
    step(() => {
      graph.clear();
    });
    expect(built.problem.blocks).toHaveLength(0);
  });

  it("keeps the parameter and residual blocks of what stays in the graph", () => {
    const { uuids: ids } = testContext();
    const graph = new Graph();
    const a = position(ids, 0);
    const b = position(ids, S);
    graph.addVariable(a);
    graph.addVariable(b);
    graph.addConstraint(absolute(a, [0, 0]));
    graph.addConstraint(relative(a, b));
    const built = new GraphProblem(graph);
    const blocks = [...built.problem.blocks];
    const residuals = [...built.problem.residualBlocks];
    const c = position(ids, 2 * S);
    graph.addVariable(c);
    graph.addConstraint(relative(b, c));
    built.rebuild(graph);
    expect(built.problem.blocks.slice(0, 2)).toEqual(blocks);
    built.problem.blocks.slice(0, 2).forEach((block, i) => {
      expect(block).toBe(blocks[i]);
    });
    built.problem.residualBlocks.slice(0, 2).forEach((r, i) => {
      expect(r).toBe(residuals[i]);
    });
    expect(built.problem.residualBlocks).toHaveLength(3);
  });
});
