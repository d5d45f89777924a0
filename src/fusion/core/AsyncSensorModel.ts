import type { FusionContext } from "./FusionContext";
import type { ReadonlyGraph } from "./Graph";
import type { SensorMessage, SensorModel, TransactionCallback } from "./SensorModel";
import type { Transaction } from "./Transaction";

/**
 * Base class for sensor models (fuse_core::AsyncSensorModel, reference/fuse.md §1.1). JavaScript
 * is single-threaded, so fuse's per-sensor callback queue reduces to: every hook runs to
 * completion before the next message is delivered.
 *
 * Derived classes implement `onInit` (read parameters), `onStart`/`onStop` (reset state, e.g. the
 * previous pose), optional `onGraphUpdate`, and `onMessage`; they publish with `sendTransaction`.
 *
 * Guarantees: messages are delivered to `onMessage` only between `start()` and `stop()`;
 * `sendTransaction` outside that window does not throw: the transaction is dropped and counted in
 * `droppedTransactions`. `start()` twice or `stop()` when stopped are no-ops.
 */
export abstract class AsyncSensorModel implements SensorModel {
  #name = "";
  #context: FusionContext | undefined;
  #callback: TransactionCallback | undefined;
  #started = false;
  #dropped = 0;
  #sent = 0;

  public abstract readonly topics: readonly string[];

  public get name(): string {
    return this.#name;
  }

  /** True between start() and stop(). */
  public get started(): boolean {
    return this.#started;
  }

  /** Transactions sent while not started (dropped, per fuse's contract). */
  public get droppedTransactions(): number {
    return this.#dropped;
  }

  /** Transactions delivered to the callback. */
  public get sentTransactions(): number {
    return this.#sent;
  }

  /** The context given to initialize(); throws when called before it. */
  protected get context(): FusionContext {
    if (this.#context == undefined) {
      throw new Error(`sensor model "${this.#name}" used before initialize()`);
    }
    return this.#context;
  }

  public initialize(context: FusionContext, name: string, transactionCallback: TransactionCallback): void {
    this.#context = context;
    this.#name = name;
    this.#callback = transactionCallback;
    this.onInit();
  }

  public start(): void {
    if (this.#started) {
      return;
    }
    this.#started = true;
    this.onStart();
  }

  public stop(): void {
    if (!this.#started) {
      return;
    }
    this.onStop();
    this.#started = false;
  }

  public graphCallback(graph: ReadonlyGraph): void {
    this.onGraphUpdate(graph);
  }

  public handleMessage(message: SensorMessage): void {
    if (this.#started) {
      this.onMessage(message);
    }
  }

  /** Publishes a transaction (fuse's sendTransaction); dropped and counted when not started. */
  protected sendTransaction(transaction: Transaction): void {
    if (!this.#started || this.#callback == undefined) {
      this.#dropped++;
      return;
    }
    this.#sent++;
    this.#callback(transaction);
  }

  /** Read parameters; called once from initialize(). */
  protected onInit(): void {
    // Optional hook.
  }
  /** Called by start(); transactions may be sent from here on. */
  protected onStart(): void {
    // Optional hook.
  }
  /** Called by stop(); reset per-run state here. */
  protected onStop(): void {
    // Optional hook.
  }
  /** Called after each optimization with a read-only graph. */
  protected onGraphUpdate(_graph: ReadonlyGraph): void {
    // Optional hook.
  }
  /** A message on one of `topics`, delivered only while started. */
  protected abstract onMessage(message: SensorMessage): void;
}
