/**
 * The pipeline configuration (DESIGN §3.2) as `parseConfig` returns it: validated, with every
 * duration converted to exact integer nanoseconds (`Duration`), `null` kept where it means
 * "unlimited", and policy parameters the user left out left out here too (absent = the library's
 * own default, applied by the policy class). The object is plain data and round-trips through
 * JSON (a number of nanoseconds is a valid JSON duration).
 *
 * The policy, buffer and input types are derived from their descriptors
 * (filters/policies/descriptors.ts, filters/bufferParameters.ts, inputParameters.ts); a parameter
 * is declared there, once.
 */

import type { InputConfig } from "./inputParameters";
import type { BufferConfig } from "../filters/bufferParameters";
import type { PolicyConfigOf } from "../filters/policies/PolicyDescriptor";
import type { PolicyConfig } from "../filters/policies/descriptors";
import type {
  fkieApproximateTime,
  fkieExactTime,
  fkieFifo,
  fkieLatch,
} from "../filters/policies/fkie/descriptors";
import type {
  pythonApproximateTime,
  pythonExactTime,
} from "../filters/policies/python/descriptors";
import type {
  rosApproximateEpsilonTime,
  rosApproximateTime,
  rosExactTime,
  rosLatestTime,
} from "../filters/policies/ros/descriptors";

export { POLICY_TYPES, type PolicyConfig, type PolicyType } from "../filters/policies/descriptors";
export type { BufferConfig, BufferPolicyName } from "../filters/bufferParameters";
export type { InputConfig } from "./inputParameters";

/** fkie_message_filters ApproximateTime (reference fkie-message-filters.md §2.1). */
export type FkieApproximateTimeConfig = PolicyConfigOf<typeof fkieApproximateTime>;
/** fkie_message_filters ExactTime (reference §2.2). */
export type FkieExactTimeConfig = PolicyConfigOf<typeof fkieExactTime>;
/** fkie_message_filters Fifo (reference §2.3). */
export type FkieFifoConfig = PolicyConfigOf<typeof fkieFifo>;
/** fkie_message_filters Latch (reference §2.4). */
export type FkieLatchConfig = PolicyConfigOf<typeof fkieLatch>;
/** ROS message_filters C++ ApproximateTime (reference ros-message-filters.md §2.1). */
export type RosApproximateTimeConfig = PolicyConfigOf<typeof rosApproximateTime>;
/** ROS message_filters C++ ExactTime (reference §2.2). */
export type RosExactTimeConfig = PolicyConfigOf<typeof rosExactTime>;
/** ROS message_filters C++ ApproximateEpsilonTime (reference §2.4). */
export type RosApproximateEpsilonTimeConfig = PolicyConfigOf<typeof rosApproximateEpsilonTime>;
/** ROS message_filters C++ LatestTime (reference §2.3); driven by arrival time. */
export type RosLatestTimeConfig = PolicyConfigOf<typeof rosLatestTime>;
/** The rate estimator settings of ROS LatestTime (reference §2.3). */
export type RateConfig = Exclude<
  NonNullable<RosLatestTimeConfig["rateConfig"]>,
  readonly unknown[]
>;
/** ROS message_filters Python ApproximateTimeSynchronizer (reference §2.5). */
export type PythonApproximateTimeConfig = PolicyConfigOf<typeof pythonApproximateTime>;
/** ROS message_filters Python TimeSynchronizer (reference ros-message-filters.md §1, Python). */
export type PythonExactTimeConfig = PolicyConfigOf<typeof pythonExactTime>;

/** A static transform `parent -> child`. Rotation: `rpy` or `quaternion`, or neither (identity). */
export interface TransformConfig {
  readonly parent: string;
  readonly child: string;
  /** [x, y, z] in metres. */
  readonly translation: readonly [number, number, number];
  /** [roll, pitch, yaw] in radians (fixed axes X, Y, Z, as tf2's setRPY). */
  readonly rpy?: readonly [number, number, number];
  /** [x, y, z, w], not necessarily normalized (must not be zero). */
  readonly quaternion?: readonly [number, number, number, number];
}

/** Republishing of the synchronized tuples. */
export interface PublishConfig {
  /** Publish at all. Default false. */
  readonly enabled: boolean;
  /** Topic namespace for the published tuples. Default "/lockstep". */
  readonly namespace: string;
}

/**
 * Where the panel's trajectory tab can draw raw odometry (the config's `view.rawPlacement`): where
 * it was recorded (the default, first), or moved rigidly onto the start of the track it is
 * compared with. Only the panel reads it.
 */
export const RAW_PLACEMENTS = ["as-recorded", "start-aligned"] as const;

/**
 * A validated pipeline config. `slots` is always set: the number of inputs, or the `slots` given
 * for `replay` (then `inputs` is absent). Sections the user left out are absent, except `publish`,
 * which carries its defaults.
 */
export interface PipelineConfig {
  /** Number of combiner inputs. */
  readonly slots: number;
  readonly inputs?: readonly InputConfig[];
  readonly policy: PolicyConfig;
  /** The Buffer between the inputs and the combiner; absent = passthru. */
  readonly buffer?: BufferConfig;
  readonly transforms?: readonly TransformConfig[];
  /** Fusion settings, validated by src/fusion (any JSON object here). */
  readonly fusion?: Readonly<Record<string, unknown>>;
  readonly publish: PublishConfig;
}
