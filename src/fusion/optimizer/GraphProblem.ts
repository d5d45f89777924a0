import { Problem, type ParameterBlock, type ResidualBlock } from "./Problem";
import { buildConstraintCost, type ConstraintCost } from "./costFunctionFor";
import { uuidPrefixKey } from "./uuidPrefixKey";
import { VARIABLE_TYPES, type Constraint, type ReadonlyGraph, type Variable } from "../core";
import { QUATERNION_MANIFOLD } from "../math/manifold";

const ANGULAR: readonly boolean[] = [true];

/**
 * A graph variable's parameter block, kept between builds while the variable is the same object.
 *
 * Slots and entries are class instances, not object literals: V8 allocates the objects of a
 * literal directly in the old generation once most of them have outlived a young-generation
 * collection (as a window's objects do while the code is still slow), and a dead old slot then
 * keeps its young variable, block and data alive through every young collection until the next
 * full one. Classes have no such allocation site.
 */
class Slot {
  public constructor(
    public readonly variable: Variable,
    public readonly block: ParameterBlock,
    /** The variable's stamp, Infinity when unstamped (the sort key). */
    public readonly stamp: number,
    /** The tie-break key `uuidPrefixKey(variable.uuid)` (NaN when the UUID is not lower-case canonical). */
    public readonly uuidKey: number,
    public index: number,
    /** The build that last used it. */
    public build: number,
  ) {}
}

/** A graph constraint's residual block and the slots of its variables, kept between builds. */
class Entry {
  /** Undefined until the first build that adds it. */
  public residual: ResidualBlock | undefined = undefined;
  /** Per variable of the constraint; current when the slot's build is the current one. */
  public readonly slots: (Slot | undefined)[];
  /** The slots' block indices in this build (filled by each rebuild). */
  public readonly indices: number[];

  public constructor(
    public readonly constraint: Constraint,
    variables: number,
    /** The build that last used it. */
    public build: number,
  ) {
    this.slots = new Array<Slot | undefined>(variables);
    this.indices = new Array<number>(variables).fill(-1);
  }
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
 * A variable is looked up in the graph once per build, however many constraints use it.
 */
export class GraphProblem {
  /** The problem to hand to the solver (the same object after each rebuild). */
  public readonly problem = new Problem();
  readonly #slots = new Map<string, Slot>();
  /**
   * This build's slots (#orderCount of them while building) and entries in the graph's constraint
   * order: written in place each build (never emptied first), so the arrays keep their storage.
   */
  readonly #order: Slot[] = [];
  #orderCount = 0;
  readonly #entries = new Map<Constraint, Entry>();
  readonly #current: Entry[] = [];
  #build = 0;

  /** Throws RangeError (from `buildConstraintCost`) for a constraint the solver cannot evaluate. */
  public constructor(graph?: ReadonlyGraph) {
    if (graph != undefined) {
      this.rebuild(graph);
    }
  }

  /** Rebuilds the problem for the graph's current variables and constraints. Returns this. */
  public rebuild(graph: ReadonlyGraph): this {
    const build = ++this.#build;
    const order = this.#order;
    const entries = this.#entries;
    const current = this.#current;
    this.#orderCount = 0;
    let currentCount = 0;
    for (const c of graph.getConstraints()) {
      const vars = c.variables;
      let entry = entries.get(c);
      if (entry == undefined) {
        entry = new Entry(c, vars.length, build);
        entries.set(c, entry);
      }
      entry.build = build;
      const entrySlots = entry.slots;
      for (let i = 0; i < vars.length; i++) {
        const slot = entrySlots[i];
        if (slot?.build !== build) {
          entrySlots[i] = this.#slotFor(graph, vars[i]!, build);
        }
      }
      current[currentCount++] = entry;
    }
    current.length = currentCount;
    order.length = this.#orderCount;
    if (entries.size > current.length) {
      entries.forEach((entry, c) => {
        if (entry.build !== build) {
          entries.delete(c);
        }
      });
    }
    const slots = this.#slots;
    if (slots.size > order.length) {
      slots.forEach((slot, uuid) => {
        if (slot.build !== build) {
          slots.delete(uuid);
        }
      });
    }
    sortSlots(order);
    const problem = this.problem.clear();
    for (const slot of order) {
      const v = slot.variable;
      slot.block.constant = v.hold || graph.isVariableOnHold(v.uuid);
      slot.index = problem.adoptParameterBlock(slot.block);
    }
    for (const entry of current) {
      const entrySlots = entry.slots;
      const indices = entry.indices;
      const cached = entry.residual;
      let same = cached != undefined;
      for (let i = 0; i < entrySlots.length; i++) {
        const slot = entrySlots[i]!;
        indices[i] = slot.index;
        same &&= cached!.parameters[i] === slot.variable.data;
      }
      if (same) {
        problem.readdResidualBlock(cached!, indices);
      } else {
        // A constraint whose variables are new objects keeps its cost function (built from the
        // constraint alone); only its residual block is made again.
        const { cost, loss } = cached ?? buildConstraintCost(entry.constraint);
        const added = problem.addResidualBlock(cost, loss, indices);
        entry.residual = problem.residualBlock(added)!;
      }
    }
    return this;
  }

  /**
   * The cost function and loss of a constraint of the latest build (its residual block: the same
   * objects the solver evaluated), undefined for any other constraint.
   */
  public costOf(constraint: Constraint): ConstraintCost | undefined {
    const entry = this.#entries.get(constraint);
    return entry?.build === this.#build ? entry.residual : undefined;
  }

  /** The parameter-block index of a variable, or undefined when no constraint uses it. */
  public blockOf(uuid: string): number | undefined {
    const slot = this.#slots.get(uuid);
    return slot?.build === this.#build ? slot.index : undefined;
  }

  /**
   * The slot of the graph's variable `uuid` in this build: the kept one while the graph holds the
   * same variable object, else a new one (added to this build's order either way, once).
   */
  #slotFor(graph: ReadonlyGraph, uuid: string, build: number): Slot {
    let slot = this.#slots.get(uuid);
    if (slot?.build === build) {
      return slot;
    }
    const variable = graph.getVariable(uuid) as Variable;
    if (slot?.variable === variable) {
      slot.build = build;
    } else {
      slot = new Slot(variable, parameterBlockOf(variable), variable.stamp ?? Infinity, uuidPrefixKey(variable.uuid), -1, build);
      this.#slots.set(uuid, slot);
    }
    this.#order[this.#orderCount++] = slot;
    return slot;
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

/**
 * Sorts by `compareSlots` in place: insertion sort, as the order is nearly sorted already (old
 * variables are met first, in stamp order, through the constraints that stay; new ones at the
 * end), so this costs about one comparison per slot. The order is total (UUIDs are unique), so
 * any sort gives this result.
 */
function sortSlots(order: Slot[]): void {
  for (let i = 1; i < order.length; i++) {
    const slot = order[i]!;
    let j = i - 1;
    if (compareSlots(order[j]!, slot) <= 0) {
      continue;
    }
    do {
      order[j + 1] = order[j]!;
      j--;
    } while (j >= 0 && compareSlots(order[j]!, slot) > 0);
    order[j + 1] = slot;
  }
}

/**
 * Stamp, then UUID (string order). The variables of one stamp all tie on the stamp, so the UUIDs
 * decide often: their precomputed prefix keys first, and the strings only when the keys are equal
 * or missing.
 */
function compareSlots(a: Slot, b: Slot): number {
  if (a.stamp !== b.stamp) {
    return a.stamp < b.stamp ? -1 : 1;
  }
  const ka = a.uuidKey;
  const kb = b.uuidKey;
  if (ka !== kb && ka === ka && kb === kb) {
    return ka < kb ? -1 : 1;
  }
  const ua = a.variable.uuid;
  const ub = b.variable.uuid;
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}
