import type { PolicyConfig } from "../config";
import type { StampTrace } from "./StampTrace";
import { candidatesFor, changeSize, defaultValue, type ParameterValue } from "./candidates";
import type { TraceFacts } from "./facts";
import { farApartTest } from "./farApart";
import { runTrace, type TraceRun } from "./runTrace";
import type { SearchablePolicy } from "./searchSpace";

/** One parameter that differs from the configured policy. */
export interface ParameterChange {
  readonly name: string;
  /** The configured value (undefined = the library default, which `from` then shows). */
  readonly from: ParameterValue | undefined;
  readonly to: ParameterValue;
}

/** A policy config and what the policy really emitted with it on the trace. */
export interface Evaluation {
  readonly policy: PolicyConfig;
  readonly run: TraceRun;
  /** Parameters that differ from the starting config, in the descriptor's order. */
  readonly changes: readonly ParameterChange[];
  /** Sum of the changes' sizes (see `changeSize`); 0 for the starting config. */
  readonly changeSize: number;
}

/** What searching one policy's parameters found. */
export interface PolicySearchResult {
  readonly space: SearchablePolicy;
  /** The starting config, evaluated. */
  readonly start: Evaluation;
  /** The most sets any evaluated setting gave (and, among those, the smallest change). */
  readonly best: Evaluation;
  /**
   * The smallest change that reaches within `tolerance` of `best` (the start itself when it
   * already does).
   */
  readonly first: Evaluation;
  /** Per parameter: the best setting found changing that parameter alone (only when it helps). */
  readonly alone: ReadonlyMap<string, Evaluation>;
  /** Policy runs made. */
  readonly runs: number;
}

/** Options of `searchPolicy`. */
export interface SearchOptions {
  /** Fraction of the most sets the first suggestion must reach. Default 0.98. */
  readonly tolerance?: number;
  /** Rounds of coordinate ascent. Default 2. */
  readonly rounds?: number;
  /** Only evaluate the starting config (no search). Default false. */
  readonly skip?: boolean;
}

/**
 * Searches a policy's parameters on a trace by running the real policy (`runTrace`) on each
 * candidate setting: coordinate ascent over data-scaled candidate grids, then bisection of the
 * winning change back toward the start, so the first suggestion is the smallest change found
 * that reaches `tolerance` × the most sets. Every figure in the result comes from an actual run.
 * Only settings within the parameters' bounds are tried, and a setting the policy class rejects
 * is skipped, so each suggested config is one `parseConfig` and `createPolicy` accept. A setting
 * whose sets pair stamps far apart (`farApartTest`) is never the best, the first or a
 * parameter's own best: it counts sets of messages that are not each other's partners.
 */
export function searchPolicy(
  start: PolicyConfig,
  space: SearchablePolicy,
  trace: StampTrace,
  facts: TraceFacts,
  options: SearchOptions = {},
): PolicySearchResult {
  const tolerance = options.tolerance ?? 0.98;
  const rounds = options.rounds ?? 2;
  const slots = trace.slots;
  const params = options.skip === true ? [] : space.parameters.filter((p) => relevant(p.name, facts));
  const startValues = new Map<string, ParameterValue | undefined>();
  for (const p of space.parameters) {
    const v = (start as unknown as Record<string, unknown>)[p.name] as ParameterValue | undefined;
    startValues.set(p.name, v ?? defaultValue(p, slots));
  }
  const cache = new Map<string, Evaluation | null>();
  // A setting whose sets pair stamps far apart is no answer, however many it counts.
  const farApart = farApartTest(facts);
  const partnered = (e: Evaluation): boolean => !farApart(e.run);
  let runs = 0;
  const evaluate = (policy: PolicyConfig): Evaluation | undefined => {
    const key = JSON.stringify(policy);
    const hit = cache.get(key);
    // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) is a value here, unlike undefined (absent)
    if (hit !== undefined) {
      return hit ?? undefined;
    }
    let run: TraceRun;
    try {
      runs++;
      run = runTrace(policy, trace);
    } catch {
      cache.set(key, null);
      return undefined;
    }
    const changes: ParameterChange[] = [];
    let size = 0;
    for (const p of space.parameters) {
      const from = startValues.get(p.name);
      const to = (policy as unknown as Record<string, unknown>)[p.name] as ParameterValue | undefined;
      const value = to ?? defaultValue(p, slots);
      // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) is a value here, unlike undefined (absent)
      if (value !== undefined && JSON.stringify(value) !== JSON.stringify(from)) {
        changes.push({ name: p.name, from: (start as unknown as Record<string, unknown>)[p.name] as ParameterValue | undefined ?? from, to: value });
        size += changeSize(p, from, value);
      }
    }
    const e: Evaluation = { policy, run, changes, changeSize: size };
    cache.set(key, e);
    return e;
  };
  const withValue = (policy: PolicyConfig, name: string, value: ParameterValue): PolicyConfig =>
    ({ ...policy, [name]: value });

  const first0 = evaluate(start);
  if (first0 == undefined) {
    throw new RangeError(`the configured ${start.type} policy cannot run on these inputs`);
  }
  // Each parameter alone, from the start: what each one costs (the causes).
  const alone = new Map<string, Evaluation>();
  for (const p of params) {
    const current = startValues.get(p.name);
    let bestHere = first0;
    for (const v of candidatesFor(p, current, facts)) {
      const e = evaluate(withValue(start, p.name, v));
      if (e != undefined && partnered(e) && better(e, bestHere)) {
        bestHere = e;
      }
    }
    if (bestHere.run.tuples > first0.run.tuples) {
      alone.set(
        p.name,
        bisectBack(smallestReaching(p.name, bestHere, first0, tolerance, cache, partnered), first0, bestHere, tolerance, space, evaluate, partnered),
      );
    }
  }
  // Then coordinate ascent from the best of those, for settings that need several changes.
  let x = first0;
  for (const e of alone.values()) {
    if (better(e, x)) {
      x = e;
    }
  }
  for (let round = 0; round < rounds; round++) {
    let moved = false;
    for (const p of params) {
      const current = (x.policy as unknown as Record<string, unknown>)[p.name] as ParameterValue | undefined;
      let bestHere = x;
      for (const v of candidatesFor(p, current ?? defaultValue(p, slots), facts)) {
        const e = evaluate(withValue(x.policy, p.name, v));
        if (e != undefined && better(e, bestHere)) {
          bestHere = e;
        }
      }
      if (bestHere !== x) {
        x = bestHere;
        moved = true;
      }
    }
    if (!moved) {
      break;
    }
  }
  const all = [...cache.values()].filter((e): e is Evaluation => e != undefined && partnered(e));
  let best = first0;
  for (const e of all) {
    if (better(e, best)) {
      best = e;
    }
  }
  const first = smallestReaching(undefined, best, first0, tolerance, cache, partnered);
  return { space, start: first0, best, first: bisectBack(first, first0, best, tolerance, space, evaluate, partnered), alone, runs };
}

/** More sets; on a tie, the smaller change; then the lower median lag. */
function better(a: Evaluation, b: Evaluation): boolean {
  if (a.run.tuples !== b.run.tuples) {
    return a.run.tuples > b.run.tuples;
  }
  if (a.changes.length !== b.changes.length) {
    return a.changes.length < b.changes.length;
  }
  if (a.changeSize !== b.changeSize) {
    return a.changeSize < b.changeSize;
  }
  return (a.run.lag?.median ?? 0) < (b.run.lag?.median ?? 0);
}

/**
 * Among the evaluated settings that `eligible` accepts (those changing only `only`, when given),
 * the smallest change reaching `tolerance` × `target`'s sets: fewest parameters changed, then the
 * smallest change.
 */
function smallestReaching(
  only: string | undefined,
  target: Evaluation,
  start: Evaluation,
  tolerance: number,
  cache: Map<string, Evaluation | null>,
  eligible: (e: Evaluation) => boolean,
): Evaluation {
  const need = Math.ceil(tolerance * target.run.tuples);
  if (start.run.tuples >= need) {
    return start;
  }
  let pick = target;
  for (const e of cache.values()) {
    if (e == undefined || e.run.tuples < need || !eligible(e)) {
      continue;
    }
    if (only != undefined && (e.changes.length !== 1 || e.changes[0]!.name !== only)) {
      continue;
    }
    const fewer = e.changes.length < pick.changes.length;
    const same = e.changes.length === pick.changes.length;
    if (fewer || (same && (e.changeSize < pick.changeSize || (e.changeSize === pick.changeSize && e.run.tuples > pick.run.tuples)))) {
      pick = e;
    }
  }
  return pick;
}

/**
 * Moves each changed count or duration of `pick` back toward the start by bisection while the
 * policy still gives `tolerance` × `best`'s sets (each probe an actual run).
 */
function bisectBack(
  pick: Evaluation,
  start: Evaluation,
  best: Evaluation,
  tolerance: number,
  space: SearchablePolicy,
  evaluate: (p: PolicyConfig) => Evaluation | undefined,
  eligible: (e: Evaluation) => boolean,
): Evaluation {
  const need = Math.ceil(tolerance * best.run.tuples);
  let current = pick;
  for (const change of pick.changes) {
    const p = space.parameters.find((q) => q.name === change.name);
    if (p == undefined || (p.kind !== "count" && p.kind !== "duration" && p.kind !== "nullableDuration")) {
      continue;
    }
    const from = (start.policy as unknown as Record<string, unknown>)[p.name] ?? p.default;
    const to = change.to;
    if (typeof from !== "number" || typeof to !== "number") {
      continue;
    }
    if (p.kind === "count" && (from === 0 || to === 0) && (p.minimum ?? 0) === 0) {
      continue; // 0 = unlimited: not between two sizes
    }
    // `ok` passes, `bad` does not (the start value, or the last failing probe).
    let ok = to;
    let bad = from;
    for (let step = 0; step < 24; step++) {
      const mid = p.kind === "count" ? Math.round((ok + bad) / 2) : roundMid(ok, bad);
      if (mid === ok || mid === bad || (p.kind !== "count" && Math.abs(ok - bad) <= durationResolution(ok))) {
        break;
      }
      const e = evaluate({ ...current.policy, [p.name]: mid });
      if (e != undefined && e.run.tuples >= need && eligible(e)) {
        ok = mid;
        current = e;
      } else {
        bad = mid;
      }
    }
  }
  return current;
}

/**
 * The precision a user writes a duration with, two significant digits: whole ms from 10 ms,
 * tenths of a ms from 1 ms ("8900us", not "8927us"), and so on down to whole ns below 10 µs.
 */
export function durationResolution(ns: number): number {
  for (let unit = 1_000_000; unit >= 1000; unit /= 10) {
    if (ns >= 10 * unit) {
      return unit;
    }
  }
  return 1;
}

/** A midpoint of two durations, rounded to the precision of the larger. */
function roundMid(a: number, b: number): number {
  const unit = durationResolution(Math.max(a, b));
  return Math.round((a + b) / 2 / unit) * unit;
}

/** Parameters worth searching on this data (booleans only when the stamps can make them matter). */
function relevant(name: string, facts: TraceFacts): boolean {
  if (name === "ros1OutOfOrder") {
    return facts.topics.some((t) => t.backwardSteps > 0);
  }
  if (name === "allowHeaderless") {
    return facts.topics.some((t) => t.headerless > 0);
  }
  return true;
}
