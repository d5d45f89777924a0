import { Problem } from "./Problem";
import { costFunctionFor } from "./costFunctionFor";
import { VARIABLE_TYPES, type Constraint, type ReadonlyGraph, type Variable } from "../core";
import { QUATERNION_MANIFOLD, type Manifold } from "../math/manifold";

const ANGULAR: readonly boolean[] = [true];

/**
 * A `Problem` built from a fuse graph, as fuse's HashGraph builds its Ceres problem on every
 * optimize: one parameter block per variable that some constraint uses (over the variable's live
 * `data`, so solving writes the graph in place), held variables constant, Orientation2D blocks
 * wrapping, one residual block per constraint.
 *
 * Parameter blocks are ordered by stamp (unstamped variables last, ties by UUID), which keeps the
 * normal equations of a motion-model chain banded for the envelope solver.
 */
export class GraphProblem {
  /** The problem to hand to the solver. */
  public readonly problem = new Problem();
  readonly #index = new Map<string, number>();

  /** Throws RangeError (from `costFunctionFor`) for a constraint the solver cannot evaluate. */
  public constructor(graph: ReadonlyGraph) {
    const used = new Set<string>();
    const constraints: Constraint[] = [];
    for (const c of graph.getConstraints()) {
      constraints.push(c);
      for (const v of c.variables) {
        used.add(v);
      }
    }
    const variables: Variable[] = [];
    for (const uuid of used) {
      variables.push(graph.getVariable(uuid));
    }
    variables.sort(compareVariables);
    // One options object and one index list, reused (the problem copies what it keeps).
    const constant = {
      angular: undefined as readonly boolean[] | undefined,
      manifold: undefined as Manifold | undefined,
      constant: false,
    };
    for (const v of variables) {
      const info = VARIABLE_TYPES[v.type];
      constant.angular = info?.wrapsAngle === true ? ANGULAR : undefined;
      constant.manifold = info?.quaternion === true ? QUATERNION_MANIFOLD : undefined;
      constant.constant = v.hold || graph.isVariableOnHold(v.uuid);
      this.#index.set(v.uuid, this.problem.addParameterBlock(v.data, constant));
    }
    const indices: number[] = [];
    for (const c of constraints) {
      const { cost, loss } = costFunctionFor(c);
      const vars = c.variables;
      indices.length = vars.length;
      for (let i = 0; i < vars.length; i++) {
        indices[i] = this.#index.get(vars[i]!)!;
      }
      this.problem.addResidualBlock(cost, loss, indices);
    }
  }

  /** The parameter-block index of a variable, or undefined when no constraint uses it. */
  public blockOf(uuid: string): number | undefined {
    return this.#index.get(uuid);
  }
}

function compareVariables(a: Variable, b: Variable): number {
  const sa = a.stamp ?? Infinity;
  const sb = b.stamp ?? Infinity;
  if (sa !== sb) {
    return sa < sb ? -1 : 1;
  }
  return a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;
}
