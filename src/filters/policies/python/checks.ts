// Validation shared by the rclpy policies (internal; not re-exported).
import type { PolicyHost } from "../CombinerPolicy";

/** Throws RangeError unless `slots` is an integer >= 1. */
export function checkSlotCount(slots: number, policy: string): void {
  if (!Number.isInteger(slots) || slots < 1) {
    throw new RangeError(`${policy}: slots must be an integer >= 1, got ${slots}`);
  }
}

/** Throws RangeError unless `queueSize` is a safe integer >= 1. */
export function checkQueueSize(queueSize: number, policy: string): void {
  if (!Number.isSafeInteger(queueSize) || queueSize < 1) {
    throw new RangeError(`${policy}: queueSize must be an integer >= 1, got ${queueSize}`);
  }
}

/**
 * The error path of an `add` before `bind()` or with a slot that does not exist (kept out of
 * `add` so the per-message path stays small). Always throws.
 */
export function rejectAdd<T>(
  policy: string,
  host: PolicyHost<T> | undefined,
  slot: number,
  slots: number,
): never {
  if (host == undefined) {
    throw new Error(`${policy}: add() called before bind()`);
  }
  throw new RangeError(`${policy}: no slot ${slot} (slots 0..${slots - 1})`);
}
