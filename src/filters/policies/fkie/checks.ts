// Option and input validation shared by the fkie policies (internal; not re-exported).
import type { Duration, Stamp } from "../../../time";
import type { PolicyHost } from "../CombinerPolicy";
import type { SlotPolicy } from "../SlotPolicy";

/** Throws RangeError unless `slots` is a positive integer. */
export function checkSlotCount(slots: number, policy: string): void {
  if (!Number.isSafeInteger(slots) || slots < 1) {
    throw new RangeError(`${policy}: the number of slots must be a positive integer, got ${slots}`);
  }
}

/** The part of a policy its slot checks read. */
type SlotsOf = Pick<SlotPolicy<unknown>, "isSlot" | "slots" | "type">;

/** Throws RangeError unless `slot` is one of `policy`'s slot indices. */
export function checkSlotIndex(policy: SlotsOf, slot: number): void {
  if (!policy.isSlot(slot)) {
    rejectSlot(policy, slot);
  }
}

/**
 * Throws the RangeError for a `slot` that is not one of `policy`'s slot indices: the error path
 * of an `add` that has tested the slot itself (kept out of `add` so the per-message path stays
 * small).
 */
export function rejectSlot(policy: SlotsOf, slot: number): never {
  throw new RangeError(
    `${policy.type}: slot ${slot} does not exist (the policy has slots 0..${policy.slots - 1})`,
  );
}

/**
 * The error path of an `add` that got a bad slot or a NaN stamp (kept out of `add` so the
 * per-message path stays small): throws the slot error, else the missing-stamp error.
 */
export function rejectInput(policy: SlotsOf, slot: number, stamp: Stamp): never {
  checkSlotIndex(policy, slot);
  throw new RangeError(
    `${policy.type}: slot ${slot} received a message without a header stamp (${stamp}); drop it as "no-header" before the policy`,
  );
}

/** Returns `n` if it is a non-negative integer, else throws RangeError naming `what`. */
export function checkQueueSize(n: number, what: string): number {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`${what} must be a non-negative integer (0 = unlimited), got ${n}`);
  }
  return n;
}

/** Returns `d` if it is null or a non-negative integer number of ns, else throws RangeError. */
export function checkDuration(d: Duration | null, what: string): Duration | null {
  if (d == undefined) {
    return null;
  }
  if (!Number.isSafeInteger(d) || d < 0) {
    throw new RangeError(
      `${what} must be a non-negative integer number of nanoseconds (or null where unlimited is allowed), got ${String(d)}`,
    );
  }
  return d;
}

/** A host that fails loudly: `add` before `bind` is a programming error. */
export function unboundHost<T>(policy: string): PolicyHost<T> {
  return {
    emit() {
      throw new Error(`${policy}: the policy emitted before bind() connected it to a host`);
    },
    drop() {
      throw new Error(
        `${policy}: the policy dropped a message before bind() connected it to a host`,
      );
    },
  };
}
