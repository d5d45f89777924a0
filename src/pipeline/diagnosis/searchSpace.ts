import type { ParameterDescriptor } from "../../filters/policies/PolicyDescriptor";
import { POLICY_DESCRIPTORS } from "../../filters/policies/descriptors";
import { parseDuration } from "../../time";

/**
 * The part of a policy parameter's description the search reads: its JSON key, kind, bounds
 * and library default (in the parsed form: durations in ns): the part of the policy descriptors'
 * `ParameterDescriptor` the search needs.
 */
export interface SearchableParameter {
  readonly name: string;
  readonly kind: string;
  readonly required?: boolean;
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
}

/** The part of a policy descriptor the search reads (a subset of `PolicyDescriptor`). */
export interface SearchablePolicy {
  readonly type: string;
  readonly family: string;
  readonly parameters: readonly SearchableParameter[];
}

/** Policies that pair messages by arrival or trigger, not by stamp: nothing in the stamps tunes them. */
const ARRIVAL_MATCHED = new Set(["fkie/fifo", "fkie/latch", "ros/latest-time"]);
/** Parameter kinds the search knows how to vary. */
const SEARCHED_KINDS = new Set(["count", "number", "boolean", "duration", "nullableDuration", "perSlotDuration"]);
/**
 * Parameters left alone: they change what is matched (arrival times instead of stamps) or only
 * fix a library quirk, so more sets from them would not be a better synchronization.
 */
const NOT_SEARCHED = new Set(["syncArrivalTime", "fixFirstArrivalOrder"]);
const DURATION_KINDS = new Set(["duration", "nullableDuration", "perSlotDuration"]);

/** A descriptor default in the parsed form (durations in ns). */
function parsedDefault(p: ParameterDescriptor): unknown {
  if (p.default == undefined || !DURATION_KINDS.has(p.kind)) {
    return p.default;
  }
  return parseDuration(p.default, p.name);
}

/**
 * The diagnosis search space: every stamp-matching policy's searchable parameters, derived from
 * the policy descriptors (their kinds, bounds and library defaults), defaults as `parseConfig`
 * gives values (durations in ns).
 */
export const SEARCH_SPACE: readonly SearchablePolicy[] = POLICY_DESCRIPTORS.filter((d) => !ARRIVAL_MATCHED.has(d.type)).map(
  (d) => ({
    type: d.type,
    family: d.family,
    parameters: (d.parameters as readonly ParameterDescriptor[])
      .filter((p) => SEARCHED_KINDS.has(p.kind) && !NOT_SEARCHED.has(p.name))
      .map((p) => ({
        name: p.name,
        kind: p.kind,
        ...(p.required === true ? { required: true } : {}),
        // eslint-disable-next-line @foxglove/strict-equality -- a null default (unlimited) is kept
        ...(p.default === undefined ? {} : { default: parsedDefault(p) }),
        ...(p.minimum == undefined ? {} : { minimum: p.minimum }),
        ...(p.maximum == undefined ? {} : { maximum: p.maximum }),
      })),
  }),
);

/** The searchable description of a policy type, or undefined when nothing about it is tuned by stamps. */
export function searchSpaceOf(type: string): SearchablePolicy | undefined {
  return SEARCH_SPACE.find((p) => p.type === type);
}

/** The other stamp-matching policies of the same library (alternatives to suggest). */
export function familyOf(type: string): SearchablePolicy[] {
  const own = searchSpaceOf(type);
  return own == undefined ? [] : SEARCH_SPACE.filter((p) => p.family === own.family && p.type !== type);
}
