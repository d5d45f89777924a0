import type { EngineStats, TopicCounts } from "./engineTypes";
import type { DropReason, PipelineConfig } from "../../pipeline";
import { runTrace, type StampTrace } from "../../pipeline/diagnosis";

/**
 * The comparison column's statistics for a policy picked after messages were analyzed: the policy
 * run over the stamp trace of every message the main pipeline saw since its last reset (the same
 * SyncGraph run `lockstep replay` and the diagnosis use, so the sets equal a pipeline that ran
 * from the first message). Per-topic message counts and rates are the main pipeline's (same
 * messages). `lag` is left out: the trace knows stamps, not when each set completed. The config
 * must have been validated (parseConfig).
 */
export function compareFromTrace(config: PipelineConfig, trace: StampTrace | undefined, main: EngineStats): EngineStats {
  const slots = main.topics.length;
  const dropped = new Array<number>(slots).fill(0);
  let tuples = 0;
  let drops: Partial<Record<DropReason, number>> = {};
  let timespan: EngineStats["timespan"];
  if (trace != undefined && trace.length > 0) {
    const run = runTrace(config.policy, trace, { record: true });
    tuples = run.tuples;
    drops = { ...run.drops };
    timespan = run.timespan ?? undefined;
    const fates = run.fates!;
    for (let i = 0; i < trace.length; i++) {
      const slot = trace.slot(i);
      const fate = fates[i]!;
      if (fate <= -2) {
        dropped[slot]!++;
      }
    }
  }
  // Every set has one member on each slot, so each slot took part in every set (as the pipeline
  // counts it: a latest-time message can be in several sets).
  const topics: TopicCounts[] = main.topics.map((t, slot) => ({ ...t, matched: tuples, dropped: dropped[slot]! }));
  return { policyType: config.policy.type, tuples, drops, timespan, topics };
}

