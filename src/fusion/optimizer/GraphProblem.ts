import { Problem, type ParameterBlock, type ResidualBlock } from "./Problem";
import { costFunctionFor } from "./costFunctionFor";
import { VARIABLE_TYPES, type Constraint, type ReadonlyGraph, type Variable } from "../core";
import { QUATERNION_MANIFOLD } from "../math/manifold";

const ANGULAR: readonly boolean[] = [true];

/** A graph variable's parameter block, kept between builds while the variable is the same object. */
interface Slot {
  readonly variable: Variable;
  readonly block: ParameterBlock;
  index: number;
  /** The build that last used it. */
  build: number;
}

/**
 * A `Problem` built from a fuse graph, as fuse's HashGraph builds its Ceres problem on every
 * optimize: one parameter block per variable that some constraint uses (over the variable's live
 * `data`, so solving writes the graph in place), held variables constant, Orientation2D blocks
 * wrapping, one residual block per constraint.
 *
 * Parameter blocks are ordered by stamp (unstamped variables last, ties by UUID), which keeps the
 * normal equations of a motion-model chain banded for the envelope solver.
 *
 * `rebuild` makes the same problem for the graph as it is now, reusing the parameter and residual
 * blocks of variables and constraints that are still there (an optimizer rebuilds every cycle
 * over a window that mostly stays): the result is exactly what a new GraphProblem would hold.
 */
export class GraphProblem {
  /** The problem to hand to the solver (the same object after each rebuild). */
  public readonly problem = new Problem();
  readonly #slots = new Map<string, Slot>();
  readonly #order: Slot[] = [];
  readonly #residuals = new WeakMap<Constraint, ResidualBlock>();
  readonly #indices: number[] = [];
  #build = 0;

  /** Throws RangeError (from `costFunctionFor`) for a constraint the solver cannot evaluate. */
  public constructor(graph?: ReadonlyGraph) {
    if (graph != undefined) {
      this.rebuild(graph);
    }
  }

  /** Rebuilds the problem for the graph's current variables and constraints. Returns this. */
  public rebuild(graph: ReadonlyGraph): this {
    const build = ++this.#build;
    const slots = this.#slots;
    const order = this.#order;
    order.length = 0;
    for (const c of graph.getConstraints()) {
      for (const uuid of c.variables) {
        let slot = slots.get(uuid);
        if (slot?.build === build) {
          continue;
        }
        const variable = graph.getVariable(uuid) as Variable;
        if (slot?.variable === variable) {
          slot.build = build;
        } else {
          slot = { variable, block: parameterBlockOf(variable), index: -1, build };
          slots.set(uuid, slot);
        }
        order.push(slot);
      }
    }
    if (slots.size > order.length) {
      slots.forEach((slot, uuid) => {
        if (slot.build !== build) {
          slots.delete(uuid);
        }
      });
    }
    order.sort(compareSlots);
    const problem = this.problem.clear();
    for (const slot of order) {
      const v = slot.variable;
      slot.block.constant = v.hold || graph.isVariableOnHold(v.uuid);
      slot.index = problem.adoptParameterBlock(slot.block);
    }
    const indices = this.#indices;
    for (const c of graph.getConstraints()) {
      const vars = c.variables;
      const cached = this.#residuals.get(c);
      let same = cached != undefined;
      indices.length = vars.length;
      for (let i = 0; i < vars.length; i++) {
        const slot = slots.get(vars[i]!)!;
        indices[i] = slot.index;
        same &&= cached!.parameters[i] === slot.variable.data;
      }
      if (same) {
        problem.readdResidualBlock(cached!, indices);
      } else {
        const { cost, loss } = costFunctionFor(c);
        const at = problem.addResidualBlock(cost, loss, indices);
        this.#residuals.set(c, problem.residualBlocks[at]!);
      }
    }
    return this;
  }

  /** The parameter-block index of a variable, or undefined when no constraint uses it. */
  public blockOf(uuid: string): number | undefined {
    const slot = this.#slots.get(uuid);
    return slot?.build === this.#build ? slot.index : undefined;
  }
}

/** The parameter block of a variable: its data, held or not, on its type's manifold. */
function parameterBlockOf(v: Variable): ParameterBlock {
  const info = VARIABLE_TYPES[v.type];
  return Problem.parameterBlock(v.data, {
    angular: info?.wrapsAngle === true ? ANGULAR : undefined,
    manifold: info?.quaternion === true ? QUATERNION_MANIFOLD : undefined,
  });
}

function compareSlots(a: Slot, b: Slot): number {
  return compareVariables(a.variable, b.variable);
}

function compareVariables(a: Variable, b: Variable): number {
  const sa = a.stamp ?? Infinity;
  const sb = b.stamp ?? Infinity;
  if (sa !== sb) {
    return sa < sb ? -1 : 1;
  }
  return a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;
}
