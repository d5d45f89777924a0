import type { ParameterValue } from "./candidates";
import type { DiagnosisCause } from "./causes";
import type { TraceFacts } from "./facts";
import { countOf, countText, hzText, msRangeText, msText, valueText } from "./format";
import type { TraceRun } from "./runTrace";
import type { Evaluation } from "./search";
import type { SearchableParameter } from "./searchSpace";

/** The limits on how far apart the stamps of one set may lie (tighter is a closer match). */
export const TIMESPAN_LIMITS: ReadonlySet<string> = new Set(["maxTimespan", "maxIntervalDuration", "slop", "epsilon"]);

/** The lower bounds on the gap between two messages of a slot (fkie minDistance, ROS interMessageLowerBound). */
export const LOWER_BOUNDS: ReadonlySet<string> = new Set(["minDistance", "interMessageLowerBound"]);

/** What `parameterCause` works from: one parameter, and the best run changing it alone. */
export interface ParameterChangeRun {
  readonly parameter: SearchableParameter;
  /** The configured value (the library default when the config leaves it out). */
  readonly from: ParameterValue | undefined;
  readonly to: ParameterValue | undefined;
  /** The configured run. */
  readonly current: TraceRun;
  /** The run with `to` (only this parameter changed): more sets than `current`. */
  readonly fix: Evaluation;
}

/**
 * The cause a single parameter names when changing it alone gives more sets (an actual run, from
 * the search), worded in the direction of that change: a larger queue or maxAge gives
 * "queue-too-short" / "max-age-too-small", a smaller one "queue-too-long" / "max-age-too-large",
 * and so on. Its message ends with the change and the sets the run with it gives. `setsLost` is
 * that run's sets less the configured run's. Undefined for a parameter no cause is worded for.
 */
export function parameterCause(change: ParameterChangeRun, facts: TraceFacts): DiagnosisCause | undefined {
  const { parameter: p, from, to, current, fix } = change;
  const name = p.name;
  const lost = fix.run.tuples - current.tuples;
  const lostText = `${countOf(lost, "set")} lost`;
  const drops = current.drops;
  const fromText = valueText(p.kind, from, p.minimum);
  const toText = valueText(p.kind, to, p.minimum);
  const changeText = `${name} ${fromText} → ${toText} gives ${countOf(fix.run.tuples, "set")} instead of ${countText(current.tuples)}`;
  const larger = magnitude(p, to) > magnitude(p, from);
  // The drops the change removes: why the other direction than one would guess gives more sets.
  const fewer = fewerDrops(drops, fix.run.drops);
  const because = fewer === "" ? "" : ` (${fewer} with ${name} ${toText})`;
  if (name === "queueSize" || name === "maxQueueSize") {
    if (!larger) {
      return {
        id: "queue-too-long",
        setsLost: lost,
        evidence: { parameter: name, value: from, drops: { ...drops }, dropsWithFix: { ...fix.run.drops } },
        message: `a shorter queue gives more sets: with ${name} ${fromText} the policy holds older messages that end in drops${because}: ${lostText}; ${changeText}.`,
      };
    }
    return queueCause(name, from as number, lost, facts, drops["queue-overflow"] ?? 0, changeText);
  }
  if (TIMESPAN_LIMITS.has(name)) {
    const worst = facts.topics.filter((t) => t.offsetToSparsest != undefined).sort((a, b) => b.offsetToSparsest!.p95 - a.offsetToSparsest!.p95)[0];
    const sparse = facts.topics[facts.sparsestSlot]!;
    const offset = worst?.offsetToSparsest;
    return {
      id: larger ? "timespan-limit-too-small" : "timespan-limit-too-large",
      ...(worst ? { topic: worst.topic } : {}),
      setsLost: lost,
      evidence: { parameter: name, value: from, offsetToSparsest: offset ?? null, drops: drops["max-timespan"] ?? 0 },
      message: larger
        ? `${name} ${fromText} is below the distance between the inputs' stamps${worst && offset ? ` (a ${sparse.topic} stamp lies up to ${msText(offset.max)} from the nearest ${worst.topic} stamp, median ${msText(offset.median)}, p95 ${msText(offset.p95)})` : ""}: ${lostText}; ${changeText}.`
        : `${name} ${fromText} lets poor matches through that crowd out better ones: ${lostText}; ${changeText}.`,
    };
  }
  if (name === "maxAge") {
    const late = facts.topics[facts.latestSlot]!;
    if (!larger) {
      return {
        id: "max-age-too-large",
        topic: late.topic,
        setsLost: lost,
        evidence: { value: from, latency: late.latency, drops: { ...drops }, dropsWithFix: { ...fix.run.drops } },
        message: `maxAge ${fromText} keeps old messages as candidates that end in drops${because}; dropping them sooner gives more sets: ${lostText}; ${changeText}.`,
      };
    }
    return {
      id: "max-age-too-small",
      topic: late.topic,
      setsLost: lost,
      evidence: { value: from, latency: late.latency, drops: drops["max-age"] ?? 0 },
      message: `maxAge ${fromText} drops messages before their partners arrive (${late.topic} arrives up to ${msText(late.latency?.max ?? 0)} after its stamps): ${lostText}; ${changeText}.`,
    };
  }
  if (LOWER_BOUNDS.has(name)) {
    const f = (from as readonly number[] | undefined) ?? [];
    const t = (to as readonly number[] | undefined) ?? [];
    const lowered = t.some((v, i) => v < (f[i] ?? 0));
    const slot = f.findIndex((v, i) => v > (facts.topics[i]?.period?.min ?? Infinity));
    const topic = facts.topics[slot >= 0 ? slot : 0]!;
    return {
      id: lowered ? "lower-bound-too-large" : "lower-bound-too-small",
      topic: topic.topic,
      setsLost: lost,
      evidence: { parameter: name, value: from, shortestGap: facts.topics.map((x) => x.period?.min ?? null) },
      message: lowered
        ? slot >= 0
          ? `${name} ${fromText} is larger than ${topic.topic}'s shortest stamp gap (${msText(topic.period?.min ?? 0)}), so the policy takes sets that a closer message would have beaten: ${lostText}; ${changeText}.`
          : `${name} ${fromText} makes the policy take sets before a closer message can arrive: ${lostText}; ${changeText}.`
        : `${name} ${fromText} lets the policy wait for messages that cannot be closer: ${lostText}; ${changeText}.`,
    };
  }
  if (name === "agePenalty") {
    return {
      id: "age-penalty",
      setsLost: lost,
      evidence: { value: from },
      message: larger
        ? `agePenalty ${fromText} makes the policy hold on to old candidates: ${lostText}; ${changeText}.`
        : `agePenalty ${fromText} makes the policy emit old sets before better matches arrive: ${lostText}; ${changeText}.`,
    };
  }
  if (name === "ros1OutOfOrder") {
    const back = facts.topics.filter((x) => x.backwardSteps > 0).sort((a, b) => b.backwardSteps - a.backwardSteps)[0];
    return {
      id: "out-of-order-resets",
      ...(back ? { topic: back.topic } : {}),
      setsLost: lost,
      evidence: { backwardSteps: facts.topics.map((x) => x.backwardSteps), drops: drops["out-of-order-reset"] ?? 0 },
      message: `${back?.topic ?? "an input"}'s stamps go backwards ${countOf(back?.backwardSteps ?? 0, "time")} and each step resets the policy (${countOf(drops["out-of-order-reset"] ?? 0, "message")} discarded): ${lostText}; ros1OutOfOrder true (fkie 1.x) only resets on a step behind a held message: ${changeText}.`,
    };
  }
  if (name === "allowHeaderless") {
    const t = facts.topics.find((x) => x.headerless > 0);
    return {
      id: "headerless-not-allowed",
      ...(t ? { topic: t.topic } : {}),
      setsLost: lost,
      evidence: { headerless: facts.topics.map((x) => x.headerless) },
      message: `${t?.topic ?? "an input"} has ${countOf(t?.headerless ?? 0, "message")} without a header: ${lostText}; allowHeaderless true matches them by their receive time: ${changeText}.`,
    };
  }
  return undefined;
}

/** A value's size for comparing directions: unlimited (null, or a count of 0 where 0 means unlimited) is infinite. */
function magnitude(p: SearchableParameter, v: ParameterValue | undefined): number {
  // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) is a value here, unlike undefined (absent)
  if (v === null) {
    return Infinity;
  }
  if (typeof v === "number") {
    return p.kind === "count" && v === 0 && (p.minimum ?? 0) === 0 ? Infinity : v;
  }
  if (typeof v === "boolean") {
    return v ? 1 : 0;
  }
  return Array.isArray(v) ? (v as readonly number[]).reduce((a, b) => a + b, 0) : 0;
}

/** The drop reasons a change reduces, most first, at most two ("max-timespan 321 → 90, out-of-order-reset 128 → 42"). */
function fewerDrops(before: TraceRun["drops"], after: TraceRun["drops"]): string {
  return (Object.keys(before) as (keyof TraceRun["drops"])[])
    .map((reason) => ({ reason, from: before[reason] ?? 0, to: after[reason] ?? 0 }))
    .filter(({ reason, from, to }) => to < from && reason !== "not-selected")
    .sort((a, b) => b.from - b.to - (a.from - a.to))
    .slice(0, 2)
    .map(({ reason, from, to }) => `${reason} drops ${countText(from)} → ${countText(to)}`)
    .join(", ");
}

function queueCause(name: string, queue: number, lost: number, facts: TraceFacts, overflows: number, changeText: string): DiagnosisCause {
  const fast = facts.topics[facts.fastestSlot]!;
  const late = facts.topics[facts.latestSlot]!;
  const sparse = facts.topics[facts.sparsestSlot]!;
  const period = fast.period?.median ?? 0;
  const coverage = queue * period;
  const lostText = `${countOf(lost, "set")} lost`;
  const evidence = {
    parameter: name,
    value: queue,
    fastestTopic: fast.topic,
    fastestPeriod: period,
    coverage,
    latestTopic: late.topic,
    latency: late.latency,
    drops: overflows,
  };
  const rate = fast.rateHz != undefined ? hzText(fast.rateHz) : `a ${msText(period)} period`;
  if (late.slot !== fast.slot && late.latency != undefined && coverage < late.latency.max) {
    return {
      id: "queue-too-short",
      topic: late.topic,
      setsLost: lost,
      evidence,
      message:
        `${late.topic} arrives ${msRangeText(late.latency.min, late.latency.max)} after its stamps and ${fast.topic} runs at ${rate}, ` +
        `so a ${queue}-message ${fast.topic} queue covers ${msText(coverage)}: every ${fast.topic} message that could match a ${late.topic} stamp is gone before that message arrives (${lostText}; ${changeText}).`,
    };
  }
  if (sparse.slot !== fast.slot && coverage < (sparse.period?.median ?? 0)) {
    return {
      id: "queue-too-short",
      topic: fast.topic,
      setsLost: lost,
      evidence: { ...evidence, sparsestTopic: sparse.topic, sparsestPeriod: sparse.period?.median },
      message: `a ${queue}-message ${fast.topic} queue (${rate}) covers ${msText(coverage)}, less than the ${msText(sparse.period?.median ?? 0)} between ${sparse.topic} messages: its candidates overflow before a partner comes (${lostText}; ${changeText}).`,
    };
  }
  return {
    id: "queue-too-short",
    topic: fast.topic,
    setsLost: lost,
    evidence,
    message: `a ${queue}-message queue (${msText(coverage)} of ${fast.topic}) is too short for these stamps: ${countText(overflows)} queue overflows, ${lostText}; ${changeText}.`,
  };
}
