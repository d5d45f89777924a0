import type { PolicyConfig } from "../config";
import type { StampTrace } from "./StampTrace";
import type { DiagnosisCause } from "./causes";
import { countOf, countText } from "./format";
import { runTrace, type TraceRun } from "./runTrace";

/**
 * Queue parameters for which 0 means "no room" rather than "unlimited", by policy type. For the
 * fkie approximate-time and exact-time policies `maxQueueSize` 0 is unlimited, which is why users
 * write 0 for fkie/fifo too; there a FIFO of capacity 0 drops every message on arrival.
 */
const ZERO_HOLDS_NOTHING: Readonly<Record<string, string>> = { "fkie/fifo": "maxQueueSize" };

/**
 * A queue limit of 0 on a policy whose queue then holds nothing (fkie/fifo's `maxQueueSize`):
 * every message is dropped on arrival and no set can be emitted. Its fix is the smallest queue
 * that holds anything (1), counted by an actual run; `evaluation` is that run (for the suggestion
 * it makes). Undefined when the config has no such limit at 0, or 1 gives no more sets.
 */
export function emptyQueueCause(
  policy: PolicyConfig,
  trace: StampTrace,
  current: TraceRun,
): DiagnosisCause | undefined {
  const name = ZERO_HOLDS_NOTHING[policy.type];
  const rec = policy as unknown as Record<string, unknown>;
  if (name == undefined || rec[name] !== 0) {
    return undefined;
  }
  const fixed = { ...rec, [name]: 1 } as unknown as PolicyConfig;
  const run = runTrace(fixed, trace);
  const lost = run.tuples - current.tuples;
  if (lost <= 0) {
    return undefined;
  }
  const overflows = current.drops["queue-overflow"] ?? 0;
  return {
    id: "queue-holds-nothing",
    setsLost: lost,
    evidence: { parameter: name, value: 0, drops: overflows, tuplesWithOne: run.tuples },
    message:
      `${name} 0 holds nothing for ${policy.type} (0 means unlimited only for fkie's approximate-time and exact-time): every message is dropped as a queue overflow on arrival ` +
      `(${countOf(overflows, "drop")}), so no set is emitted (${countText(lost)} sets lost; ${name} 1 gives ${countOf(run.tuples, "set")}).`,
    fix: { policy: { ...fixed }, tuples: run.tuples },
    evaluation: { policy: fixed, run, changes: [{ name, from: 0, to: 1 }], changeSize: 1 },
    runs: 1,
  };
}
