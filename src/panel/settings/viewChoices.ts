import { isRecord } from "./isRecord";
import { POLICY_TYPES } from "./policyParams";
import { RAW_PLACEMENTS } from "../../pipeline";
import type { RawPlacement } from "../state/startAlignment";

/**
 * The panel's view choices, saved with its layout as the config's `view` (DESIGN §3.2): which tab
 * is open, the Compare tab's policy, where the trajectory tab draws raw odometry. They change what
 * is shown, never what is computed (`analysisKey` leaves them out), and the CLI ignores them.
 */
export interface ViewChoices {
  /** The open tab's id. */
  readonly tab?: string;
  /** The policy type the Compare tab runs beside the configured one. */
  readonly compare?: string;
  /** Where the trajectory tab draws raw odometry. */
  readonly rawPlacement?: RawPlacement;
}

/** The Compare tab's policy when none was chosen. */
export const DEFAULT_COMPARE_TYPE = "ros/approximate-time";

/**
 * The choices of a saved `view` that still mean something: a tab id as a string, a policy type
 * this version knows, a known placement. Anything else (a layout from another version, a
 * hand-edited one) is left out and takes its default, so that a saved view can never stop the
 * panel. Undefined when nothing is left. Never throws.
 */
export function viewChoicesOf(saved: unknown): ViewChoices | undefined {
  if (!isRecord(saved)) {
    return undefined;
  }
  const { tab, compare, rawPlacement } = saved;
  const out: { tab?: string; compare?: string; rawPlacement?: RawPlacement } = {};
  if (typeof tab === "string" && tab !== "") {
    out.tab = tab;
  }
  if (typeof compare === "string" && POLICY_TYPES.includes(compare)) {
    out.compare = compare;
  }
  if (RAW_PLACEMENTS.some((p) => p === rawPlacement)) {
    out.rawPlacement = rawPlacement as RawPlacement;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
