import { isRecord } from "./isRecord";
import { viewChoicesOf, type ViewChoices } from "./viewChoices";

/**
 * The panel's saved state: exactly the pipeline config JSON of DESIGN §3.2 (the same file the CLI
 * reads and the presets are). The panel keeps it as plain JSON — including values the user typed
 * that do not validate yet — so that the error can be shown on the field that holds it.
 */
export interface LockstepConfig {
  /** Input slots in order (slot i = inputs[i]); `stamp` is the stamp source (absent = header). */
  inputs: { topic: string; stamp?: string }[];
  /** `type` plus that policy's parameters (see policyParams.ts). */
  policy: { type: string } & Record<string, unknown>;
  buffer?: { policy?: string; maxQueueSize?: unknown } & Record<string, unknown>;
  transforms?: unknown[];
  fusion?: Record<string, unknown>;
  publish?: { enabled?: boolean; namespace?: string } & Record<string, unknown>;
  /** The panel's view choices (see ViewChoices). */
  view?: ViewChoices;
  [key: string]: unknown;
}

/** Namespace used when the config does not name one. */
export const DEFAULT_NAMESPACE = "/lockstep";

/** The config a new panel starts with: no inputs yet, fkie ApproximateTime, publishing off. */
export function defaultConfig(): LockstepConfig {
  return {
    inputs: [],
    policy: { type: "fkie/approximate-time" },
    publish: { enabled: false, namespace: DEFAULT_NAMESPACE },
  };
}

/**
 * The config to start from, given the host's `initialState` (whatever a layout saved, possibly
 * from an older version or hand-edited): a deep copy of it when it is an object, with `inputs` and
 * `policy` filled in when missing or malformed and `view` reduced to the choices that still mean
 * something (`viewChoicesOf`); the default config otherwise. Never throws.
 */
export function configFromState(state: unknown): LockstepConfig {
  if (!isRecord(state)) {
    return defaultConfig();
  }
  const copy = JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
  const inputs = Array.isArray(copy.inputs)
    ? copy.inputs.map((i) => ({ ...(isRecord(i) ? i : {}), topic: isRecord(i) && typeof i.topic === "string" ? i.topic : "" }))
    : [];
  const policy =
    isRecord(copy.policy) && typeof copy.policy.type === "string"
      ? (copy.policy as LockstepConfig["policy"])
      : { type: "fkie/approximate-time" };
  const view = viewChoicesOf(copy.view);
  delete copy.view;
  return { ...copy, inputs, policy, ...(view == undefined ? {} : { view }) };
}

/** The namespace to publish under (config value or the default), without a trailing slash. */
export function publishNamespace(config: LockstepConfig): string {
  const ns = typeof config.publish?.namespace === "string" && config.publish.namespace !== "" ? config.publish.namespace : DEFAULT_NAMESPACE;
  return ns.replace(/\/+$/, "");
}
