import { clockSettings, Optimizer, type AcceptedTransaction, type ClockedOptimizerOptions } from "./Optimizer";
import type { Stamp } from "../../time";
import { Transaction } from "../core";

/** BatchOptimizer parameters (fuse_optimizers batch_optimizer params, reference/fuse.md §1.6). */
export type BatchOptimizerOptions = ClockedOptimizerOptions;

/** A queued sensor transaction. */
type Pending = AcceptedTransaction;

/**
 * fuse_optimizers::BatchOptimizer (reference/fuse.md §1.6), clock-driven like FixedLagSmoother:
 * keeps every variable forever.
 *
 * - `transactionCallback`: before the start, transactions are kept only for `transactionTimeout`
 *   ("max-age" drops); an ignition sensor's transaction starts the optimizer at its stamp and
 *   purges everything queued before it ("reset"). After the start, transactions stamped before
 *   the start time are dropped ("too-late"), the others queued, and the motion models are applied
 *   to the queue oldest first, merging successes into the combined transaction; a failure stops
 *   the pass and is retried later unless `stamp + transactionTimeout` < the newest queued stamp
 *   ("max-age" drop).
 * - Each timer tick (`spinUntil`, multiples of `optimizationPeriod`): apply the motion models to
 *   the queue, and when the combined transaction is not empty update the graph, optimize and
 *   notify.
 *
 * Quirk kept from fuse (ROS 1 `devel`): the batch optimizer never auto-starts; with no ignition
 * sensor it never optimizes.
 */
export class BatchOptimizer extends Optimizer {
  readonly #period: number = 0;
  readonly #timeout: number = 0;
  #pending: Pending[] = [];
  #combined = new Transaction(-Infinity);
  /** The sensor transactions merged into #combined, announced after the cycle's solve. */
  #accepted: AcceptedTransaction[] = [];
  #started = false;
  #startTime: Stamp = Infinity;
  #nextTick: number | undefined;

  /** Throws RangeError when the period is not > 0 or the timeout is negative. */
  public constructor(options?: BatchOptimizerOptions) {
    super(options, "batch_optimizer");
    ({ period: this.#period, timeout: this.#timeout } = clockSettings(options, "BatchOptimizer"));
  }

  /** True once an ignition transaction arrived. */
  public get started(): boolean {
    return this.#started;
  }

  public transactionCallback(sensorName: string, transaction: Transaction): void {
    const registration = this.sensor(sensorName);
    const t = transaction.stamp;
    if (!this.#started || t >= this.#startTime) {
      let i = this.#pending.length;
      while (i > 0 && this.#pending[i - 1]!.tx.stamp > t) {
        i--;
      }
      this.#pending.splice(i, 0, { sensor: sensorName, tx: transaction });
    } else {
      this.reportDrop({ sensor: sensorName, stamp: t, reason: "too-late", detail: "stamped before the start time" });
    }
    if (!this.#started) {
      if (registration.ignition) {
        this.#started = true;
        this.#startTime = t;
      }
      const last = this.#pending[this.#pending.length - 1]!.tx.stamp;
      const purgeTime = this.#started ? this.#startTime : last - this.#timeout;
      while (this.#pending.length > 0 && this.#pending[0]!.tx.stamp < purgeTime) {
        const p = this.#pending.shift()!;
        this.reportDrop({
          sensor: p.sensor,
          stamp: p.tx.stamp,
          reason: this.#started ? "reset" : "max-age",
          detail: this.#started
            ? `purged by the ignition transaction from "${sensorName}"`
            : "older than the transaction timeout while waiting for an ignition transaction",
        });
      }
    }
    if (this.#started) {
      this.#applyMotionModelsToQueue();
    }
  }

  /** Runs every timer tick at or before `now` (relative ns). Throws OptimizerError like fuse's fatal paths. */
  public spinUntil(now: Stamp): void {
    this.#nextTick ??= Math.ceil(now / this.#period) * this.#period;
    while (this.#nextTick <= now) {
      this.optimizeNow();
      if (this.#pending.length === 0) {
        this.#nextTick += (Math.floor((now - this.#nextTick) / this.#period) + 1) * this.#period;
      } else {
        this.#nextTick += this.#period;
      }
    }
  }

  /** One timer tick now. */
  public optimizeNow(): void {
    if (!this.#started) {
      return;
    }
    this.#applyMotionModelsToQueue();
    if (this.#combined.empty()) {
      return;
    }
    const tx = this.#combined;
    const accepted = this.#accepted;
    this.#combined = new Transaction(-Infinity);
    this.#accepted = [];
    this.updateOptimizeNotify(tx, accepted);
  }

  /** Clears queue, graph and start (queued transactions reported as "reset"); restarts the motion models. */
  public reset(): void {
    this.restart(this.#pending, () => {
      this.#pending = [];
      this.#combined = new Transaction(-Infinity);
      this.#accepted = [];
      this.#started = false;
      this.#startTime = Infinity;
    });
  }

  #applyMotionModelsToQueue(): void {
    const pending = this.#pending;
    if (pending.length === 0) {
      return;
    }
    const currentTime = pending[pending.length - 1]!.tx.stamp;
    while (pending.length > 0) {
      const element = pending[0]!;
      if (!this.applyMotionModels(element.sensor, element.tx)) {
        if (element.tx.stamp + this.#timeout < currentTime) {
          pending.shift();
          this.reportDrop({
            sensor: element.sensor,
            stamp: element.tx.stamp,
            reason: "max-age",
            detail: `the motion models could not process it within the transaction timeout`,
          });
          continue;
        }
        break;
      }
      this.#accepted.push(element);
      this.#combined.merge(element.tx, { overwrite: true });
      pending.shift();
    }
  }
}
