import type { FusionContext } from "./FusionContext";
import type { ReadonlyGraph } from "./Graph";
import type { Transaction } from "./Transaction";

/**
 * The motion model plugin interface (fuse_core::MotionModel, reference/fuse.md §1.2).
 *
 * `apply(tx)` is called once per received sensor transaction, in order; it augments the
 * transaction in place so every involved stamp is connected to the motion-model chain (variables
 * at each stamp, one kinematic constraint per new gap, removal of split segments), and returns
 * false when it cannot (the optimizer then retries or times the transaction out). Real models use
 * `TimestampManager`.
 */
export interface MotionModel {
  readonly name: string;
  initialize(context: FusionContext, name: string): void;
  start(): void;
  stop(): void;
  graphCallback(graph: ReadonlyGraph): void;
  apply(transaction: Transaction): boolean;
}
