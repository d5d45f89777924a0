import type { Constraint } from "./Constraint";
import type { Transaction } from "./Transaction";
import type { Variable } from "./Variable";

/** Thrown when a graph update breaks fuse's HashGraph invariants (reference/fuse.md §1.3). */
export class GraphError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = "GraphError";
  }
}

/** The read-only view sensors and motion models get in `graphCallback`. */
export interface ReadonlyGraph {
  variableExists(uuid: string): boolean;
  /** Throws GraphError when absent. */
  getVariable(uuid: string): Readonly<Variable>;
  /** Undefined when absent. */
  findVariable(uuid: string): Readonly<Variable> | undefined;
  getVariables(): IterableIterator<Readonly<Variable>>;
  constraintExists(uuid: string): boolean;
  /** Throws GraphError when absent. */
  getConstraint(uuid: string): Constraint;
  getConstraints(): IterableIterator<Constraint>;
  /** Constraints using the variable; throws GraphError when the variable does not exist. */
  getConnectedConstraints(variableUuid: string): Constraint[];
  isVariableOnHold(uuid: string): boolean;
  readonly variableCount: number;
  readonly constraintCount: number;
}

/**
 * fuse's HashGraph bookkeeping (no solver): variables and constraints by UUID with a
 * variable→constraints cross reference.
 *
 * Guarantees (reference/fuse.md §1.3, fuse_graphs/hash_graph): adding an existing UUID is a no-op
 * returning false and keeps the stored value; adding a constraint whose variable is unknown throws
 * GraphError; removing an unknown UUID returns false; removing a variable still used by a
 * constraint throws GraphError. `update(tx)` applies added variables, added constraints, removed
 * constraints, removed variables, in that order, and stops at the first error (like fuse, the
 * graph is then partly updated: the optimizer treats that as fatal).
 * Added variables are copied, so optimizing the graph never changes a transaction's values.
 */
export class Graph implements ReadonlyGraph {
  readonly #variables = new Map<string, Variable>();
  readonly #constraints = new Map<string, Constraint>();
  readonly #byVariable = new Map<string, string[]>();
  readonly #held = new Set<string>();

  public get variableCount(): number {
    return this.#variables.size;
  }

  public get constraintCount(): number {
    return this.#constraints.size;
  }

  public variableExists(uuid: string): boolean {
    return this.#variables.has(uuid);
  }

  /** The stored (mutable) variable; optimizers write `data` in place. Throws when absent. */
  public getVariable(uuid: string): Variable {
    return present(this.#variables.get(uuid), "variable", uuid);
  }

  public findVariable(uuid: string): Variable | undefined {
    return this.#variables.get(uuid);
  }

  public getVariables(): IterableIterator<Variable> {
    return this.#variables.values();
  }

  public constraintExists(uuid: string): boolean {
    return this.#constraints.has(uuid);
  }

  public getConstraint(uuid: string): Constraint {
    return present(this.#constraints.get(uuid), "constraint", uuid);
  }

  public getConstraints(): IterableIterator<Constraint> {
    return this.#constraints.values();
  }

  public getConnectedConstraints(variableUuid: string): Constraint[] {
    const list = this.#byVariable.get(variableUuid);
    if (list != undefined) {
      return list.map((u) => this.#constraints.get(u)!);
    }
    if (this.#variables.has(variableUuid)) {
      return [];
    }
    throw new GraphError(
      `Attempting to access constraints connected to variable (${variableUuid}), but that variable does not exist in this graph.`,
    );
  }

  /** Adds a copy of the variable; false (and no change) when the UUID exists. */
  public addVariable(variable: Variable): boolean {
    if (this.#variables.has(variable.uuid)) {
      return false;
    }
    this.#variables.set(variable.uuid, variable.clone());
    if (variable.hold) {
      this.#held.add(variable.uuid);
    }
    return true;
  }

  /** Adds the constraint; false when the UUID exists; throws GraphError for an unknown variable. */
  public addConstraint(constraint: Constraint): boolean {
    if (this.#constraints.has(constraint.uuid)) {
      return false;
    }
    for (const v of constraint.variables) {
      if (!this.#variables.has(v)) {
        throw new GraphError(
          `Attempting to add a constraint (${constraint.uuid}, ${constraint.type} from ${constraint.source}) that uses an unknown variable (${v}).`,
        );
      }
    }
    this.#constraints.set(constraint.uuid, constraint);
    for (const v of constraint.variables) {
      let list = this.#byVariable.get(v);
      if (list == undefined) {
        list = [];
        this.#byVariable.set(v, list);
      }
      list.push(constraint.uuid);
    }
    return true;
  }

  /** Removes the constraint; false when unknown. */
  public removeConstraint(uuid: string): boolean {
    const c = this.#constraints.get(uuid);
    if (c == undefined) {
      return false;
    }
    for (const v of c.variables) {
      const list = this.#byVariable.get(v);
      if (list) {
        // In place (lists are never handed out): drop every occurrence, keep the order.
        let w = 0;
        for (const u of list) {
          if (u !== uuid) {
            list[w++] = u;
          }
        }
        list.length = w;
      }
    }
    this.#constraints.delete(uuid);
    return true;
  }

  /** Removes the variable; false when unknown; throws GraphError while a constraint uses it. */
  public removeVariable(uuid: string): boolean {
    if (!this.#variables.has(uuid)) {
      return false;
    }
    const list = this.#byVariable.get(uuid);
    if (list != undefined && list.length > 0) {
      throw new GraphError(
        `Attempting to remove a variable (${uuid}) that is used by existing constraints (${list[0]!} plus ${list.length - 1} others).`,
      );
    }
    this.#variables.delete(uuid);
    this.#byVariable.delete(uuid);
    this.#held.delete(uuid);
    return true;
  }

  /** Marks a variable constant for the optimizer (fuse's holdVariable(uuid, true)). Returns this. */
  public holdVariable(uuid: string): this {
    this.#held.add(uuid);
    return this;
  }

  /** Lets the optimizer change the variable again (holdVariable(uuid, false)). Returns this. */
  public releaseVariable(uuid: string): this {
    this.#held.delete(uuid);
    return this;
  }

  public isVariableOnHold(uuid: string): boolean {
    return this.#held.has(uuid);
  }

  /** Applies a transaction in fuse's order (see class comment). Throws GraphError on the first error. */
  public update(tx: Transaction): void {
    for (const v of tx.addedVariables) {
      this.addVariable(v);
    }
    for (const c of tx.addedConstraints) {
      this.addConstraint(c);
    }
    for (const u of tx.removedConstraints) {
      this.removeConstraint(u);
    }
    for (const u of tx.removedVariables) {
      this.removeVariable(u);
    }
  }

  /** A deep copy of the variables (constraints are immutable and shared). */
  public clone(): Graph {
    const g = new Graph();
    for (const [u, v] of this.#variables) {
      g.#variables.set(u, v.clone());
    }
    for (const [u, c] of this.#constraints) {
      g.#constraints.set(u, c);
    }
    for (const [u, l] of this.#byVariable) {
      g.#byVariable.set(u, [...l]);
    }
    for (const u of this.#held) {
      g.#held.add(u);
    }
    return g;
  }

  /** Removes everything. Returns this. */
  public clear(): this {
    this.#variables.clear();
    this.#constraints.clear();
    this.#byVariable.clear();
    this.#held.clear();
    return this;
  }
}

/** `value`, or a GraphError saying that the variable or constraint `uuid` does not exist. */
function present<T>(value: T | undefined, kind: "variable" | "constraint", uuid: string): T {
  if (value == undefined) {
    throw new GraphError(`The ${kind} UUID ${uuid} does not exist.`);
  }
  return value;
}
