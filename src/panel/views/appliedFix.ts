import { countOf, countText, listText } from "../../pipeline/diagnosis/format";
import type { WholeRecording } from "../hooks/useAnalysis";
import type { LockstepConfig } from "../settings/panelConfig";

/**
 * A fix the diagnosis offered and the user applied ("Apply"), kept so that the diagnosis tab can
 * set what the analysis gives with it beside what the diagnosis predicted: a suggestion's
 * complete `policy`, or a cause's input `stamps` sources by topic, with a complete `policy` too
 * when the stamps alone give no set.
 */
export type AppliedFix = {
  /** What changes, as the diagnosis words it (a suggestion's `change`, "maxTimespan 5ms → 28ms"). */
  readonly change: string;
  /** Sets the diagnosis counted with the fix (an actual run on the stamps it diagnosed). */
  readonly predicted: number;
  /** Sets the configured policy gave on those stamps, before the fix. */
  readonly before: number;
  /** Input messages the diagnosis covered. */
  readonly events: number;
} & (
  | { readonly policy: Record<string, unknown>; readonly stamps?: Readonly<Record<string, string>> }
  | { readonly stamps: Readonly<Record<string, string>>; readonly policy?: undefined }
);

/**
 * A cause's stamp fix as the diagnosis tab names it: "/fix stamped by receive time", or with a
 * policy to switch to as well "ros/approximate-time, with /cmd_vel stamped by receive time".
 */
export function stampFixText(fix: { readonly stamps: Readonly<Record<string, string>>; readonly policy?: Record<string, unknown> }): string {
  const sources = [...new Set(Object.values(fix.stamps))];
  const stamped = `${listText(Object.keys(fix.stamps))} stamped by ${sources.length === 1 && sources[0] === "receive" ? "receive time" : `stamp source ${listText(sources)}`}`;
  return fix.policy == undefined ? stamped : `${String(fix.policy.type)}, with ${stamped}`;
}

/**
 * Whether the panel's config still has the fix: the same policy (as JSON) and every stamp source
 * it set, of those it has. An edit that undoes or changes it ends the comparison, as the results
 * then answer another config.
 */
export function fixInForce(fix: AppliedFix, config: LockstepConfig): boolean {
  const policyKept = fix.policy == undefined || JSON.stringify(config.policy) === JSON.stringify(fix.policy);
  const stamps = fix.stamps ?? {};
  return policyKept && Object.entries(stamps).every(([topic, stamp]) => config.inputs.some((i) => i.topic === topic && i.stamp === stamp));
}

/** What the analysis has given so far with the fix in force. */
export interface AnalysisSoFar {
  /** Sets so far (undefined before any result). */
  readonly sets: number | undefined;
  /** Input messages analyzed so far. */
  readonly messages: number;
  readonly whole: WholeRecording;
}

/**
 * One sentence setting the analysis with the fix beside the diagnosis's prediction: the count of
 * a whole-recording analysis that ran to the end, else the count so far and what to do for the
 * whole one.
 */
export function appliedFixText(fix: AppliedFix, now: AnalysisSoFar): string {
  const predicted = `the diagnosis predicted ${countOf(fix.predicted, "set")} on the ${countText(fix.events)} messages it covered, ${countText(fix.before)} before`;
  if (now.whole.state === "done" && !now.whole.cancelled) {
    return `Applied ${fix.change}: ${countOf(now.sets ?? 0, "set")} on the whole recording's ${countText(now.messages)} messages (${predicted}).`;
  }
  const soFar = now.sets == undefined ? "no results yet" : `${countOf(now.sets, "set")} on the ${countText(now.messages)} messages so far`;
  const next =
    now.whole.state === "running" ? "the whole-recording analysis is running" : "analyze the whole recording (above) to compare the same messages";
  return `Applied ${fix.change}: ${soFar} (${predicted}); ${next}.`;
}
