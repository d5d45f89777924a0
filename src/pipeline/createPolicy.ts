import type { CombinerPolicy } from "../filters/policies/CombinerPolicy";
import { ApproximateTime as FkieApproximateTime } from "../filters/policies/fkie/ApproximateTime";
import { ExactTime as FkieExactTime } from "../filters/policies/fkie/ExactTime";
import { Fifo } from "../filters/policies/fkie/Fifo";
import { Latch } from "../filters/policies/fkie/Latch";
import { ApproximateTime as PythonApproximateTime } from "../filters/policies/python/ApproximateTime";
import { ExactTime as PythonExactTime } from "../filters/policies/python/ExactTime";
import { ApproximateEpsilonTime } from "../filters/policies/ros/ApproximateEpsilonTime";
import { ApproximateTime as RosApproximateTime } from "../filters/policies/ros/ApproximateTime";
import { ExactTime as RosExactTime } from "../filters/policies/ros/ExactTime";
import { LatestTime } from "../filters/policies/ros/LatestTime";
import type { TimeBase } from "../time";
import { ConfigError } from "./ConfigError";
import type { PolicyConfig } from "./config";

/**
 * Builds the combiner policy a (validated, see `parseConfig`) policy config describes, for
 * `slots` inputs whose stamps are relative to `timeBase`.
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
  const zero = timeBase.zero;
  try {
    switch (policy.type) {
      case "fkie/approximate-time":
        return new FkieApproximateTime<T>(slots, {
          ...pick(policy, [
            "maxQueueSize",
            "maxAge",
            "maxTimespan",
            "minDistance",
            "ros1OutOfOrder",
          ]),
          zero,
        });
      case "ros/approximate-time":
        return new RosApproximateTime<T>(slots, {
          queueSize: policy.queueSize,
          ...pick(policy, ["agePenalty", "interMessageLowerBound", "maxIntervalDuration"]),
          zero,
        });
      case "fkie/exact-time":
        return new FkieExactTime<T>(slots, { ...pick(policy, ["maxQueueSize", "maxAge"]), zero });
      case "fkie/fifo":
        return new Fifo<T>(slots, pick(policy, ["maxQueueSize"]));
      case "fkie/latch":
        return new Latch<T>(slots, pick(policy, ["trigger"]));
      case "ros/exact-time":
        return new RosExactTime<T>(slots, { queueSize: policy.queueSize });
      case "ros/approximate-epsilon-time":
        return new ApproximateEpsilonTime<T>(slots, {
          queueSize: policy.queueSize,
          epsilon: policy.epsilon,
        });
      case "ros/latest-time":
        return new LatestTime<T>(slots, pick(policy, ["rateConfig", "fixFirstArrivalOrder"]));
      case "python/approximate-time":
        return new PythonApproximateTime<T>(slots, {
          queueSize: policy.queueSize,
          slop: policy.slop,
          ...pick(policy, ["allowHeaderless", "queueOffset", "syncArrivalTime"]),
        });
      case "python/exact-time":
        return new PythonExactTime<T>(slots, { queueSize: policy.queueSize });
      default:
        throw new ConfigError([
          {
            path: "/policy/type",
            message: `unknown policy ${JSON.stringify((policy as { type: unknown }).type)}`,
          },
        ]);
    }
  } catch (err) {
    if (err instanceof RangeError) {
      throw new ConfigError([{ path: "/policy", message: err.message }]);
    }
    throw err;
  }
}

/** The given keys of `obj` that are present (not undefined), as a new object. */
function pick<O extends object, K extends keyof O>(
  obj: O,
  keys: readonly K[],
): Partial<Pick<O, K>> {
  const out: Partial<Pick<O, K>> = {};
  for (const k of keys) {
    // `null` is a value here (it means "unlimited"), so only undefined is skipped.
    // eslint-disable-next-line @foxglove/strict-equality
    if (obj[k] !== undefined) {
      out[k] = obj[k];
    }
  }
  return out;
}
