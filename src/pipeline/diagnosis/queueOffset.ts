import type { PolicyConfig } from "../config";
import type { CauseInput, DiagnosisCause } from "./causes";
import { countOf, countText, policyJson, valueText } from "./format";
import { runTrace, type TraceRun } from "./runTrace";
import type { Evaluation } from "./search";

/** queueOffset's kind in the policy descriptor. */
const KIND = "perSlotSignedDuration";

/** The configured per-slot queueOffset (ns), when the policy has one with a non-zero entry. */
function configuredOffsets(policy: PolicyConfig): readonly number[] | undefined {
  const v = (policy as unknown as Record<string, unknown>).queueOffset;
  return Array.isArray(v) && v.some((o) => o !== 0) ? (v as readonly number[]) : undefined;
}

/**
 * python/approximate-time's `queueOffset` on a slot whose messages would complete the sets. rclpy
 * stores a message under its stamp minus the slot's offset but looks the arriving message up
 * under its stamp without it (a latent upstream bug, kept for parity), so a message arriving on a
 * slot with a non-zero offset never completes a set. Subtracting one constant from every offset
 * keeps what the offsets say (only differences of keys are compared), so for each slot with a
 * non-zero offset this runs the same alignment with that slot at 0: actual runs. The cause is
 * the run that gives the most sets, when it gives more than the configured one (at least 1 % of
 * them); its fix is that queueOffset, the rest of the policy as configured. The search does not
 * vary queueOffset: more sets from other offsets would pair stamps the user said lie apart.
 */
export function queueOffsetCause(input: CauseInput): DiagnosisCause | undefined {
  const { trace, policy, current, space } = input;
  const from = configuredOffsets(policy);
  if (from == undefined) {
    return undefined;
  }
  let best: { slot: number; evaluation: Evaluation } | undefined;
  let runs = 0;
  from.forEach((o, slot) => {
    if (o === 0) {
      return;
    }
    const offsets = from.map((x) => x - o);
    const candidate = { ...policy, queueOffset: offsets } as PolicyConfig;
    let run: TraceRun;
    try {
      runs++;
      run = runTrace(candidate, trace);
    } catch {
      return; // an offset the policy refuses (beyond its range): not a fix
    }
    if (best == undefined || run.tuples > best.evaluation.run.tuples) {
      best = { slot, evaluation: { policy: candidate, run, changes: [{ name: "queueOffset", from, to: offsets }], changeSize: 1 } };
    }
  });
  if (best == undefined) {
    return undefined;
  }
  const { slot, evaluation } = best;
  const gained = evaluation.run.tuples - current.tuples;
  if (gained < Math.max(1, 0.01 * evaluation.run.tuples)) {
    return undefined;
  }
  const topic = trace.topics[slot]!;
  const to = evaluation.changes[0]!.to as readonly number[];
  return {
    id: "queue-offset",
    topic,
    setsLost: gained,
    evidence: { queueOffset: [...from], suggested: [...to], tuplesFixed: evaluation.run.tuples },
    fix: { policy: policyJson(evaluation.policy, space, trace.slots), tuples: evaluation.run.tuples },
    evaluation,
    runs,
    message:
      `queueOffset ${valueText(KIND, from)} keeps ${topic}'s messages from completing a set: rclpy's ApproximateTimeSynchronizer stores a message under its stamp less its slot's offset, ` +
      `but looks the arriving one up under its stamp without the offset, so only a message on a slot without an offset completes a set (a latent upstream bug, kept for parity). ` +
      `The same alignment with ${topic} at 0, queueOffset ${valueText(KIND, from)} → ${valueText(KIND, to)}, gives ${countOf(evaluation.run.tuples, "set")} instead of ${countText(current.tuples)}.`,
  };
}
