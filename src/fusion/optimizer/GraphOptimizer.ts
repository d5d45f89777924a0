import { GraphProblem } from "./GraphProblem";
import { LevenbergMarquardt, type SolverOptions, type SolverSummary } from "./LevenbergMarquardt";
import { OptimizerError } from "./Optimizer";
import { marginalizeVariables } from "./marginalizeVariables";
import { odometry2DEstimate, type Odometry2DEstimate } from "./odometry2DEstimate";
import type { Duration, Stamp } from "../../time";
import { Graph, Transaction } from "../core";

/** Options of GraphOptimizer. */
export interface GraphOptimizerOptions {
  /**
   * `lag_duration` in ns: after each optimization, variables older than `newest − lag` (never
   * before the first update's oldest stamp) are marginalized with the next update. Default
   * Infinity: keep everything (fuse's BatchOptimizer graph).
   */
  readonly lag?: Duration;
  /** Source of the marginal constraints. Default "fixed_lag_smoother". */
  readonly name?: string;
  /** Levenberg–Marquardt options (Ceres' names and defaults). */
  readonly solver?: SolverOptions;
  /** Compute the Odometry2D estimate (with covariances) after each optimization. Default true. */
  readonly estimates?: boolean;
}

/**
 * The graph-and-solver half of fuse's optimizers, for a runner that does its own queueing (the
 * fusion runner's `FusionOptimizer` shape: `update(tx)`, `optimize()`, `graph`).
 *
 * `update(tx)` merges the marginal transaction computed by the previous `optimize()` into `tx`
 * (as FixedLagSmoother does) and applies it to the graph; `optimize()` solves with
 * Levenberg–Marquardt, records the summary and the Odometry2D estimate, then (with a finite
 * `lag`) sets the lag expiration and prepares the marginalization of older variables.
 *
 * Throws OptimizerError when the graph rejects a transaction (unknown variable, removing a used
 * variable) or the solution is unusable — where fuse shuts the node down.
 *
 * ```ts
 * const optimizer = new GraphOptimizer({ lag: 500e6 });
 * optimizer.update(cycleTransaction);
 * optimizer.optimize();
 * optimizer.lastEstimate; // pose, twist and covariances at the newest complete state
 * ```
 */
export class GraphOptimizer {
  /** The optimized graph (values updated in place). */
  public readonly graph = new Graph();
  readonly #lag: number;
  readonly #name: string;
  readonly #solver: LevenbergMarquardt;
  readonly #estimates: boolean;
  #marginal = new Transaction(-Infinity);
  #startTime: Stamp | undefined;
  #lagExpiration: Stamp = -Infinity;
  #lastInvolved: readonly Stamp[] = [];
  #lastSummary: SolverSummary | undefined;
  #lastEstimate: Odometry2DEstimate | undefined;

  /** Throws RangeError for a negative or NaN lag. */
  public constructor(options?: GraphOptimizerOptions) {
    this.#lag = options?.lag ?? Infinity;
    if (!(this.#lag >= 0)) {
      throw new RangeError(`GraphOptimizer lag must be ≥ 0 ns (Infinity = keep everything), got ${this.#lag}`);
    }
    this.#name = options?.name ?? "fixed_lag_smoother";
    this.#solver = new LevenbergMarquardt(options?.solver);
    this.#estimates = options?.estimates ?? true;
  }

  /** The latest solver summary. */
  public get lastSummary(): SolverSummary | undefined {
    return this.#lastSummary;
  }

  /** The Odometry2D estimate of the latest optimization. */
  public get lastEstimate(): Odometry2DEstimate | undefined {
    return this.#lastEstimate;
  }

  /** Variables older than this were (or will with the next update be) marginalized. */
  public get lagExpiration(): Stamp {
    return this.#lagExpiration;
  }

  /** Applies one cycle's transaction (plus the pending marginalization). Throws OptimizerError. */
  public update(transaction: Transaction): void {
    this.#startTime ??= transaction.minStamp();
    transaction.merge(this.#marginal);
    this.#marginal = new Transaction(-Infinity);
    this.#lastInvolved = transaction.involvedStamps;
    try {
      this.graph.update(transaction);
    } catch (error) {
      throw new OptimizerError(
        `${this.#name}: failed to update the graph: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** Solves the graph, records the estimate, prepares the marginalization. Throws OptimizerError. */
  public optimize(): void {
    const built = new GraphProblem(this.graph);
    const summary = this.#solver.solve(built.problem);
    this.#lastSummary = summary;
    if (!summary.usable) {
      throw new OptimizerError(`${this.#name}: optimization failed (${summary.message})`);
    }
    if (this.#estimates) {
      this.#lastEstimate =
        odometry2DEstimate(this.graph, this.#lastInvolved, built, this.#solver) ?? this.#lastEstimate;
    }
    if (this.#lag === Infinity) {
      return;
    }
    let newest = -Infinity;
    for (const v of this.graph.getVariables()) {
      if (v.stamp != undefined && v.stamp > newest) {
        newest = v.stamp;
      }
    }
    const start = this.#startTime ?? -Infinity;
    this.#lagExpiration = start + this.#lag < newest ? newest - this.#lag : start;
    const old: string[] = [];
    for (const v of this.graph.getVariables()) {
      if (v.stamp != undefined && v.stamp < this.#lagExpiration) {
        old.push(v.uuid);
      }
    }
    this.#marginal = marginalizeVariables(this.#name, old, this.graph, this.#lagExpiration);
  }
}
