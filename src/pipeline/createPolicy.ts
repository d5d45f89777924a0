import type { CombinerPolicy } from "../filters/policies/CombinerPolicy";
import { policyDescriptor } from "../filters/policies/descriptors";
import { previewValue, type TimeBase } from "../time";
import { ConfigError } from "./ConfigError";
import type { PolicyConfig } from "./config";

/**
 * Builds the combiner policy a (validated, see `parseConfig`) policy config describes, for
 * `slots` inputs whose stamps are relative to `timeBase`, with its descriptor's `create`.
 *
 * Parameters the config leaves out are left out of the options too, so each class applies its
 * library's default. Every policy gets `zero = timeBase.zero`, so the libraries' "stamp 0 means
 * unset" quirks keep their meaning at epoch scale.
 *
 * Throws ConfigError (path "/policy" or "/policy/type") when the type is unknown or the policy
 * class rejects the parameters or the slot count (e.g. ROS ApproximateTime needs 2 slots or more).
 *
 * ```ts
 * const policy = createPolicy<Msg>(config.policy, config.slots, TimeBase.forFirstStamp(first));
 * policy.bind(host);
 * ```
 */
export function createPolicy<T>(
  policy: PolicyConfig,
  slots: number,
  timeBase: TimeBase,
): CombinerPolicy<T> {
  const descriptor = policyDescriptor(policy.type);
  if (!descriptor) {
    throw new ConfigError([
      {
        path: "/policy/type",
        message: `unknown policy ${previewValue((policy as { type: unknown }).type)}`,
      },
    ]);
  }
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(policy)) {
    // `null` is a value here (it means "unlimited"), so only undefined is skipped.
    // eslint-disable-next-line @foxglove/strict-equality
    if (key !== "type" && value !== undefined) {
      params[key] = value;
    }
  }
  try {
    return descriptor.create(slots, params, timeBase.zero);
  } catch (err) {
    if (err instanceof RangeError) {
      throw new ConfigError([{ path: "/policy", message: err.message }]);
    }
    throw err;
  }
}
