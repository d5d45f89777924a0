import { clockSettings, Optimizer, type AcceptedTransaction, type ClockedOptimizerOptions } from "./Optimizer";
import { marginalizeVariables } from "./marginalizeVariables";
import type { Duration, Stamp } from "../../time";
import { Transaction, type ReadonlyGraph } from "../core";

/** FixedLagSmoother parameters (fuse_optimizers fixed_lag_smoother params, reference/fuse.md §1.6). */
export interface FixedLagSmootherOptions extends ClockedOptimizerOptions {
  /** `lag_duration` in ns: variables older than newest − lag are marginalized. Default 5 s. */
  readonly lagDuration?: Duration;
}

/** A queued sensor transaction. */
type Pending = AcceptedTransaction;

const NS_PER_SEC = 1e9;

/**
 * fuse_optimizers::FixedLagSmoother (reference/fuse.md §1.6, §6.4), driven by a clock instead of
 * a timer thread.
 *
 * - `transactionCallback(sensor, tx)` queues sensor transactions (sorted by stamp). Before the
 *   start, an ignition sensor's transaction starts the smoother (start time = its minStamp) and
 *   purges other sensors' transactions that are older or overlap it; without one, transactions
 *   older than `newest − transactionTimeout` are purged; with no ignition sensor at all it starts
 *   at once. After the start, transactions entirely before the start time are ignored.
 * - `spinUntil(now)` runs the optimization cycles whose timer ticks (multiples of
 *   `optimizationPeriod` on the relative time axis) are ≤ now; a tick with an empty queue does
 *   nothing. The runner calls it with each message's receive time before delivering the message,
 *   and `flush()` at the end.
 * - One cycle: process the queue (right after ignition, the ignition transaction alone; otherwise
 *   oldest first: drop those older than the lag expiration, apply the motion models, merge the
 *   successes; a failure is retried next cycle unless `maxStamp + transactionTimeout` < the
 *   newest pending stamp, then dropped), merge in the previous marginal transaction, update the
 *   graph, optimize, notify, then set the lag expiration to `newest variable stamp − lag` (never
 *   before the start) and marginalize every variable older than it (applied next cycle).
 *
 * Drops (each reported once through `onDrop`): "too-late" (before the start time or the lag
 * expiration), "max-age" (timed out while waiting for ignition or for its motion models),
 * "reset" (queued when the ignition purged it or `reset()` ran), "invalid-covariance" (its
 * constraint's cost is not finite, so the solve failed: left out and the cycle solved again, see
 * `Optimizer.updateOptimizeNotify`).
 *
 * Throws OptimizerError when the graph rejects a transaction or the solution is unusable for any
 * other reason (where fuse shuts the node down); the smoother then refuses further cycles.
 *
 * ```ts
 * const smoother = new FixedLagSmoother({ lagDuration: 500e6, optimizationPeriod: 50e6 })
 *   .addMotionModel("unicycle", unicycle)
 *   .addSensor("odom", { motionModels: ["unicycle"] })
 *   .addSensor("ignition", { motionModels: ["unicycle"], ignition: true })
 *   .onEstimate((e) => console.log(e.x, e.y, e.yaw));
 * // for each message: smoother.spinUntil(receiveTime); sensor.handleMessage(...)
 * smoother.flush();
 * ```
 */
export class FixedLagSmoother extends Optimizer {
  readonly #lag: number = 0;
  readonly #period: number = 0;
  readonly #timeout: number = 0;
  /** Pending transactions, ascending by stamp (equal stamps in arrival order). */
  #pending: Pending[] = [];
  #started = false;
  #ignited = false;
  #startTime: Stamp = -Infinity;
  #lagExpiration: Stamp = -Infinity;
  #marginal = new Transaction(-Infinity);
  #nextTick: number | undefined;
  #failed: string | undefined;

  /** Throws RangeError when a duration is not positive (lag ≥ 0). */
  public constructor(options?: FixedLagSmootherOptions) {
    super(options, "fixed_lag_smoother");
    this.#lag = options?.lagDuration ?? 5 * NS_PER_SEC;
    if (!(this.#lag >= 0) || !Number.isFinite(this.#lag)) {
      throw new RangeError(`FixedLagSmoother lagDuration must be ≥ 0 ns, got ${this.#lag}`);
    }
    ({ period: this.#period, timeout: this.#timeout } = clockSettings(options, "FixedLagSmoother"));
    this.#autostart();
  }

  /** True once an ignition transaction arrived (or no sensor is an ignition sensor). */
  public get started(): boolean {
    return this.#started;
  }

  /** The start time (−Infinity before ignition / for auto-start). */
  public get startTime(): Stamp {
    return this.#startTime;
  }

  /** The current lag expiration: older variables have been (or are about to be) marginalized. */
  public get lagExpiration(): Stamp {
    return this.#lagExpiration;
  }

  /** Number of queued transactions. */
  public get pendingCount(): number {
    return this.#pending.length;
  }

  public transactionCallback(sensorName: string, transaction: Transaction): void {
    const registration = this.sensor(sensorName);
    const maxTime = transaction.maxStamp();
    if (this.#started && maxTime < this.#startTime) {
      this.reportDrop({
        sensor: sensorName,
        stamp: transaction.stamp,
        reason: "too-late",
        detail: `received before the start time (${(this.#startTime - maxTime) / NS_PER_SEC} s earlier)`,
      });
      return;
    }
    const pending = this.#pending;
    let i = pending.length;
    while (i > 0 && pending[i - 1]!.tx.stamp > transaction.stamp) {
      i--;
    }
    const element = { sensor: sensorName, tx: transaction };
    pending.splice(i, 0, element);
    if (this.#started) {
      return;
    }
    if (registration.ignition) {
      this.#started = true;
      this.#ignited = true;
      this.#startTime = transaction.minStamp();
      const start = this.#startTime;
      this.#pending = pending.filter((p) => {
        const purge =
          p.sensor !== sensorName && (p.tx.minStamp() < start || p.tx.maxStamp() <= maxTime);
        if (purge) {
          this.reportDrop({
            sensor: p.sensor,
            stamp: p.tx.stamp,
            reason: "reset",
            detail: `purged by the ignition transaction from "${sensorName}"`,
          });
        }
        return !purge;
      });
    } else {
      const purgeTime = pending[pending.length - 1]!.tx.stamp - this.#timeout;
      while (pending.length > 0 && pending[0]!.tx.maxStamp() < purgeTime) {
        const p = pending.shift()!;
        this.reportDrop({
          sensor: p.sensor,
          stamp: p.tx.stamp,
          reason: "max-age",
          detail: "older than the transaction timeout while waiting for an ignition transaction",
        });
      }
    }
  }

  /**
   * Runs every optimization cycle whose tick is at or before `now` (relative ns). Ticks lie on
   * multiples of the optimization period. Throws OptimizerError (see the class comment).
   */
  public spinUntil(now: Stamp): void {
    this.#nextTick ??= Math.ceil(now / this.#period) * this.#period;
    while (this.#nextTick <= now) {
      if (this.#started && this.#pending.length > 0) {
        this.optimizeNow();
        this.#nextTick += this.#period;
      } else {
        // Nothing can change before the next transaction arrives: jump past `now`.
        this.#nextTick += (Math.floor((now - this.#nextTick) / this.#period) + 1) * this.#period;
      }
    }
  }

  /** Runs cycles while they make progress on the queue (at the end of a recording). */
  public flush(): void {
    for (let guard = 0; guard < 1000 && this.#started && this.#pending.length > 0; guard++) {
      const before = this.#pending.length;
      this.optimizeNow();
      if (this.#pending.length >= before) {
        break;
      }
    }
  }

  /** Runs one optimization cycle now (what a timer tick with pending work triggers). */
  public optimizeNow(): void {
    if (this.#failed != undefined) {
      throw new Error(`${this.name} stopped after a fatal error: ${this.#failed}`);
    }
    if (!this.#started) {
      return;
    }
    const tx = new Transaction(-Infinity);
    const accepted: AcceptedTransaction[] = [];
    this.#processQueue(tx, accepted);
    if (tx.empty()) {
      return;
    }
    tx.merge(this.#marginal);
    try {
      this.updateOptimizeNotify(tx, accepted);
    } catch (error) {
      this.#failed = error instanceof Error ? error.message : String(error);
      throw error;
    }
    this.#lagExpiration = this.#computeLagExpiration();
    this.#marginal = marginalizeVariables(
      this.name,
      this.#variablesToMarginalize(this.#lagExpiration),
      this.graph,
      this.#lagExpiration,
      (c) => this.constraintCost(c),
    );
  }

  /**
   * fuse's reset service: stops and restarts the motion models, clears the queue, graph, marginal
   * and start time (queued transactions are reported as "reset"), then auto-starts if no sensor
   * is an ignition sensor.
   */
  public reset(): void {
    this.restart(this.#pending, () => {
      this.#pending = [];
      this.#started = false;
      this.#ignited = false;
      this.#startTime = -Infinity;
      this.#marginal = new Transaction(-Infinity);
      this.#lagExpiration = -Infinity;
      this.#failed = undefined;
    });
    this.#autostart();
  }

  protected override onSensorsChanged(): void {
    this.#autostart();
  }

  #autostart(): void {
    if (this.#started) {
      // A newly registered ignition sensor cannot un-start an auto-started smoother (as in fuse,
      // plugins are all loaded before autostart runs); only undo a premature auto-start.
      if (this.#startTime === -Infinity && this.#pending.length === 0 && this.graph.variableCount === 0) {
        this.#started = [...this.sensors.values()].every((s) => !s.ignition);
      }
      return;
    }
    if ([...this.sensors.values()].every((s) => !s.ignition)) {
      this.#started = true;
      this.#startTime = -Infinity;
    }
  }

  /** Merges the transactions ready for this cycle into `tx` (each also pushed to `accepted`). */
  #processQueue(tx: Transaction, accepted: AcceptedTransaction[]): void {
    const pending = this.#pending;
    if (pending.length === 0) {
      return;
    }
    if (this.#ignited) {
      this.#ignited = false;
      const element = pending[0]!;
      if (this.sensor(element.sensor).ignition) {
        pending.shift();
        if (this.applyMotionModels(element.sensor, element.tx)) {
          accepted.push(element);
          tx.merge(element.tx, { overwrite: true });
        } else {
          this.reportDrop({
            sensor: element.sensor,
            stamp: element.tx.stamp,
            reason: "max-age",
            detail: "the ignition transaction could not be processed by the motion models",
          });
          const next = pending.findIndex((p) => this.sensor(p.sensor).ignition);
          if (next < 0) {
            this.#started = false;
          } else {
            for (const p of pending.splice(0, next)) {
              this.reportDrop({ sensor: p.sensor, stamp: p.tx.stamp, reason: "reset", detail: "purged by a later ignition transaction" });
            }
            this.#ignited = true;
          }
        }
        return;
      }
      // Not an ignition transaction first: processed normally (fuse logs an error).
    }
    const currentTime = pending[pending.length - 1]!.tx.stamp;
    const blocked = new Set<string>();
    const keep: Pending[] = [];
    for (const element of pending) {
      const minStamp = element.tx.minStamp();
      if (minStamp < this.#lagExpiration) {
        this.reportDrop({
          sensor: element.sensor,
          stamp: element.tx.stamp,
          reason: "too-late",
          detail: `its oldest involved stamp is ${(this.#lagExpiration - minStamp) / NS_PER_SEC} s older than the lag expiration`,
        });
      } else if (blocked.has(element.sensor)) {
        keep.push(element);
      } else if (this.applyMotionModels(element.sensor, element.tx)) {
        accepted.push(element);
        tx.merge(element.tx, { overwrite: true });
      } else if (element.tx.maxStamp() + this.#timeout < currentTime) {
        this.reportDrop({
          sensor: element.sensor,
          stamp: element.tx.stamp,
          reason: "max-age",
          detail: `the motion models could not process it within the transaction timeout (${(currentTime - element.tx.maxStamp()) / NS_PER_SEC} s)`,
        });
      } else {
        blocked.add(element.sensor);
        keep.push(element);
      }
    }
    this.#pending = keep;
  }

  /** newest variable stamp − lag, never before the start time (fuse's computeLagExpirationTime). */
  #computeLagExpiration(): Stamp {
    let now = -Infinity;
    for (const v of this.graph.getVariables()) {
      if (v.stamp != undefined && v.stamp > now) {
        now = v.stamp;
      }
    }
    return this.#startTime + this.#lag < now ? now - this.#lag : this.#startTime;
  }

  /**
   * Variables whose tracked stamp is older than the expiration (fuse's VariableStampIndex):
   * stamped variables by their stamp, unstamped ones by the newest stamped variable they share a
   * constraint with (the beginning of time when there is none, as fuse's zero stamp).
   */
  #variablesToMarginalize(expiration: Stamp): string[] {
    const out: string[] = [];
    for (const v of this.graph.getVariables()) {
      const stamp = v.stamp ?? unstampedStamp(this.graph, v.uuid);
      if (stamp < expiration) {
        out.push(v.uuid);
      }
    }
    return out;
  }
}

/** The newest stamp among stamped neighbours, or −Infinity (fuse's zero stamp) when none. */
function unstampedStamp(graph: ReadonlyGraph, uuid: string): Stamp {
  let newest = -Infinity;
  for (const c of graph.getConnectedConstraints(uuid)) {
    for (const u of c.variables) {
      const s = graph.findVariable(u)?.stamp;
      if (s != undefined && s > newest) {
        newest = s;
      }
    }
  }
  return newest;
}
