import type { StampedUuids } from "./uuid";
import type { RigidTransform } from "../../geometry";
import type { Stamp, TimeBase } from "../../time";
import type { DropReason } from "../../time/DropReason";


export type { RigidTransform } from "../../geometry";

/**
 * Where sensor models get transforms: `lookup(target, source, stamp)` returns the transform that
 * maps coordinates in `source` into `target` (tf2's `lookupTransform(target, source, t)`), or
 * undefined when it is unknown at that stamp. Adapters wrap the pipeline's static transforms and
 * /tf buffers.
 */
export interface TransformLookup {
  lookup(target: string, source: string, stamp: Stamp): RigidTransform | undefined;
}

/** A message a sensor model dropped (reported once, with a reason from the shared vocabulary). */
export interface FusionDrop {
  /** The sensor model's name. */
  readonly sensor: string;
  readonly topic: string;
  /** Relative header stamp, NaN when unknown. */
  readonly stamp: Stamp;
  readonly reason: DropReason;
  /** Which check failed, e.g. "twist covariance is not symmetric". */
  readonly detail: string;
}

/**
 * What plugins receive in `initialize` (the role of fuse's node interfaces): the time base of
 * the recording, the UUID recipe, transforms, and the reporting sinks. Plain object; the runner
 * builds one per run.
 */
export interface FusionContext {
  readonly timeBase: TimeBase;
  /** Stamped-variable UUIDs (ROS 1 or ROS 2 recipe). */
  readonly uuids: StampedUuids;
  /** Transforms for `*_target_frame` parameters; absent = only identity (same-frame) lookups work. */
  readonly transforms?: TransformLookup;
  /** Receives every dropped message once. */
  drop(event: FusionDrop): void;
  /** Receives warnings (configuration mismatches, fuse's logged warnings). */
  warn(message: string): void;
  /** The current (receive-time) clock, as ROS time would be during bag playback. */
  now(): Stamp;
}
