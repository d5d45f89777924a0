import type { PolicyConfig } from "../config";
import type { DiagnosisCause } from "./causes";
import type { TraceFacts } from "./facts";
import { countOf, hzText } from "./format";
import type { TraceRun } from "./runTrace";

/**
 * Policies that may put one message into several sets (ROS LatestTime pairs the latest message
 * of each input at every emission; fkie Latch re-sends the latched ones with every trigger), so
 * the slowest input's message count bounds nothing.
 */
const REUSES_MESSAGES: ReadonlySet<string> = new Set(["ros/latest-time", "fkie/latch"]);

/**
 * The fact that one input is much slower than the fastest (under a fifth of its rate), so the
 * sets can be at most its message count: a fact that costs no sets. Only for policies that use
 * each message in one set at most, and never when the configured run already gives more sets
 * than that bound (a bound the run exceeds is no bound).
 */
export function slowTopicFact(policy: PolicyConfig, facts: TraceFacts, current: TraceRun): DiagnosisCause | undefined {
  const sparse = facts.topics[facts.sparsestSlot];
  const fast = facts.topics[facts.fastestSlot];
  if (sparse?.rateHz == undefined || fast?.rateHz == undefined || !(sparse.rateHz < 0.2 * fast.rateHz)) {
    return undefined;
  }
  if (REUSES_MESSAGES.has(policy.type) || current.tuples > sparse.messages) {
    return undefined;
  }
  return {
    id: "slow-topic",
    topic: sparse.topic,
    setsLost: 0,
    evidence: { messages: sparse.messages, rateHz: sparse.rateHz, fastestTopic: fast.topic, fastestRateHz: fast.rateHz },
    message: `${sparse.topic} (${hzText(sparse.rateHz)}) is much slower than ${fast.topic} (${hzText(fast.rateHz)}): every set needs one of its ${countOf(sparse.messages, "message")}, so there can be at most that many sets.`,
  };
}
