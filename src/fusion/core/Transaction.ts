import type { Constraint } from "./Constraint";
import { toRows } from "./Matrix";
import type { Variable } from "./Variable";
import { lowerBound, type Stamp, type TimeBase } from "../../time";

/** The `overwrite` flag of fuse's add/merge calls. */
export interface MergeOptions {
  /** Replace an already-added entry with the same UUID. Default false. */
  readonly overwrite?: boolean;
}

/** What `Changes.removed` is before the first removal. */
const NO_REMOVALS: ReadonlySet<string> = new Set();

/**
 * One kind of entry (variables or constraints) a transaction adds and removes, with fuse's rules
 * (see Transaction): both lists keep insertion order.
 */
class Changes<T extends { readonly uuid: string }> {
  public readonly added = new Map<string, T>();
  /** Created on the first removal (most transactions remove nothing). */
  #removed: Set<string> | undefined;

  /** The pending removals, in the order recorded. */
  public get removed(): ReadonlySet<string> {
    return this.#removed ?? NO_REMOVALS;
  }

  /** Cancels a pending removal, else adds, or replaces an added entry only when `overwrite`. */
  public add(entry: T, options: MergeOptions | undefined): void {
    const overwrite = options?.overwrite ?? false;
    if (this.#removed?.delete(entry.uuid) === true) {
      return;
    }
    if (!this.added.has(entry.uuid) || overwrite) {
      this.added.set(entry.uuid, entry);
    }
  }

  /** Drops a pending addition, else records the removal once. */
  public remove(uuid: string): void {
    if (!this.added.delete(uuid)) {
      (this.#removed ??= new Set()).add(uuid);
    }
  }

  /** Nothing added or removed. */
  public get empty(): boolean {
    return this.added.size === 0 && (this.#removed?.size ?? 0) === 0;
  }
}

/**
 * A fuse transaction (reference/fuse.md §1.3): a stamp, a sorted set of involved stamps, and
 * UUID-keyed added/removed variables and constraints.
 *
 * Semantics (exactly fuse_core/src/transaction.cpp):
 * - `addVariable(v, {overwrite})`: if `v.uuid` is pending removal, the removal is cancelled and
 *   nothing is added; else if already added, replaced in place only when `overwrite`; else
 *   appended.
 * - `removeVariable(uuid)`: if added, the addition is dropped; else appended to removals once.
 * - constraints likewise; `merge(other, {overwrite})` takes the max stamp, unions involved stamps, then applies the
 *   other's added constraints, removed constraints, added variables, removed variables in that
 *   order.
 *
 * Order of the added/removed lists is insertion order (a JS Map keeps a replaced entry's position,
 * as fuse's in-place vector assignment does).
 */
export class Transaction {
  /** The transaction stamp (the sensor message stamp; max over merges). */
  public stamp: Stamp;
  readonly #involved: Stamp[] = [];
  readonly #variables = new Changes<Variable>();
  readonly #constraints = new Changes<Constraint>();

  public constructor(stamp: Stamp) {
    this.stamp = stamp;
  }

  /** Involved stamps, ascending, de-duplicated. */
  public get involvedStamps(): readonly Stamp[] {
    return this.#involved;
  }

  /** Added variables in insertion order. */
  public get addedVariables(): readonly Variable[] {
    return [...this.#variables.added.values()];
  }

  /** Added constraints in insertion order. */
  public get addedConstraints(): readonly Constraint[] {
    return [...this.#constraints.added.values()];
  }

  /** UUIDs of removed variables, in insertion order. */
  public get removedVariables(): readonly string[] {
    return [...this.#variables.removed];
  }

  /** UUIDs of removed constraints, in insertion order. */
  public get removedConstraints(): readonly string[] {
    return [...this.#constraints.removed];
  }

  /** The added variable with this UUID, if any. */
  public getAddedVariable(uuid: string): Variable | undefined {
    return this.#variables.added.get(uuid);
  }

  /** Inserts a stamp into the involved set (no-op when present). Returns this. */
  public addInvolvedStamp(stamp: Stamp): this {
    const a = this.#involved;
    const lo = lowerBound(a, stamp);
    if (a[lo] !== stamp) {
      a.splice(lo, 0, stamp);
    }
    return this;
  }

  /** fuse's addVariable (see class comment). Returns this. */
  public addVariable(variable: Variable, options?: MergeOptions): this {
    this.#variables.add(variable, options);
    return this;
  }

  /** fuse's addConstraint (see class comment). Returns this. */
  public addConstraint(constraint: Constraint, options?: MergeOptions): this {
    this.#constraints.add(constraint, options);
    return this;
  }

  /** fuse's removeVariable (see class comment). Returns this. */
  public removeVariable(uuid: string): this {
    this.#variables.remove(uuid);
    return this;
  }

  /** fuse's removeConstraint (see class comment). Returns this. */
  public removeConstraint(uuid: string): this {
    this.#constraints.remove(uuid);
    return this;
  }

  /** fuse's merge (see class comment). Returns this. */
  public merge(other: Transaction, options?: MergeOptions): this {
    this.stamp = Math.max(this.stamp, other.stamp);
    for (const s of other.#involved) {
      this.addInvolvedStamp(s);
    }
    for (const c of other.#constraints.added.values()) {
      this.addConstraint(c, options);
    }
    for (const u of other.#constraints.removed) {
      this.removeConstraint(u);
    }
    for (const v of other.#variables.added.values()) {
      this.addVariable(v, options);
    }
    for (const u of other.#variables.removed) {
      this.removeVariable(u);
    }
    return this;
  }

  /** Min over `stamp` and the involved stamps. */
  public minStamp(): Stamp {
    return this.#involved.length === 0 ? this.stamp : Math.min(this.stamp, this.#involved[0]!);
  }

  /** Max over `stamp` and the involved stamps. */
  public maxStamp(): Stamp {
    const n = this.#involved.length;
    return n === 0 ? this.stamp : Math.max(this.stamp, this.#involved[n - 1]!);
  }

  /** True when nothing is added or removed and there are no involved stamps (stamp ignored). */
  public empty(): boolean {
    return this.#involved.length === 0 && this.#variables.empty && this.#constraints.empty;
  }

  /** A shallow copy (same variable/constraint objects, own lists). */
  public clone(): Transaction {
    const t = new Transaction(this.stamp);
    return t.merge(this, { overwrite: true });
  }

  /** The DESIGN §3.4 JSON form, stamps formatted with `base`, tagged with `source`. */
  public toJson(base: TimeBase, source: string): TransactionJson {
    return {
      stamp: base.format(this.stamp),
      source,
      involvedStamps: this.#involved.map((s) => base.format(s)),
      addedVariables: [...this.#variables.added.values()].map((v) => variableToJson(v, base)),
      addedConstraints: [...this.#constraints.added.values()].map(constraintToJson),
      removedVariables: [...this.#variables.removed],
      removedConstraints: [...this.#constraints.removed],
    };
  }
}

/** A variable in transaction JSON (DESIGN §3.4). */
export interface VariableJson {
  uuid: string;
  type: string;
  stamp?: string;
  deviceId?: string;
  data: number[];
  hold?: boolean;
}

/** A constraint in transaction JSON (DESIGN §3.4). */
export interface ConstraintJson {
  uuid: string;
  type: string;
  source: string;
  variables: string[];
  mean: number[];
  sqrtInformation: number[][];
  covariance: number[][];
  loss: { type: string; parameters: Record<string, number> } | null;
  [extra: string]: unknown;
}

/** A transaction as DESIGN §3.4 writes it. */
export interface TransactionJson {
  stamp: string;
  source: string;
  involvedStamps: string[];
  addedVariables: VariableJson[];
  addedConstraints: ConstraintJson[];
  removedVariables: string[];
  removedConstraints: string[];
}

/** JSON of one variable. */
export function variableToJson(v: Variable, base: TimeBase): VariableJson {
  const out: VariableJson = { uuid: v.uuid, type: v.type, data: Array.from(v.data) };
  if (v.stamp != undefined) {
    out.stamp = base.format(v.stamp);
    out.deviceId = v.deviceId;
  }
  if (v.hold) {
    out.hold = true;
  }
  return out;
}

/** JSON of one constraint (type-specific `extra` fields appended). */
export function constraintToJson(c: Constraint): ConstraintJson {
  return {
    uuid: c.uuid,
    type: c.type,
    source: c.source,
    variables: [...c.variables],
    mean: Array.from(c.mean),
    sqrtInformation: toRows(c.sqrtInformation),
    covariance: toRows(c.covariance),
    loss: c.loss ? { type: c.loss.type, parameters: { ...c.loss.parameters } } : null,
    ...c.extra,
  };
}
