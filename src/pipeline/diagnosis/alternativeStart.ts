import type { PolicyConfig } from "../config";
import { roundDuration } from "./candidates";
import type { TraceFacts } from "./facts";
import { TIMESPAN_LIMITS } from "./parameterCause";
import type { SearchablePolicy } from "./searchSpace";

/**
 * The first setting of another policy of the family, where its search starts: the queue size
 * carried over, and a required limit on a set's timespan (epsilon, slop) at 0. The search moves
 * away from its start only as far as the sets need (the change closest to the start that reaches
 * them), so an alternative is suggested with the tightest tolerance that gives its sets: it has no
 * configured value of its own to stay near.
 */
export function alternativeStart(alt: SearchablePolicy, from: PolicyConfig, facts: TraceFacts): PolicyConfig {
  const rec = from as unknown as Record<string, unknown>;
  const queue = (rec.queueSize ?? rec.maxQueueSize) as number | undefined;
  const maxPeriod = Math.max(1_000_000, ...facts.topics.map((t) => t.period?.median ?? 0));
  const out: Record<string, unknown> = { type: alt.type };
  for (const p of alt.parameters) {
    // A count is a queue size (queueSize, maxQueueSize): the configured one whenever there is one,
    // optional or not; else 10 where the alternative needs one.
    if (p.kind === "count") {
      if (queue != undefined && queue >= (p.minimum ?? 0) && queue > 0) {
        out[p.name] = queue;
      } else if (p.required === true) {
        out[p.name] = 10;
      }
    } else if (p.kind === "duration" && p.required === true) {
      out[p.name] = TIMESPAN_LIMITS.has(p.name) ? 0 : roundDuration(0.5 * maxPeriod);
    }
  }
  return out as unknown as PolicyConfig;
}
