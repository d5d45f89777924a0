import { policyDescriptor } from "../../filters/policies/descriptors";
import type { PolicyConfig } from "../config";
import { createPolicy } from "../createPolicy";
import { StampTrace } from "./StampTrace";
import { alternativeStart } from "./alternativeStart";
import { defaultValue, type ParameterValue } from "./candidates";
import { clockOffsetCause } from "./clockOffset";
import { emptyQueueCause } from "./emptyQueue";
import type { TopicFacts, TraceFacts } from "./facts";
import { countOf, countText, listText, msText, offsetText, policyJson, upperFirst } from "./format";
import { inputSpanFacts } from "./inputSpan";
import { lowerBoundCause } from "./lowerBound";
import { parameterCause } from "./parameterCause";
import { queueOffsetCause } from "./queueOffset";
import { runTrace, type TraceRun } from "./runTrace";
import type { Evaluation, PolicySearchResult } from "./search";
import { familyOf, type SearchablePolicy } from "./searchSpace";
import { slowTopicFact } from "./slowTopic";

/** Every cause `findCauses` can name. */
export const CAUSE_IDS = [
  "queue-too-short",
  "queue-too-long",
  "queue-holds-nothing",
  "timespan-limit-too-small",
  "timespan-limit-too-large",
  "max-age-too-small",
  "max-age-too-large",
  "lower-bound-too-large",
  "lower-bound-too-small",
  "age-penalty",
  "out-of-order-resets",
  "backward-stamps",
  "headerless-not-allowed",
  "missing-stamps",
  "silent-input",
  "stamps-never-line-up",
  "slow-topic",
  "starts-late",
  "ends-early",
  "clock-offset",
  "queue-offset",
  "receive-bursts",
] as const;

/** A cause id. */
export type CauseId = (typeof CAUSE_IDS)[number];

/**
 * Causes that block every set whatever they cost (an input without a single message): ranked
 * first, and the verdict even when nothing can be counted without them.
 */
const BLOCKING: ReadonlySet<CauseId> = new Set<CauseId>(["silent-input"]);

/**
 * Causes that mis-form the sets the policy emits (a lower bound above an input's shortest stamp
 * gap, or one whose lowering the runs show gives more sets): ranked right after the blocking
 * ones, and a verdict even when the count looks fine.
 */
const MISFORMING: ReadonlySet<CauseId> = new Set<CauseId>(["lower-bound-too-large"]);

/**
 * Causes that no setting of the policy removes, so a verdict naming one offers no policy change:
 * for a clock offset the search only widens a limit to the offset (matching across the wrong
 * clock), and a silent input leaves nothing to search.
 */
export const BEYOND_THE_POLICY: ReadonlySet<CauseId> = new Set<CauseId>(["clock-offset", "silent-input"]);

/** Whether a cause can be the diagnosis's verdict: it costs sets, blocks them all, or mis-forms them. */
export function isVerdict(cause: DiagnosisCause): boolean {
  return cause.setsLost > 0 || BLOCKING.has(cause.id) || MISFORMING.has(cause.id);
}

/**
 * Whether the causes name inputs whose clocks are off from the others' at a cost in sets: every
 * count of the search then comes from stamps matched across the wrong clock, so the diagnosis
 * offers no change of the policy, only the clock fix and its stopgap.
 */
export function onWrongClock(causes: readonly DiagnosisCause[]): boolean {
  return causes.some((c) => c.id === "clock-offset" && c.setsLost > 0);
}

/** One reason sets are missing, with the evidence counted on the recording. */
export interface DiagnosisCause {
  readonly id: CauseId;
  /** The input it concerns, when it is one. */
  readonly topic?: string;
  /**
   * Sets it costs: how many more sets the policy gives with it removed (an actual run with the
   * fix, or with the offending messages repaired); 0 for facts that cost no sets but explain them.
   */
  readonly setsLost: number;
  readonly evidence: Record<string, unknown>;
  readonly message: string;
  /** The smallest change of the configured policy that removes it, and the sets it then gives. */
  readonly fix?: { readonly policy: Record<string, unknown>; readonly tuples: number };
  /**
   * Input stamp sources that work around it (input topic → `inputs[].stamp`, so far always
   * "receive"); with `policy`, the complete policy to switch to as well, when the stamps alone
   * give no set (an exact-time policy, which receive times seldom meet); and the sets the change
   * gives: an actual run on the recorded stamps.
   */
  readonly stampFix?: {
    readonly stamps: Readonly<Record<string, "receive">>;
    readonly policy?: Record<string, unknown>;
    readonly tuples: number;
  };
  /** Policy runs made to count it (dropped from the JSON). */
  readonly runs?: number;
  /** The run of `fix`, when the cause made it itself: a suggestion can be made of it (dropped from the JSON). */
  readonly evaluation?: Evaluation;
}

/** What `findCauses` works from. */
export interface CauseInput {
  readonly trace: StampTrace;
  readonly facts: TraceFacts;
  readonly policy: PolicyConfig;
  readonly current: TraceRun;
  readonly search?: PolicySearchResult;
  readonly space?: SearchablePolicy;
  readonly bestAlternative?: PolicySearchResult;
}

/**
 * Names what removed the would-be sets, ranked by the sets each costs (most first; facts that
 * cost none last), after the causes that block every set and then those that mis-form the sets
 * (see `isVerdict`). A parameter cause's cost is the gain of changing that parameter alone (from
 * the search); a data cause's cost is the gain of a run on the trace with the offending messages
 * repaired (backward steps left out, missing stamps replaced by receive times).
 */
export function findCauses(input: CauseInput): DiagnosisCause[] {
  const { trace, facts, policy, current, search, space } = input;
  const searched: DiagnosisCause[] = [];
  const cur = current.tuples;
  const rec = policy as unknown as Record<string, unknown>;
  if (search != undefined && space != undefined) {
    for (const [name, fix] of search.alone) {
      const p = space.parameters.find((q) => q.name === name)!;
      const from = (rec[name] as ParameterValue | undefined) ?? defaultValue(p, trace.slots);
      const to = fix.changes.find((c) => c.name === name)?.to;
      const lost = fix.run.tuples - cur;
      if (lost < Math.max(1, 0.01 * search.best.run.tuples)) {
        continue; // within the noise of the search: not a cause worth a user's time
      }
      const fixJson = { policy: policyJson(fix.policy, space, trace.slots), tuples: fix.run.tuples };
      const c = parameterCause({ parameter: p, from, to, current, fix }, facts);
      if (c != undefined) {
        searched.push({ ...c, fix: fixJson });
      }
    }
  }
  const data = dataCauses(input);
  // On inputs whose clocks are off, the search counted sets matched across the wrong clock: a
  // parameter change that gives more of them (a wider limit, say) only absorbs the offset.
  // A lower bound above an input's shortest gap mis-forms every set counted with it kept: each
  // search cause changes another parameter alone, so its sets are mis-formed too (a wider limit
  // only lets them through), or it names the bound again.
  const misformed = lowerBoundCause(input);
  // A queueOffset on the slot whose messages complete the sets: the search kept it, so what it
  // found (a wider slop) pairs stamps the offset says lie apart.
  const offset = queueOffsetCause(input);
  const causes = onWrongClock(data) || misformed != undefined || offset != undefined ? [] : searched;
  if (misformed != undefined) {
    causes.push(misformed);
  }
  if (offset != undefined) {
    causes.push(offset);
  }
  const empty = emptyQueueCause(policy, trace, current);
  if (empty != undefined) {
    causes.push(empty);
  }
  causes.push(...data);
  // Facts that cost no sets by themselves but explain the stamps.
  const slow = slowTopicFact(policy, facts, current);
  if (slow != undefined) {
    causes.push(slow);
  }
  causes.push(...inputSpanFacts(trace, facts));
  const costed = new Set(causes.filter((c) => c.id === "clock-offset").map((c) => c.topic));
  for (const t of facts.topics) {
    const share = t.futureStamps / Math.max(1, t.messages);
    if (t.latency != undefined && share > 0.1 && t.latency.min < -1_000_000 && !costed.has(t.topic)) {
      causes.push({
        id: "clock-offset",
        topic: t.topic,
        setsLost: 0,
        evidence: { futureStamps: t.futureStamps, latency: t.latency },
        message: `${countText(t.futureStamps)} of ${t.topic}'s stamps ${t.futureStamps === 1 ? "lies" : "lie"} in the future of their receive time (by up to ${msText(-t.latency.min)}): its clock runs ahead of the recorder's.`,
      });
    }
    if (t.largestBurst >= 5) {
      causes.push({
        id: "receive-bursts",
        topic: t.topic,
        setsLost: 0,
        evidence: { receiveTies: t.receiveTies, largestBurst: t.largestBurst },
        message: `${t.topic} arrives in bursts: ${countOf(t.receiveTies, "message")} ${t.receiveTies === 1 ? "shares" : "share"} a receive time with the one before, up to ${t.largestBurst} at once; a queue must hold a whole burst.`,
      });
    }
  }
  // A blocking cause comes first whatever it costs: nothing else matters until it is gone. Then
  // one that mis-forms the sets: a count that another limit recovers is no better while it stays.
  const tier = (c: DiagnosisCause): number => (BLOCKING.has(c.id) ? 2 : MISFORMING.has(c.id) ? 1 : 0);
  return causes
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (tier(b.c) !== tier(a.c) ? tier(b.c) - tier(a.c) : b.c.setsLost !== a.c.setsLost ? b.c.setsLost - a.c.setsLost : a.i - b.i))
    .map(({ c }) => c);
}

/** A spread of distances at most this wide (ns) is a constant offset between two inputs' stamps. */
const CONSTANT_OFFSET_NS = 100_000;

/** Causes in the data rather than in a parameter, costed by a run on the repaired trace. */
function dataCauses(input: CauseInput): DiagnosisCause[] {
  const { trace, facts, policy, current } = input;
  const out: DiagnosisCause[] = [];
  const cur = current.tuples;
  const backward = facts.topics.filter((t) => t.backwardSteps > 0);
  if (backward.length > 0) {
    const newest = new Array<number>(trace.slots).fill(-Infinity);
    const skip = new Uint8Array(trace.length);
    for (let i = 0; i < trace.length; i++) {
      const s = trace.stamp(i);
      const slot = trace.slot(i);
      if (s === s) {
        if (s < newest[slot]!) {
          skip[i] = 1;
        } else {
          newest[slot] = s;
        }
      }
    }
    const repaired = runTrace(policy, trace, { skip: (i) => skip[i] === 1 });
    const lost = Math.max(0, repaired.tuples - cur);
    const worst = [...backward].sort((a, b) => b.backwardSteps - a.backwardSteps)[0]!;
    if (lost > 0 || (current.drops["out-of-order-reset"] ?? 0) > 0) {
      out.push({
        id: "backward-stamps",
        topic: worst.topic,
        setsLost: lost,
        evidence: {
          backwardSteps: Object.fromEntries(backward.map((t) => [t.topic, t.backwardSteps])),
          drops: current.drops["out-of-order-reset"] ?? 0,
          tuplesWithoutThem: repaired.tuples,
        },
        message: `${worst.topic}'s stamps go backwards ${countOf(worst.backwardSteps, "time")}${(current.drops["out-of-order-reset"] ?? 0) > 0 ? ` (${countOf(current.drops["out-of-order-reset"] ?? 0, "message")} discarded by resets)` : ""}: without those messages the policy gives ${countOf(repaired.tuples, "set")} (${countText(lost)} lost); stamp at the sensor, or reorder upstream.`,
        runs: 1,
      });
    }
  }
  // Messages without a usable stamp, which receive times can stamp (undecodable ones stay lost).
  // A policy that takes headerless messages already matches those by receive time.
  const takesHeaderless = acceptsHeaderless(policy, trace);
  const unusable = (t: TopicFacts): number => (takesHeaderless ? 0 : t.headerless) + t.zeroStamps + t.offClockStamps;
  const missing = facts.topics.filter((t) => unusable(t) > 0);
  if (missing.length > 0) {
    // Inputs none of whose messages has a usable stamp (in slot order): for them, the input's
    // receive-time stamp source gives exactly the repaired run's stamps.
    const unstamped = missing.filter((t) => unusable(t) === t.messages).map((t) => t.topic);
    // With the receive times on another clock than the stamps, a receive-time stamp only meets
    // other receive-time stamps: an input that has nothing else takes every input with it.
    const everyInput = trace.receiveClockOffsetSec !== 0 && unstamped.length > 0;
    const stampOverride = (i: number): number | undefined => {
      const kind = trace.kind(i);
      return kind === "undecodable" || (kind === "stamped" && !everyInput) ? undefined : trace.arrival(i);
    };
    const repaired = runTrace(policy, trace, { stampOverride });
    // An exact-time policy pairs identical stamps only, and a receive time seldom equals another
    // input's stamp: the repair alone gives it nothing. Its family's approximate-time policy on the
    // same repaired stamps says what the two changes together give (an actual run).
    const together = repaired.tuples > cur || everyInput || unstamped.length === 0 ? undefined : approximateOnRepaired(input, stampOverride);
    const lost = Math.max(0, (together?.tuples ?? repaired.tuples) - cur);
    const ranked = [...missing].sort((a, b) => unusable(b) - unusable(a));
    const worst = ranked[0]!;
    const rest = ranked.slice(1);
    const others =
      rest.length === 0
        ? ""
        : rest.length === 1
          ? `, and ${rest[0]!.topic} ${countText(unusable(rest[0]!))} more`
          : `, and the other inputs ${countText(rest.reduce((n, t) => n + unusable(t), 0))} more (${listText(rest.map((t) => `${t.topic} ${countText(unusable(t))}`))})`;
    const fixed = everyInput ? facts.topics.map((t) => t.topic) : unstamped;
    const kinds = (
      [
        [takesHeaderless ? 0 : worst.headerless, "without a header"],
        [worst.zeroStamps, "with a zero stamp"],
        [worst.offClockStamps, "with a stamp the time base cannot place (not a time, or more than 52 days from the first stamps: another clock such as sim time against wall time)"],
      ] as const
    ).filter(([n]) => n > 0);
    const what =
      kinds.length === 1
        ? `${countOf(kinds[0]![0], "message")} ${kinds[0]![1]}, which no set can use`
        : `${countOf(unusable(worst), "message")} no set can use (${kinds.map(([n, k]) => `${countText(n)} ${k}`).join(", ")})`;
    const result = everyInput
      ? `: the receive times are on another clock than the stamps (${offsetText(Math.abs(trace.receiveClockOffsetSec) * 1e9)} apart), so receive-time stamps only meet receive-time stamps; with every input stamped by its receive time the policy gives ${countOf(repaired.tuples, "set")} (${countText(lost)} lost). "stamp": "receive" on every input (in the panel: each input's Stamp source) does that.`
      : together != undefined
        ? `: stamped with their receive times they still give no set, as ${policy.type} pairs identical stamps only and a receive time seldom equals another input's stamp. ` +
          `${together.type} on those receive-time stamps gives ${countOf(together.tuples, "set")} (${countText(lost)} lost): switch to ${together.type} and set "stamp": "receive" on ${listText(unstamped)} (in the panel: the policy, and the input's Stamp source).`
        : `: stamped with their receive times they would give ${countOf(repaired.tuples, "set")} (${countText(lost)} lost).` +
          (unstamped.length === 0
            ? ""
            : ` "stamp": "receive" on ${listText(unstamped)} stamps ${unstamped.length === 1 ? "it" : "them"} so (in the panel: the input's Stamp source)${worst.offClockStamps > 0 ? ", or put every node on one clock (use_sim_time)" : ""}.`);
    // When every input concerned has no usable stamp (or every input moves to receive times),
    // their receive-time stamp source gives exactly the repaired run, and with the switch of
    // policy as well exactly the run that counted the two together.
    const stampFix =
      everyInput || unstamped.length === missing.length
        ? {
            stamps: Object.fromEntries(fixed.map((t) => [t, "receive" as const])),
            ...(together == undefined ? { tuples: repaired.tuples } : { policy: together.policy, tuples: together.tuples }),
          }
        : undefined;
    out.push({
      id: "missing-stamps",
      topic: worst.topic,
      setsLost: lost,
      ...(stampFix == undefined ? {} : { stampFix }),
      evidence: Object.fromEntries(
        missing.map((t) => [t.topic, { headerless: t.headerless, zeroStamps: t.zeroStamps, offClockStamps: t.offClockStamps }]),
      ),
      message: `${worst.topic} has ${what}${others}${result}`,
      runs: 1,
    });
  }
  const silent = silentInputCause(input);
  if (silent != undefined) {
    out.push(silent);
  }
  const skewed = clockOffsetCause(input);
  if (skewed != undefined) {
    out.push(skewed);
  }
  const alt = input.bestAlternative;
  if (policy.type.endsWith("exact-time")) {
    const sparse: TopicFacts = facts.topics[facts.sparsestSlot]!;
    if (facts.commonStamps < 0.5 * sparse.messages) {
      const jitter = Math.max(0, ...facts.topics.map((t) => t.jitter ?? 0));
      const lost = alt != undefined ? Math.max(0, alt.first.run.tuples - cur) : 0;
      // How far the stamps are from coinciding: a constant offset (jackal's odometry is stamped
      // 4 ms after an IMU stamp, every time) says more than a jitter of 0 ms.
      const apart = facts.topics
        .filter((t) => t.offsetToSparsest != undefined)
        .sort((a, b) => b.offsetToSparsest!.median - a.offsetToSparsest!.median)[0];
      const gap = apart?.offsetToSparsest;
      const distance =
        apart == undefined || gap == undefined
          ? `the stamps jitter by up to ${msText(jitter)}`
          : gap.max - gap.min <= CONSTANT_OFFSET_NS
            ? `a ${sparse.topic} stamp lies ${msText(gap.median)} from the nearest ${apart.topic} stamp (always: a constant offset, no jitter)`
            : `a ${sparse.topic} stamp lies ${msText(gap.median)} from the nearest ${apart.topic} stamp (median; up to ${msText(gap.max)})`;
      out.push({
        id: "stamps-never-line-up",
        topic: sparse.topic,
        setsLost: lost,
        evidence: { commonStamps: facts.commonStamps, sparsestMessages: sparse.messages, jitter },
        message: `${policy.type} only pairs identical stamps, and only ${countOf(facts.commonStamps, "stamp")} ${facts.commonStamps === 1 ? "occurs" : "occur"} on every input (${distance})${alt != undefined ? `: ${alt.space.type} gives ${countOf(alt.first.run.tuples, "set")} (${countText(lost)} lost)` : ""}.`,
        ...(alt != undefined ? { fix: { policy: policyJson(alt.first.policy, alt.space, trace.slots), tuples: alt.first.run.tuples } } : {}),
      });
    }
  }
  return out;
}

/** Whether the policy matches messages without a header stamp (by their receive time). */
function acceptsHeaderless(policy: PolicyConfig, trace: StampTrace): boolean {
  try {
    return createPolicy(policy, trace.slots, trace.base).acceptsHeaderless;
  } catch {
    return false; // a config the policy rejects: runTrace reports it
  }
}

/**
 * Inputs that give the policy nothing: without a single message, or with messages none of which
 * decodes. Every set needs one message of each input, so the policy can emit none. Costs what the
 * same policy gives over the other inputs alone (its per-slot parameters narrowed to them), when
 * at least two are left and the policy can run on them.
 */
function silentInputCause(input: CauseInput): DiagnosisCause | undefined {
  const { trace, facts, policy, current } = input;
  const silent = facts.topics.filter((t) => t.messages === 0);
  const undecodable = facts.topics.filter((t) => t.messages > 0 && t.undecodable === t.messages);
  if (silent.length + undecodable.length === 0) {
    return undefined;
  }
  const keep = facts.topics.filter((t) => t.messages > t.undecodable).map((t) => t.slot);
  const narrowed = keep.length >= 2 ? narrowToSlots(policy, keep) : undefined;
  let alone: number | undefined;
  if (narrowed != undefined) {
    try {
      alone = runTrace(narrowed, withoutSlots(trace, keep)).tuples;
    } catch {
      alone = undefined; // a policy that needs more inputs than are left
    }
  }
  const parts: string[] = [];
  const checks: string[] = [];
  if (silent.length > 0) {
    const names = listText(silent.map((t) => t.topic));
    const one = silent.length === 1;
    parts.push(`${names} ${one ? "has" : "have"} no message`);
    checks.push(
      `Check that ${names} ${one ? "is published under that name" : "are published under those names"} (remaps, namespaces) and, in a recording, that ${one ? "it was" : "they were"} recorded (\`lockstep info\` lists a recording's topics).`,
    );
  }
  if (undecodable.length > 0) {
    parts.push(`none of ${listText(undecodable.map((t) => `${t.topic}'s ${countOf(t.messages, "message")}`))} decodes`);
    checks.push(`\`lockstep info\` says why ${listText(undecodable.map((t) => t.topic))} ${undecodable.length === 1 ? "does" : "do"} not decode (a missing or different message definition).`);
  }
  const named = [...silent, ...undecodable].sort((a, b) => a.slot - b.slot);
  return {
    id: "silent-input",
    topic: named[0]!.topic,
    setsLost: Math.max(0, (alone ?? 0) - current.tuples),
    evidence: { silent: silent.map((t) => t.topic), undecodable: undecodable.map((t) => t.topic), tuplesWithoutThem: alone ?? null },
    message:
      `${upperFirst(parts.join(", and "))}: every set needs one message of each input, so the policy can emit none` +
      `${alone == undefined ? "" : `; the other inputs alone give ${countOf(alone, "set")}`}. ${checks.join(" ")}`,
    runs: alone == undefined ? 0 : 1,
  };
}

/**
 * The policy config over the slots `keep` only (in that order, renumbered from 0): its per-slot
 * parameters (by its descriptor) keep those slots' entries, a trigger slot is renumbered.
 * Undefined when the config names a slot left out (a trigger on it): no run can stand for it.
 */
function narrowToSlots(policy: PolicyConfig, keep: readonly number[]): PolicyConfig | undefined {
  const out: Record<string, unknown> = { ...(policy as unknown as Record<string, unknown>) };
  for (const p of policyDescriptor(policy.type)?.parameters ?? []) {
    const v = out[p.name];
    const perSlot = p.kind === "perSlotDuration" || p.kind === "perSlotSignedDuration" || (p.kind === "group" && p.perSlotGroup === true);
    if (perSlot && Array.isArray(v) && v.length > 1) {
      out[p.name] = keep.map((slot) => v[slot] as unknown);
    } else if (p.kind === "trigger" && typeof v === "number") {
      const at = keep.indexOf(v);
      if (at < 0) {
        return undefined;
      }
      out[p.name] = at;
    }
  }
  return out as unknown as PolicyConfig;
}

/** The events of the slots `keep` (in that order, renumbered from 0), as their own trace. */
function withoutSlots(trace: StampTrace, keep: readonly number[]): StampTrace {
  const out = new StampTrace(
    keep.map((slot) => trace.topics[slot]!),
    trace.base,
  );
  for (let i = 0; i < trace.length; i++) {
    const k = keep.indexOf(trace.slot(i));
    if (k >= 0) {
      out.add(k, trace.stamp(i), trace.arrival(i), trace.kind(i));
    }
  }
  return out;
}

/**
 * The family's approximate-time policy (started as an alternative is, `alternativeStart`) run on
 * the stamps `stampOverride` repairs, for an exact-time policy: its type, its complete config
 * (`policyJson`) and its sets. Undefined when the configured policy is not exact-time, the family
 * has no approximate-time policy, or it gives no set (python's, whose slop starts at 0, gives none).
 */
function approximateOnRepaired(
  input: CauseInput,
  stampOverride: (i: number) => number | undefined,
): { type: string; policy: Record<string, unknown>; tuples: number } | undefined {
  const { trace, facts, policy } = input;
  if (!policy.type.endsWith("exact-time")) {
    return undefined;
  }
  const space = familyOf(policy.type).find((p) => p.type.endsWith("/approximate-time"));
  if (space == undefined) {
    return undefined;
  }
  const start = alternativeStart(space, policy, facts);
  let tuples: number;
  try {
    tuples = runTrace(start, trace, { stampOverride }).tuples;
  } catch {
    return undefined; // it cannot run on these inputs
  }
  return tuples > 0 ? { type: space.type, policy: policyJson(start, space, trace.slots), tuples } : undefined;
}
