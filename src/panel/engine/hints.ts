import type { EngineStats } from "./engineTypes";
import { POLICY_DESCRIPTORS } from "../../pipeline";
import { LOWER_BOUNDS } from "../../pipeline/diagnosis/parameterCause";
import { formatDuration } from "../../time";

/** The parameter names of policy `type` (empty for an unknown type). */
function parameterNames(type: string): string[] {
  return (POLICY_DESCRIPTORS.find((d) => d.type === type)?.parameters ?? []).map((p) => p.name);
}

function ms(ns: number): string {
  return `${(ns / 1e6).toFixed(1)} ms`;
}

/**
 * Tuning hints from a run's statistics, most important first. Each names the topic or parameter
 * concerned and what to try; none is given before there is enough data (20 messages per slot).
 * Parameters are named as the selected policy calls them, and a suggestion for a parameter the
 * policy does not have is left out.
 */
export function tuningHints(stats: EngineStats, policy: Readonly<Record<string, unknown>>): string[] {
  const hints: string[] = [];
  const { topics } = stats;
  const names = parameterNames(String(policy.type));
  for (const [slot, t] of topics.entries()) {
    if (t.messages === 0) {
      hints.push(`Slot ${slot} (${t.topic}) has received no messages: check the topic name and that it is playing.`);
    }
  }
  if (topics.some((t) => t.messages < 20)) {
    return hints;
  }
  const total = topics.reduce((s, t) => s + t.messages, 0);
  const drops = stats.drops;
  const frac = (n: number | undefined): number => (n ?? 0) / Math.max(1, total);
  if (stats.tuples === 0) {
    hints.push("No synchronized set yet although every slot has data: do the header stamps of the topics overlap in time?");
  }
  if (frac(drops["queue-overflow"]) > 0.05) {
    const key = names.includes("queueSize") ? "queueSize" : "maxQueueSize";
    hints.push(`${(100 * frac(drops["queue-overflow"])).toFixed(0)}% of messages overflow the queue: raise ${key} or check for a slot that lags behind.`);
  }
  if (frac(drops["max-timespan"]) > 0.05 && stats.timespan) {
    hints.push(
      `${(100 * frac(drops["max-timespan"])).toFixed(0)}% of messages exceed the max timespan; matched sets span up to ${ms(stats.timespan.max)} (p95 ${ms(stats.timespan.p95)}).`,
    );
  }
  if (frac(drops["max-age"]) > 0.05) {
    hints.push(`${(100 * frac(drops["max-age"])).toFixed(0)}% of messages are dropped for age: raise maxAge, or look for a topic whose stamps lag far behind.`);
  }
  if (frac(drops["zero-stamp"]) + frac(drops["no-header"]) > 0) {
    hints.push("Some messages have no usable header stamp (zero or missing): fix the publisher's stamping.");
  }
  if (frac(drops["out-of-order-reset"]) > 0) {
    hints.push("Stamps went backwards on some topic: the policy reset. Check for clock jumps or a looping source.");
  }
  // Rates: which slot limits the output rate.
  const rates = topics.map((t) => (Number.isFinite(t.rate) ? t.rate : 0));
  const slowest = rates.indexOf(Math.min(...rates));
  if (slowest >= 0 && rates[slowest]! > 0) {
    const t = topics[slowest]!;
    hints.push(
      `The slowest input is ${t.topic} at ${rates[slowest]!.toFixed(1)} Hz: at most one set per message of it (${stats.tuples} sets from ${t.messages} messages).`,
    );
  }
  const s = stats.suggested;
  if (s) {
    const parts: string[] = [];
    const lowerBound = names.find((n) => LOWER_BOUNDS.has(n));
    if (lowerBound != undefined) {
      const md = s.minDistance.map((d) => (d == undefined ? "?" : formatDuration(Math.round(d / 1e6) * 1e6))).join(", ");
      parts.push(`${lowerBound} [${md}]`);
    }
    if (s.maxTimespan != undefined && names.includes("maxTimespan")) {
      parts.push(`maxTimespan ≈ ${ms(s.maxTimespan)} (99% of sets)`);
    }
    if (s.maxQueueSize != undefined) {
      parts.push(`queue size ≥ ${s.maxQueueSize}`);
    }
    hints.push(`Suggested from the data: ${parts.join(", ")}.`);
  }
  if (stats.timespan && String(policy.type) === "fkie/approximate-time" && policy.maxTimespan == undefined) {
    hints.push(`No max timespan set: matched sets span up to ${formatDuration(Math.round(stats.timespan.max / 1000) * 1000)}; set maxTimespan to bound it.`);
  }
  return hints;
}
