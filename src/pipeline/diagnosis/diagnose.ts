import { policyDescriptor } from "../../filters/policies/descriptors";
import type { Spread } from "../PipelineStats";
import type { PolicyConfig } from "../config";
import type { StampTrace } from "./StampTrace";
import { alternativeStart } from "./alternativeStart";
import type { ParameterValue } from "./candidates";
import { roundDuration } from "./candidates";
import { BEYOND_THE_POLICY, findCauses, isVerdict, onWrongClock, type DiagnosisCause } from "./causes";
import { traceFacts, type TopicFacts, type TraceFacts } from "./facts";
import { countOf, countText, msText, policyJson, valueJson, valueText } from "./format";
import { unsafeBoundSlots } from "./lowerBound";
import { runTrace, type TraceRun } from "./runTrace";
import { searchPolicy, type Evaluation, type PolicySearchResult } from "./search";
import { familyOf, searchSpaceOf, type SearchablePolicy } from "./searchSpace";

/** One suggested policy config and what the policy really gives with it on the recording. */
export interface DiagnosisSuggestion {
  /** A complete policy config (DESIGN §3.2) that `replay` and `analyze` accept. */
  readonly policy: Record<string, unknown>;
  /** Sets the policy emits with it on these stamps (an actual run). */
  readonly tuples: number;
  /** Spread of the sets' timespans (ns). */
  readonly timespan: Spread | null;
  /** Spread of the sets' lag behind the newest input stamp (ns). */
  readonly lag: Spread | null;
  /** The drops it would still have, by reason. */
  readonly drops: Record<string, number>;
  /** What changes: parameter, configured value, suggested value (as JSON). */
  readonly changes: readonly { parameter: string; from: unknown; to: unknown }[];
  /** "first" (smallest change near the best), "most" (the most sets), "lag", or "alternative" (another policy). */
  readonly kind: "first" | "most" | "lag" | "alternative";
  /**
   * What changes, in words: "maxTimespan 5ms → 28ms", or for another policy "ros/approximate-time
   * with queueSize 20". The message opens with it.
   */
  readonly change: string;
  /** `change`, then what it gives ("maxTimespan 5ms → 28ms: 976 sets instead of 82 …"). */
  readonly message: string;
}

/** The answer to "why are sets missing, what to change, and how many sets the change gives". */
export interface Diagnosis {
  readonly policy: string;
  /** Sets the configured policy gives on the recording. */
  readonly tuples: number;
  /** The most sets any searched setting of the configured policy gave. */
  readonly bestTuples: number;
  /** Causes, ranked by the sets each costs. */
  readonly causes: readonly DiagnosisCause[];
  /** Suggestions, best first. */
  readonly suggestions: readonly DiagnosisSuggestion[];
  /** One sentence: the verdict (the first cause, the first change and its result). */
  readonly headline: string;
  /** Per-input facts (period, jitter, latency, backward steps, bursts, clock offsets). */
  readonly facts: readonly TopicFacts[];
  /** Policy runs the search made. */
  readonly runs: number;
  /** Events diagnosed (and events past the trace's capacity, not diagnosed). */
  readonly events: number;
  readonly eventsNotDiagnosed: number;
}

/** Options of `diagnose`. */
export interface DiagnoseOptions {
  /** Also search the other policies of the same library. Default true. */
  readonly alternatives?: boolean;
  /** Fraction of the most sets the first suggestion must reach. Default 0.98. */
  readonly tolerance?: number;
}

/**
 * Diagnoses a policy config on a recording's stamp trace: facts per input, causes ranked by the
 * sets each costs, and suggestions found by re-running the real policy on the trace (so each
 * suggestion's counts are exactly what `replay` and `analyze` give with it). The first suggestion
 * is the smallest change reaching within 2 % of the most sets the policy gives on this data.
 * Pure computation: no I/O, runs in Node, the browser and a Worker.
 */
export function diagnose(trace: StampTrace, policy: PolicyConfig, options: DiagnoseOptions = {}): Diagnosis {
  const facts = traceFacts(trace);
  const space = searchSpaceOf(policy.type);
  const slots = trace.slots;
  if (space == undefined) {
    const run = runTrace(policy, trace);
    const causes = findCauses({ trace, facts, policy, current: run });
    // No stamp parameter to search, but a cause that costs sets (an input that gives nothing, a
    // queue that holds nothing) is still the verdict, and a fix it counted is the suggestion.
    const top = causes.find(isVerdict);
    const fixed = top?.evaluation;
    const suggestions = fixed == undefined ? [] : [suggestionOf(fixed, undefined, slots, "first", changeText(fixed, undefined), `${countOf(fixed.run.tuples, "set")} instead of ${countText(run.tuples)}`)];
    return {
      policy: policy.type,
      tuples: run.tuples,
      bestTuples: Math.max(run.tuples, fixed?.run.tuples ?? 0),
      causes: causes.map(withoutInternals),
      suggestions,
      headline:
        top == undefined
          ? `${policy.type} pairs messages by arrival, not by stamp: nothing in the stamps to tune (${countOf(run.tuples, "set")}).`
          : `${top.message}${suggestions[0] == undefined ? "" : ` Change ${suggestions[0].message}.`}`,
      facts: facts.topics,
      runs: 1 + causes.reduce((n, c) => n + (c.runs ?? 0), 0),
      events: trace.length,
      eventsNotDiagnosed: trace.truncated,
    };
  }
  const tolerance = options.tolerance ?? 0.98;
  const own = searchPolicy(policy, space, trace, facts, { tolerance });
  let runs = own.runs;
  const alternatives: PolicySearchResult[] = [];
  if (options.alternatives !== false) {
    const sparse = facts.topics[facts.sparsestSlot]?.messages ?? 0;
    for (const alt of familyOf(policy.type)) {
      const start = alternativeStart(alt, policy, facts);
      // An exact-time policy can pair at most the stamps common to every input: when those are
      // (almost) none, one run at its defaults shows it, no search needed.
      const hopeless = alt.type.endsWith("exact-time") && facts.commonStamps < 0.01 * sparse;
      try {
        const r = searchPolicy(start, alt, trace, facts, { tolerance, rounds: hopeless ? 0 : 1, skip: hopeless });
        runs += r.runs;
        alternatives.push(r);
      } catch {
        // This alternative cannot run on these inputs (e.g. too few slots): not a suggestion.
      }
    }
  }
  const need = Math.ceil(tolerance * own.best.run.tuples);
  const suggestions: DiagnosisSuggestion[] = [];
  /** The policy config of each suggestion (parsed), in the same order. */
  const suggested: PolicyConfig[] = [];
  const add = (e: Evaluation, s: SearchablePolicy, kind: DiagnosisSuggestion["kind"], change: string, result: string): void => {
    const json = policyJson(e.policy, s, slots);
    if (suggestions.some((x) => JSON.stringify(x.policy) === JSON.stringify(json))) {
      return;
    }
    suggestions.push(suggestionOf(e, s, slots, kind, change, result));
    suggested.push(e.policy);
  };
  const current = own.start.run.tuples;
  if (own.first.changes.length > 0) {
    add(own.first, space, "first", changeText(own.first, space), resultText(own.first, current, own.best.run.tuples));
  }
  if (own.best.changes.length > 0 && own.best.run.tuples > own.first.run.tuples) {
    add(own.best, space, "most", changeText(own.best, space), `${countOf(own.best.run.tuples, "set")}, the most this policy gives here`);
  }
  const lag = lagVariant(own.first, space, trace, facts, need);
  if (lag != undefined) {
    runs++;
    add(
      lag,
      space,
      "lag",
      changeText(lag, space),
      `${countOf(lag.run.tuples, "set")}, emitted sooner (median lag ${msText(lag.run.lag?.median ?? 0)} instead of ${msText(own.first.run.lag?.median ?? 0)})`,
    );
  }
  let bestAlternative: PolicySearchResult | undefined;
  alternatives.sort((a, b) => b.first.run.tuples - a.first.run.tuples);
  for (const alt of alternatives) {
    if (alt.best.run.tuples > 0) {
      const pick = alt.first;
      add(pick, alt.space, "alternative", `${alt.space.type} with ${settingsText(pick, alt.space)}`, countOf(pick.run.tuples, "set"));
      if (bestAlternative == undefined || alt.first.run.tuples > bestAlternative.first.run.tuples) {
        bestAlternative = alt;
      }
    }
  }
  const causes = findCauses({ trace, facts, policy, current: own.start.run, search: own, space, bestAlternative });
  if (onWrongClock(causes)) {
    suggestions.length = 0; // counted across the wrong clock: the cause's clock fix is the answer
  }
  const misformed = causes.find((c) => c.id === "lower-bound-too-large")?.evaluation;
  if (misformed != undefined) {
    // A setting that keeps a bound above an input's shortest gap mis-forms its sets as the
    // configured one does, whatever it counts; the bound set safe is then the first change.
    const safe = suggestions.filter((_, i) => unsafeBoundSlots(suggested[i]!, facts).length === 0);
    if (!safe.some((x) => x.kind === "first")) {
      safe.unshift(suggestionOf(misformed, space, slots, "first", changeText(misformed, space), `${countOf(misformed.run.tuples, "set")} instead of ${countText(current)}, pairing closer stamps`));
    }
    suggestions.splice(0, suggestions.length, ...safe);
  }
  const offsetFix = causes.find((c) => c.id === "queue-offset")?.evaluation;
  if (offsetFix != undefined) {
    // The search counted its settings with the offset kept: a wider slop pairs stamps the offset
    // says lie apart.
    const alternativesOnly = suggestions.filter((s) => s.kind === "alternative");
    suggestions.splice(
      0,
      suggestions.length,
      suggestionOf(offsetFix, space, slots, "first", changeText(offsetFix, space), `${countOf(offsetFix.run.tuples, "set")} instead of ${countText(current)}`),
      ...alternativesOnly,
    );
  }
  runs += causes.reduce((n, c) => n + (c.runs ?? 0), 0);
  const headline = headlineOf(policy, own, causes, suggestions, bestAlternative);
  return {
    policy: policy.type,
    tuples: current,
    bestTuples: own.best.run.tuples,
    causes: causes.map(withoutInternals),
    suggestions,
    headline,
    facts: facts.topics,
    runs,
    events: trace.length,
    eventsNotDiagnosed: trace.truncated,
  };
}

/**
 * The human lines `lockstep doctor` prints: the headline, the causes that cost sets (or block or
 * mis-form them), the facts that cost none as notes, the suggestions and the inputs' facts.
 */
export function describeDiagnosis(d: Diagnosis): string[] {
  const lines = [d.headline];
  const line = (c: DiagnosisCause): string => `  ${c.id}${c.topic == undefined ? "" : ` (${c.topic})`}: ${c.message}`;
  // A fact that costs no sets (a slow topic, stamps ahead of the recorder's clock) explains the
  // stamps; under "sets each costs" it would read as something to fix.
  const causes = d.causes.filter(isVerdict);
  const notes = d.causes.filter((c) => !isVerdict(c));
  if (causes.length > 0) {
    lines.push("causes (sets each costs):", ...causes.map(line));
  }
  if (notes.length > 0) {
    lines.push("notes (facts that cost no sets):", ...notes.map(line));
  }
  if (d.suggestions.length > 0) {
    lines.push("suggestions (best first; counts are actual runs on these stamps):");
    d.suggestions.forEach((s, i) => {
      lines.push(`  ${i + 1}. ${s.message}`);
      lines.push(`     ${JSON.stringify(s.policy)}`);
    });
  }
  lines.push("inputs:");
  for (const t of d.facts) {
    const parts = [countOf(t.messages, "msg")];
    if (t.rateHz != undefined) {
      parts.push(hz(t.rateHz));
    }
    if (t.period) {
      parts.push(`period ${msText(t.period.median)} (jitter ${msText(t.jitter ?? 0)})`);
    }
    if (t.latency) {
      parts.push(`latency ${msText(t.latency.min)} / ${msText(t.latency.median)} / ${msText(t.latency.max)}`);
    }
    if (t.backwardSteps > 0) {
      parts.push(countOf(t.backwardSteps, "backward step"));
    }
    if (t.futureStamps > 0) {
      parts.push(`${countOf(t.futureStamps, "stamp")} in the future of their receive time`);
    }
    if (t.headerless + t.zeroStamps > 0) {
      parts.push(`${countText(t.headerless)} without header, ${countOf(t.zeroStamps, "zero stamp")}`);
    }
    if (t.offClockStamps > 0) {
      parts.push(`${countOf(t.offClockStamps, "stamp")} off the time base (another clock, or not a time)`);
    }
    if (t.undecodable > 0) {
      parts.push(`${countText(t.undecodable)} undecodable`);
    }
    lines.push(`  ${t.topic} [slot ${t.slot}]: ${parts.join(", ")}`);
  }
  if (d.eventsNotDiagnosed > 0) {
    lines.push(`(only the first ${countText(d.events)} input messages were diagnosed; ${countText(d.eventsNotDiagnosed)} more were not)`);
  }
  return lines;
}

/** A cause as the diagnosis gives it: without the fields only the diagnosis itself reads. */
function withoutInternals({ runs: _runs, evaluation: _evaluation, ...cause }: DiagnosisCause): DiagnosisCause {
  return cause;
}

function hz(rate: number): string {
  return `${rate >= 20 ? Math.round(rate) : rate.toFixed(1)} Hz`;
}

function suggestionOf(
  e: Evaluation,
  space: SearchablePolicy | undefined,
  slots: number,
  kind: DiagnosisSuggestion["kind"],
  change: string,
  result: string,
): DiagnosisSuggestion {
  return {
    policy: policyJson(e.policy, space, slots),
    tuples: e.run.tuples,
    timespan: e.run.timespan,
    lag: e.run.lag,
    drops: { ...e.run.drops },
    changes: e.changes.map((c) => {
      const p = parameterOf(e, c.name, space);
      return { parameter: c.name, from: valueJson(p?.kind ?? "", c.from) ?? null, to: valueJson(p?.kind ?? "", c.to) };
    }),
    kind,
    change,
    message: `${change}: ${result}`,
  };
}

/**
 * A parameter of the evaluated policy: from the search space, or from its descriptor for one the
 * search does not vary (queueOffset). Without a search space (an arrival-matched policy) none:
 * its values are written as given, where a count of 0 is not "unlimited" (fkie/fifo).
 */
function parameterOf(e: Evaluation, name: string, space: SearchablePolicy | undefined): { kind: string; minimum?: number } | undefined {
  return space == undefined ? undefined : (space.parameters.find((q) => q.name === name) ?? policyDescriptor(e.policy.type)?.parameters.find((q) => q.name === name));
}

/** "queueSize 10 → 27" (several changes joined with ", "). */
export function changeText(e: Evaluation, space: SearchablePolicy | undefined): string {
  return e.changes
    .map((c) => {
      const p = parameterOf(e, c.name, space);
      return `${c.name} ${valueText(p?.kind ?? "", c.from, p?.minimum)} → ${valueText(p?.kind ?? "", c.to, p?.minimum)}`;
    })
    .join(", ");
}

function settingsText(e: Evaluation, space: SearchablePolicy): string {
  const rec = e.policy as unknown as Record<string, unknown>;
  const parts: string[] = [];
  for (const p of space.parameters) {
    const v = rec[p.name] as ParameterValue | undefined;
    // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) is a value here, unlike undefined (absent)
    if (v !== undefined) {
      parts.push(`${p.name} ${valueText(p.kind, v, p.minimum)}`);
    }
  }
  return parts.length > 0 ? parts.join(", ") : "its defaults";
}

function resultText(e: Evaluation, current: number, most: number): string {
  const tail = e.run.tuples >= most ? "the most this policy gives here" : `the most this policy gives here is ${countText(most)}`;
  return `${countOf(e.run.tuples, "set")} instead of ${countText(current)} (${tail})`;
}

/**
 * For policies whose per-slot lower bound lets them emit without waiting for the next message
 * (fkie minDistance, ROS interMessageLowerBound): the first suggestion with the bound set just
 * below each input's shortest stamp gap, when it keeps the sets and cuts the lag by a fifth.
 */
function lagVariant(
  first: Evaluation,
  space: SearchablePolicy,
  trace: StampTrace,
  facts: TraceFacts,
  need: number,
): Evaluation | undefined {
  const p = space.parameters.find((q) => q.kind === "perSlotDuration");
  if (p == undefined) {
    return undefined;
  }
  const bound = facts.topics.map((t) => roundDuration(0.9 * (t.period?.min ?? 0)));
  if (bound.every((b) => b === 0)) {
    return undefined;
  }
  const policy = { ...first.policy, [p.name]: bound };
  if (JSON.stringify(policy) === JSON.stringify(first.policy)) {
    return undefined;
  }
  let run: TraceRun;
  try {
    run = runTrace(policy, trace);
  } catch {
    return undefined;
  }
  const before = first.run.lag?.median ?? 0;
  const after = run.lag?.median ?? 0;
  if (run.tuples < need || !(before > 0) || after > 0.8 * before) {
    return undefined;
  }
  const from = (first.policy as unknown as Record<string, unknown>)[p.name] as ParameterValue | undefined;
  return {
    policy,
    run,
    changes: [...first.changes.filter((c) => c.name !== p.name), { name: p.name, from: from ?? new Array<number>(trace.slots).fill(0), to: bound }],
    changeSize: first.changeSize + 1,
  };
}

function headlineOf(
  policy: PolicyConfig,
  own: PolicySearchResult,
  causes: readonly DiagnosisCause[],
  suggestions: readonly DiagnosisSuggestion[],
  alternative: PolicySearchResult | undefined,
): string {
  const cur = own.start.run.tuples;
  const top = causes.find(isVerdict);
  const first = suggestions.find((s) => s.kind === "first");
  const parts: string[] = [];
  if (top) {
    parts.push(top.message);
  }
  if (top != undefined && BEYOND_THE_POLICY.has(top.id)) {
    return parts.join(" "); // the cause says what to change
  }
  if (top?.fix != undefined && first != undefined && JSON.stringify(first.policy) === JSON.stringify(top.fix.policy)) {
    // The cause already says the change and the sets it gives; a bound set safe is measured by
    // its sets' spans, not against the most sets an unsafe setting counts.
    if (top.evaluation == undefined) {
      const most = own.best.run.tuples;
      parts.push(first.tuples >= most ? "That is the most this policy gives here." : `The most this policy gives here is ${countText(most)} (${changeText(own.best, own.space)}).`);
    }
    return parts.join(" ");
  }
  const better = alternative != undefined && alternative.first.run.tuples > 2 * own.best.run.tuples;
  if (first) {
    parts.push(`Change ${first.message}.`);
  } else if (better) {
    const alt = suggestions.find((s) => s.kind === "alternative");
    parts.push(
      `No searched setting of ${policy.type} gives more than ${countOf(own.best.run.tuples, "set")} on these stamps; switch to ${alt?.message ?? alternative.space.type}.`,
    );
    return parts.join(" ");
  } else if (top) {
    // What the cause costs, no parameter recovers: "already gives" would read as all is well.
    parts.push(`No searched setting of ${policy.type} recovers them (the most any gives is ${countText(own.best.run.tuples)}).`);
  } else {
    parts.push(`${policy.type} already gives ${countOf(cur, "set")}, within 2 % of the most any searched setting gives (${countText(own.best.run.tuples)}).`);
  }
  if (better) {
    parts.push(
      `No setting of ${policy.type} gives more than ${countOf(own.best.run.tuples, "set")} on these stamps; ${alternative.space.type} gives ${countText(alternative.first.run.tuples)}.`,
    );
  }
  return parts.join(" ");
}
