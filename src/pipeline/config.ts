/**
 * The pipeline configuration (DESIGN §3.2) as `parseConfig` returns it: validated, with every
 * duration converted to exact integer nanoseconds (`Duration`), `null` kept where it means
 * "unlimited", and policy parameters the user left out left out here too (absent = the library's
 * own default, applied by the policy class). The object is plain data and round-trips through
 * JSON (a number of nanoseconds is a valid JSON duration).
 */

import type { Duration } from "../time";

/** Every policy `type` the config accepts, in the order of DESIGN §3.2's table. */
export const POLICY_TYPES = [
  "fkie/approximate-time",
  "fkie/exact-time",
  "fkie/fifo",
  "fkie/latch",
  "ros/approximate-time",
  "ros/exact-time",
  "ros/approximate-epsilon-time",
  "ros/latest-time",
  "python/approximate-time",
  "python/exact-time",
] as const;

/** A policy `type` string. */
export type PolicyType = (typeof POLICY_TYPES)[number];

/** fkie_message_filters ApproximateTime (reference fkie-message-filters.md §2.1). */
export interface FkieApproximateTimeConfig {
  readonly type: "fkie/approximate-time";
  /** Messages kept per slot besides the head; 0 = unlimited. Library default 0. */
  readonly maxQueueSize?: number;
  /** Drop messages older than the newest stamp minus this (ns); null = unlimited. Default 1 s. */
  readonly maxAge?: Duration | null;
  /** Largest allowed span of a set (ns); null = unlimited (the default). */
  readonly maxTimespan?: Duration | null;
  /** Per slot: minimum distance between consecutive messages (ns). Default 0 for every slot. */
  readonly minDistance?: readonly Duration[];
  /**
   * Use fkie 1.x (ROS 1) out-of-order detection: only a stamp older than the newest message still
   * held on its slot resets the policy. Default false: the ROS 2 (fkie 2.x/3.x) rule, where a stamp
   * older than the newest stamp ever received on the slot resets it (reference §2.1).
   */
  readonly ros1OutOfOrder?: boolean;
}

/** fkie_message_filters ExactTime (reference §2.2). */
export interface FkieExactTimeConfig {
  readonly type: "fkie/exact-time";
  /** Messages kept per slot; 0 = unlimited (the default). */
  readonly maxQueueSize?: number;
  /** Drop messages older than the newest stamp minus this (ns); null = unlimited. Default 1 s. */
  readonly maxAge?: Duration | null;
}

/** fkie_message_filters Fifo (reference §2.3). */
export interface FkieFifoConfig {
  readonly type: "fkie/fifo";
  /** Capacity of each slot's FIFO; 0 = holds nothing (never emits). Default 1. */
  readonly maxQueueSize?: number;
}

/** fkie_message_filters Latch (reference §2.4). */
export interface FkieLatchConfig {
  readonly type: "fkie/latch";
  /** The slot whose messages trigger an output, or "any". Default 0. */
  readonly trigger?: number | "any";
}

/** ROS message_filters C++ ApproximateTime (reference ros-message-filters.md §2.1). */
export interface RosApproximateTimeConfig {
  readonly type: "ros/approximate-time";
  /** Messages kept per topic (required, >= 1). */
  readonly queueSize: number;
  /** Age penalty factor (>= 0). Default 0.1 (the code's, not the wiki's). */
  readonly agePenalty?: number;
  /** Per slot: lower bound on the interval between messages (ns). Default 0. */
  readonly interMessageLowerBound?: readonly Duration[];
  /** Largest span of a set (ns); null = unlimited (the default). */
  readonly maxIntervalDuration?: Duration | null;
}

/** ROS message_filters C++ ExactTime (reference §2.2). */
export interface RosExactTimeConfig {
  readonly type: "ros/exact-time";
  /** Partial tuples kept (required); 0 = unlimited. */
  readonly queueSize: number;
}

/** ROS message_filters C++ ApproximateEpsilonTime (reference §2.4). */
export interface RosApproximateEpsilonTimeConfig {
  readonly type: "ros/approximate-epsilon-time";
  /** Messages kept per topic (required). */
  readonly queueSize: number;
  /** Largest distance from the oldest head for a set (ns, inclusive; required). */
  readonly epsilon: Duration;
}

/** The rate estimator settings of ROS LatestTime (reference §2.3). */
export interface RateConfig {
  /** EMA weight of the rate estimate, in (0, 1]. Default 0.9. */
  readonly alphaRate?: number;
  /** EMA weight of the rate error, in (0, 1]. Default 0.3. */
  readonly alphaError?: number;
  /** Step-change / lateness margin, in multiples of the error (>= 0). Default 10. */
  readonly margin?: number;
}

/** ROS message_filters C++ LatestTime (reference §2.3); driven by arrival time. */
export interface RosLatestTimeConfig {
  readonly type: "ros/latest-time";
  /** One rate config shared by every slot, or one per slot. Default: the library's defaults. */
  readonly rateConfig?: RateConfig | readonly RateConfig[];
  /**
   * Default false keeps the library's quirk: rate estimators are created in order of first arrival
   * but looked up by slot index, so a slot may be timed by another slot's estimator. true gives
   * each slot its own estimator (reference §2.3).
   */
  readonly fixFirstArrivalOrder?: boolean;
}

/** ROS message_filters Python ApproximateTimeSynchronizer (reference §2.5). */
export interface PythonApproximateTimeConfig {
  readonly type: "python/approximate-time";
  /** Messages kept per input (required, >= 1). */
  readonly queueSize: number;
  /** Largest distance between stamps of a set (ns; required). */
  readonly slop: Duration;
  /** Use the arrival time for messages without a header. Default false. */
  readonly allowHeaderless?: boolean;
  /** Per slot: offset subtracted from the stamp before matching (ns, may be negative). Default none. */
  readonly queueOffset?: readonly Duration[];
  /** Match on arrival times instead of header stamps. Default false. */
  readonly syncArrivalTime?: boolean;
}

/** ROS message_filters Python TimeSynchronizer (reference ros-message-filters.md §1, Python). */
export interface PythonExactTimeConfig {
  readonly type: "python/exact-time";
  /** Messages kept per input (required, >= 1). */
  readonly queueSize: number;
}

/** Any policy config, discriminated by `type`. */
export type PolicyConfig =
  | FkieApproximateTimeConfig
  | FkieExactTimeConfig
  | FkieFifoConfig
  | FkieLatchConfig
  | RosApproximateTimeConfig
  | RosExactTimeConfig
  | RosApproximateEpsilonTimeConfig
  | RosLatestTimeConfig
  | PythonApproximateTimeConfig
  | PythonExactTimeConfig;

/** One input of the pipeline; its index in `inputs` is its slot. */
export interface InputConfig {
  /** The topic to subscribe to. */
  readonly topic: string;
}

/** Buffer policy names (fkie BufferPolicy, reference fkie §2.5). */
export type BufferPolicyName = "discard" | "queue" | "passthru";

/** The fkie Buffer in front of the combiner's output (reference fkie §2.5). */
export interface BufferConfig {
  /** Discard, Queue or Passthru. Library default "discard". */
  readonly policy?: BufferPolicyName;
  /** Ring capacity when queueing (>= 1; the oldest item is dropped when full). Library default 1. */
  readonly maxQueueSize?: number;
}

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
 * A validated pipeline config. `slots` is always set: the number of inputs, or the `slots` given
 * for `replay` (then `inputs` is absent). Sections the user left out are absent, except `publish`,
 * which carries its defaults.
 */
export interface PipelineConfig {
  /** Number of combiner inputs. */
  readonly slots: number;
  readonly inputs?: readonly InputConfig[];
  readonly policy: PolicyConfig;
  readonly buffer?: BufferConfig;
  readonly transforms?: readonly TransformConfig[];
  /** Fusion settings, validated by src/fusion (any JSON object here). */
  readonly fusion?: Readonly<Record<string, unknown>>;
  readonly publish: PublishConfig;
}
