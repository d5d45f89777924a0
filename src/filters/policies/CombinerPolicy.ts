import type { Stamp } from "../../time";
import type { DropReason } from "../DropReason";

/**
 * What a policy calls back into: its Combiner (or a bare harness such as the benchmark or
 * `lockstep replay`).
 */
export interface PolicyHost<T> {
  /**
   * Emit one set. `items[i]` belongs to slot i; `stamps[i]` is its stamp (NaN if headerless).
   * The arrays are fresh for each call and owned by the receiver. The policy has already updated
   * its state, so a throwing receiver leaves the policy consistent.
   */
  emit(items: T[], stamps: Stamp[]): void;
  /**
   * False when the host never reads `emit`'s `stamps` (a Combiner does not: its sinks get the
   * items): the policy then passes `NO_STAMPS` instead of building an array per set. Read once,
   * in `bind`. Default true.
   */
  readonly readsStamps?: boolean;
  /** Report one dropped or skipped message (exactly once per message). */
  drop(slot: number, stamp: Stamp, item: T, reason: DropReason, detail?: string): void;
}

/** The `stamps` a policy passes to a host whose `readsStamps` is false: empty and frozen. */
export const NO_STAMPS: Stamp[] = Object.freeze([]) as unknown as Stamp[];

/**
 * A combiner policy: decides which inputs form output sets. Policies see only stamps and opaque
 * items; they never read messages. Emission is synchronous, inside `add`, possibly several times.
 */
export interface CombinerPolicy<T> {
  /** The config `type` (e.g. "fkie/approximate-time"). */
  readonly type: string;
  /** Number of input slots. */
  readonly slots: number;
  /** Whether `add` accepts NaN stamps (headerless messages). When false, callers drop them as `no-header`. */
  readonly acceptsHeaderless: boolean;
  /** Connect the policy to its host. Called once before the first `add` (and again after set_policy). */
  bind(host: PolicyHost<T>): void;
  /**
   * Add one message. `stamp` is the header stamp (relative, see time/TimeBase; NaN when the
   * message has no header); `arrival` is the receive time on the same base (= stamp when unknown).
   */
  add(slot: number, stamp: Stamp, item: T, arrival: Stamp): void;
  /** Clear all held messages (reported as drops with reason "reset" when `reportDrops`) and state; keep the configuration. */
  reset(reportDrops?: boolean): void;
}
