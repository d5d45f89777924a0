import { GraphProblem } from "./GraphProblem";
import { LevenbergMarquardt, type SolverOptions, type SolverSummary } from "./LevenbergMarquardt";
import { costFunctionFor, type ConstraintCost } from "./costFunctionFor";
import { odometry2DEstimate, type Odometry2DEstimate } from "./odometry2DEstimate";
import type { Duration, Stamp } from "../../time";
import type { DropReason } from "../../time/DropReason";
import { Graph, type Constraint, type MotionModel, type ReadonlyGraph, type Transaction } from "../core";

/** How a sensor's transactions are handled (fuse's per-sensor optimizer parameters, §1.1). */
export interface SensorRegistration {
  /** Names of the motion models applied to this sensor's transactions, in order. Default none. */
  readonly motionModels?: readonly string[];
  /** Whether a transaction from this sensor may start the optimizer. Default false. */
  readonly ignition?: boolean;
}

/** A transaction the optimizer dropped (reported once, with a reason from the shared vocabulary). */
export interface TransactionDrop {
  /** The sensor that sent it. */
  readonly sensor: string;
  /** The transaction stamp. */
  readonly stamp: Stamp;
  readonly reason: DropReason;
  /** What happened, e.g. "older than the lag expiration by 0.12 s". */
  readonly detail: string;
}

/** A sensor transaction accepted into an optimization cycle, after its motion models augmented it. */
export interface AcceptedTransaction {
  readonly sensor: string;
  readonly tx: Transaction;
}

/** Options shared by the optimizers. */
export interface OptimizerOptions {
  /** The optimizer's name: the `source` of the marginal constraints it creates. Default "fixed_lag_smoother" / "batch_optimizer". */
  readonly name?: string;
  /** Levenberg–Marquardt options (Ceres' names and defaults). */
  readonly solver?: SolverOptions;
  /**
   * Compute Odometry2DPublisher-style estimates (pose, twist and their covariances at the newest
   * complete state) after each optimization. Default true.
   */
  readonly estimates?: boolean;
  /** Device UUID of the states the estimates read. Default NIL. */
  readonly estimateDeviceId?: string;
  /**
   * Compute the estimates' pose and twist covariances (a factorization of the information
   * matrix per cycle). False: the estimates carry NaN covariances (for callers that only read
   * the state). Default true.
   */
  readonly estimateCovariance?: boolean;
  /**
   * Hand `onNotify` listeners and motion models a deep copy of the graph (as fuse does). False:
   * they get the live graph, valid only during the call (for listeners that copy what they need
   * synchronously, like the fuse_models sensors and Unicycle2D); saves a copy per cycle. Default true.
   */
  readonly snapshotGraph?: boolean;
}

/** Options of the clock-driven optimizers (fuse's optimizer timer and transaction queue). */
export interface ClockedOptimizerOptions extends OptimizerOptions {
  /** `optimization_period` in ns (1 / `optimization_frequency`). Default 0.1 s (10 Hz). */
  readonly optimizationPeriod?: Duration;
  /** `transaction_timeout` in ns. Default 0.1 s. */
  readonly transactionTimeout?: Duration;
}

/**
 * The optimization period and transaction timeout in ns, defaults filled in. Throws RangeError
 * naming `label` when the period is not a finite number > 0 or the timeout is not ≥ 0.
 */
export function clockSettings(options: ClockedOptimizerOptions | undefined, label: string): { period: number; timeout: number } {
  const period = options?.optimizationPeriod ?? 0.1 * NS_PER_SEC;
  const timeout = options?.transactionTimeout ?? 0.1 * NS_PER_SEC;
  if (!(period > 0) || !Number.isFinite(period)) {
    throw new RangeError(`${label} optimizationPeriod must be > 0 ns, got ${period}`);
  }
  if (!(timeout >= 0)) {
    throw new RangeError(`${label} transactionTimeout must be ≥ 0 ns, got ${timeout}`);
  }
  return { period, timeout };
}

const NS_PER_SEC = 1e9;

/** Thrown when the graph cannot be updated or the solution is unusable (fuse shuts down there). */
export class OptimizerError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = "OptimizerError";
  }
}

/**
 * The part of fuse_optimizers::Optimizer both optimizers share (reference/fuse.md §1.6): the
 * registry of sensors and motion models, `applyMotionModels`, the graph, the solver, and
 * `notify` (motion models' and listeners' graph callbacks, then the estimate listeners).
 */
export abstract class Optimizer {
  /** The graph being optimized (live; listeners get a clone). */
  public readonly graph = new Graph();
  protected readonly name: string;
  protected readonly solver: LevenbergMarquardt;
  protected readonly sensors = new Map<string, Required<SensorRegistration>>();
  protected readonly motionModels = new Map<string, MotionModel>();
  readonly #estimates: boolean;
  readonly #deviceId: string | undefined;
  readonly #covariance: boolean;
  readonly #snapshot: boolean;
  readonly #notifyListeners: ((tx: Transaction, graph: ReadonlyGraph) => void)[] = [];
  readonly #estimateListeners: ((estimate: Odometry2DEstimate) => void)[] = [];
  readonly #dropListeners: ((drop: TransactionDrop) => void)[] = [];
  readonly #processedListeners: ((sensor: string, tx: Transaction) => void)[] = [];
  /** The solver's problem, rebuilt from the graph every cycle. */
  readonly #built = new GraphProblem();
  #lastSummary: SolverSummary | undefined;
  #cycles = 0;

  protected constructor(options: OptimizerOptions | undefined, defaultName: string) {
    this.name = options?.name ?? defaultName;
    this.solver = new LevenbergMarquardt(options?.solver);
    this.#estimates = options?.estimates ?? true;
    this.#deviceId = options?.estimateDeviceId;
    this.#covariance = options?.estimateCovariance ?? true;
    this.#snapshot = options?.snapshotGraph ?? true;
  }

  /** Registers a motion model under its name (it must already be initialized). Returns this. */
  public addMotionModel(name: string, model: MotionModel): this {
    this.motionModels.set(name, model);
    return this;
  }

  /**
   * Registers a sensor by name. Throws RangeError when it names a motion model that was not
   * added. Returns this.
   */
  public addSensor(name: string, registration: SensorRegistration = {}): this {
    const models = registration.motionModels ?? [];
    for (const m of models) {
      if (!this.motionModels.has(m)) {
        throw new RangeError(
          `sensor "${name}" uses motion model "${m}", which is not configured (known: ${[...this.motionModels.keys()].join(", ") || "none"})`,
        );
      }
    }
    this.sensors.set(name, { motionModels: models, ignition: registration.ignition ?? false });
    this.onSensorsChanged();
    return this;
  }

  /** Called after each optimization with the merged transaction and a graph snapshot. Returns this. */
  public onNotify(listener: (tx: Transaction, graph: ReadonlyGraph) => void): this {
    this.#notifyListeners.push(listener);
    return this;
  }

  /** Receives the Odometry2D estimate after each optimization (when enabled). Returns this. */
  public onEstimate(listener: (estimate: Odometry2DEstimate) => void): this {
    this.#estimateListeners.push(listener);
    return this;
  }

  /** Receives every transaction the optimizer drops, once. Returns this. */
  public onDrop(listener: (drop: TransactionDrop) => void): this {
    this.#dropListeners.push(listener);
    return this;
  }

  /**
   * Called once for every sensor transaction the optimizer accepts, right after its motion models
   * augmented it and before it is merged into the cycle's transaction (what fuse's
   * SerializedPublisher would show per sensor). The listener must not change the transaction.
   * Returns this.
   */
  public onTransactionProcessed(listener: (sensor: string, tx: Transaction) => void): this {
    this.#processedListeners.push(listener);
    return this;
  }

  /** The summary of the latest solve. */
  public get lastSummary(): SolverSummary | undefined {
    return this.#lastSummary;
  }

  /** Number of optimization cycles run. */
  public get cycles(): number {
    return this.#cycles;
  }

  /** The transaction-callback of fuse: queue a sensor transaction. */
  public abstract transactionCallback(sensorName: string, transaction: Transaction): void;

  /** Hook for subclasses (autostart checks). */
  protected onSensorsChanged(): void {
    // Default: nothing.
  }

  /**
   * A graph constraint's cost function and loss: the solver's own from the latest build when it
   * has the constraint, else `costFunctionFor`'s (the same numbers either way).
   */
  protected constraintCost(constraint: Constraint): ConstraintCost {
    return this.#built.costOf(constraint) ?? costFunctionFor(constraint);
  }

  /** The registration of a sensor; throws RangeError for an unknown one. */
  protected sensor(name: string): Required<SensorRegistration> {
    const s = this.sensors.get(name);
    if (s == undefined) {
      throw new RangeError(
        `transaction from unknown sensor "${name}" (registered: ${[...this.sensors.keys()].join(", ") || "none"})`,
      );
    }
    return s;
  }

  /** fuse's applyMotionModels: every motion model of the sensor, in order; false on the first failure. */
  protected applyMotionModels(sensorName: string, tx: Transaction): boolean {
    for (const m of this.sensor(sensorName).motionModels) {
      if (!this.motionModels.get(m)!.apply(tx)) {
        return false;
      }
    }
    return true;
  }

  /** Announces an accepted sensor transaction (see onTransactionProcessed). */
  protected transactionProcessed(sensor: string, tx: Transaction): void {
    for (const l of this.#processedListeners) {
      l(sensor, tx);
    }
  }

  /**
   * fuse's reset: stops the motion models, reports every queued transaction as a "reset" drop,
   * lets the optimizer clear its own state (`clearState`), clears the graph and starts the motion
   * models again.
   */
  protected restart(pending: readonly AcceptedTransaction[], clearState: () => void): void {
    for (const m of this.motionModels.values()) {
      m.stop();
    }
    for (const p of pending) {
      this.reportDrop({ sensor: p.sensor, stamp: p.tx.stamp, reason: "reset", detail: "optimizer reset" });
    }
    clearState();
    this.graph.clear();
    for (const m of this.motionModels.values()) {
      m.start();
    }
  }

  protected reportDrop(drop: TransactionDrop): void {
    for (const l of this.#dropListeners) {
      l(drop);
    }
  }

  /**
   * Applies the cycle's transaction `tx` (the merge of `accepted`, plus the marginals), optimizes
   * and notifies, then announces each accepted transaction (onTransactionProcessed).
   *
   * A solve that fails because a sensor's constraint has a non-finite cost (a measurement so large
   * that its squared residual overflows, e.g. an odometry twist of 1e300) does not end the run:
   * the constraints of every sensor transaction holding such a constraint are removed from the
   * graph, the transaction is reported through `onDrop` ("invalid-covariance", naming the
   * constraint and the solver's message) and is not announced, and the cycle solves again. The
   * motion-model segments those transactions brought stay, so the chain stays connected through
   * their stamps (on the model's prediction). Throws OptimizerError like fuse's fatal paths when
   * the graph rejects the transaction, or when the solve fails with no such sensor constraint.
   */
  protected updateOptimizeNotify(tx: Transaction, accepted: readonly AcceptedTransaction[]): void {
    try {
      this.graph.update(tx);
    } catch (error) {
      throw new OptimizerError(
        `${this.name}: failed to update the graph with the transaction at ${tx.stamp}: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
    const built = this.#built.rebuild(this.graph);
    let summary = this.solver.solve(built.problem);
    let announced = accepted;
    if (!summary.usable) {
      const dropped = this.#dropNonFinite(accepted, summary.message);
      if (dropped.size > 0) {
        announced = accepted.filter((a) => !dropped.has(a));
        summary = this.solver.solve(built.rebuild(this.graph).problem);
      }
    }
    for (const a of announced) {
      this.transactionProcessed(a.sensor, a.tx);
    }
    this.#lastSummary = summary;
    this.#cycles++;
    this.#notify(tx, built);
    if (!summary.usable) {
      throw new OptimizerError(
        `${this.name}: optimization failed after updating the graph with the transaction at ${tx.stamp} (${summary.message})`,
      );
    }
  }

  /**
   * Removes from the graph the sensor constraints of every accepted transaction that holds one
   * whose cost is not finite at the current values (and any variable left without a
   * constraint), reporting each such transaction once. Returns those transactions.
   */
  #dropNonFinite(accepted: readonly AcceptedTransaction[], solverMessage: string): Set<AcceptedTransaction> {
    const dropped = new Set<AcceptedTransaction>();
    for (const a of accepted) {
      const own = a.tx.addedConstraints.filter((c) => !this.motionModels.has(c.source) && this.graph.constraintExists(c.uuid));
      const bad = own.find((c) => !finiteCost(this.graph, c));
      if (bad == undefined) {
        continue;
      }
      dropped.add(a);
      const orphans = new Set<string>();
      for (const c of own) {
        this.graph.removeConstraint(c.uuid);
        for (const v of c.variables) {
          orphans.add(v);
        }
      }
      for (const v of orphans) {
        if (this.graph.variableExists(v) && this.graph.getConnectedConstraints(v).length === 0) {
          this.graph.removeVariable(v);
        }
      }
      this.reportDrop({
        sensor: a.sensor,
        stamp: a.tx.stamp,
        reason: "invalid-covariance",
        detail:
          `the optimization failed (${solverMessage}): the cost of its ${bad.type} is not finite ` +
          `(a measurement too large for a least-squares cost); its measurements were left out`,
      });
    }
    return dropped;
  }

  #notify(tx: Transaction, built: GraphProblem): void {
    const snapshot = this.#snapshot ? this.graph.clone() : this.graph;
    for (const m of this.motionModels.values()) {
      m.graphCallback(snapshot);
    }
    for (const l of this.#notifyListeners) {
      l(tx, snapshot);
    }
    if (this.#estimates && this.#estimateListeners.length > 0) {
      const estimate = odometry2DEstimate(
        this.graph,
        tx.involvedStamps,
        built,
        this.solver,
        this.#deviceId,
        { covariance: this.#covariance },
      );
      if (estimate) {
        for (const l of this.#estimateListeners) {
          l(estimate);
        }
      }
    }
  }
}

/** Whether a constraint's squared residual is finite at the graph's current values. */
function finiteCost(graph: ReadonlyGraph, constraint: Constraint): boolean {
  const { cost } = costFunctionFor(constraint);
  const residuals = new Float64Array(cost.numResiduals);
  const parameters = constraint.variables.map((u) => graph.getVariable(u).data);
  if (!cost.evaluate(parameters, residuals, null)) {
    return false;
  }
  let sum = 0;
  for (const r of residuals) {
    sum += r * r;
  }
  return Number.isFinite(sum);
}
