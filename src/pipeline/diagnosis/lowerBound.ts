import type { PolicyConfig } from "../config";
import { roundDuration } from "./candidates";
import type { CauseInput, DiagnosisCause } from "./causes";
import type { TraceFacts } from "./facts";
import { countOf, countText, listText, msRangeText, msText, policyJson, valueText } from "./format";
import { LOWER_BOUNDS } from "./parameterCause";
import { runTrace, type TraceRun } from "./runTrace";

/** Fraction of an input's shortest stamp gap taken as its safe bound (room for a little more jitter). */
const SAFE_FRACTION = 0.9;

/** The policy's per-slot lower bound parameter and its configured values (ns), when it has one set. */
function boundOf(policy: PolicyConfig): { name: string; value: readonly number[] } | undefined {
  const rec = policy as unknown as Record<string, unknown>;
  for (const name of LOWER_BOUNDS) {
    const v = rec[name];
    if (Array.isArray(v)) {
      return { name, value: v as readonly number[] };
    }
  }
  return undefined;
}

/**
 * The slots whose lower bound (fkie minDistance, ROS interMessageLowerBound) lies above the
 * shortest gap measured between two of their stamps: the policy is told those messages come no
 * closer than they do. Empty when the policy has no such bound or every bound is below its gap.
 */
export function unsafeBoundSlots(policy: PolicyConfig, facts: TraceFacts): number[] {
  const bound = boundOf(policy);
  if (bound == undefined) {
    return [];
  }
  return bound.value.flatMap((b, slot) => {
    const gap = facts.topics[slot]?.period?.min;
    return gap != undefined && b > gap ? [slot] : [];
  });
}

/**
 * A lower bound above an input's shortest stamp gap. The policy then takes the next message of
 * that input to be at least the bound away, so it forms a set before a closer message can
 * arrive: sets are mis-formed (they pair farther stamps) even when their count looks fine. Named
 * when a run with the bound set safe (90 % of each offending input's shortest gap, the other
 * slots as configured) gives more sets, or as many (within 2 %) pairing closer stamps (a median
 * timespan at most 80 % of the configured run's). Its `fix` is that run, and `evaluation` too (a
 * suggestion is made of it). It costs the sets that run gives more (0 when only the spans improve),
 * and it is a verdict whatever it costs.
 */
export function lowerBoundCause(input: CauseInput): DiagnosisCause | undefined {
  const { trace, facts, policy, current, space } = input;
  const bound = boundOf(policy);
  const slots = unsafeBoundSlots(policy, facts);
  if (bound == undefined || slots.length === 0) {
    return undefined;
  }
  const safe = bound.value.map((b, slot) => (slots.includes(slot) ? roundDuration(SAFE_FRACTION * facts.topics[slot]!.period!.min) : b));
  const fixed = { ...(policy as unknown as Record<string, unknown>), [bound.name]: safe } as unknown as PolicyConfig;
  let run: TraceRun;
  try {
    run = runTrace(fixed, trace);
  } catch {
    return undefined; // a bound the policy class rejects: no run can stand for it
  }
  const cur = current.tuples;
  const before = current.timespan?.median;
  const after = run.timespan?.median;
  const more = run.tuples > cur;
  const closer = run.tuples >= 0.98 * cur && before != undefined && after != undefined && after <= 0.8 * before;
  if (!more && !closer) {
    return undefined;
  }
  const lost = Math.max(0, run.tuples - cur);
  const offending = slots.map((slot) => facts.topics[slot]!);
  const spanText = (r: TraceRun): string =>
    r.timespan == undefined ? "" : `, spanning ${msRangeText(r.timespan.min, r.timespan.max)}, median ${msText(r.timespan.median)}`;
  const first = offending[0]!;
  return {
    id: "lower-bound-too-large",
    topic: first.topic,
    setsLost: lost,
    evidence: {
      parameter: bound.name,
      value: bound.value,
      shortestGap: facts.topics.map((t) => t.period?.min ?? null),
      safe,
      timespan: current.timespan,
      timespanSafe: run.timespan,
      tuplesSafe: run.tuples,
    },
    message:
      `${bound.name} ${valueText("perSlotDuration", bound.value)} is above ${listText(offending.map((t) => `${t.topic}'s shortest stamp gap (${msText(t.period!.min)})`))}: ` +
      `the policy takes ${offending.length === 1 ? "its" : "their"} messages to come no closer than that, so it forms a set before a closer message can arrive ` +
      `(now ${countOf(cur, "set")}${spanText(current)}). ${bound.name} ${valueText("perSlotDuration", bound.value)} → ${valueText("perSlotDuration", safe)} (90 % of each shortest gap) ` +
      `gives ${countOf(run.tuples, "set")}${lost > 0 ? ` (${countText(lost)} sets lost)` : ""}${spanText(run)}.`,
    fix: { policy: policyJson(fixed, space, trace.slots), tuples: run.tuples },
    evaluation: { policy: fixed, run, changes: [{ name: bound.name, from: bound.value, to: safe }], changeSize: 1 },
    runs: 1,
  };
}
