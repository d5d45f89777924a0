import type { FusionContext } from "./FusionContext";
import type { ReadonlyGraph } from "./Graph";
import type { Transaction } from "./Transaction";
import type { MessageHeader, StampProblem } from "../../messages";
import type { Stamp } from "../../time";

/** fuse's TransactionCallback: the sensor's "publish". */
export type TransactionCallback = (transaction: Transaction) => void;

/** One received message, as the runner delivers it to a sensor model. */
export interface SensorMessage {
  readonly topic: string;
  /** The decoded message (ROS 1 or ROS 2 shape). */
  readonly message: unknown;
  /** Receive (log) time as a relative stamp: the clock that throttling uses. */
  readonly receiveTime: Stamp;
  /**
   * The message's own header stamp and frame, read once by whoever delivers the message (the
   * pipeline, for every message it feeds), or why it has none usable. Sensors use it instead of
   * reading the header again.
   */
  readonly header: MessageHeader | StampProblem;
}

/**
 * The sensor model plugin interface (fuse_core::SensorModel; reference/fuse.md §1.1 and the
 * SensorModel class documentation):
 * - `initialize(context, name, transactionCallback)` once after construction;
 * - `start()` when the optimizer is ready to receive transactions, `stop()` before shutdown; a
 *   stop/start pair is a reset;
 * - `graphCallback(graph)` after each optimization, with a read-only graph that is never mutated
 *   afterwards (new values arrive as a new object);
 * - a sensor must not send transactions before `start()` or after `stop()`.
 * Lockstep has no ROS subscriptions: the runner delivers messages for `topics` to
 * `handleMessage`.
 */
export interface SensorModel {
  /** The unique instance name (also every constraint's `source`). */
  readonly name: string;
  /** Topics this sensor subscribes to (empty when it uses none, e.g. ignition at start-up). */
  readonly topics: readonly string[];
  initialize(context: FusionContext, name: string, transactionCallback: TransactionCallback): void;
  start(): void;
  stop(): void;
  graphCallback(graph: ReadonlyGraph): void;
  /** Delivers a message on one of `topics`; ignored while not started. */
  handleMessage(message: SensorMessage): void;
}
