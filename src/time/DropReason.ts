/**
 * The one vocabulary of reasons for which a message is dropped or skipped (DESIGN §2). Every
 * filter, the pipeline and fusion report each message they drop exactly once, with one of these.
 * It sits in the bottom layer so that every layer can use it without importing `filters`.
 */
export const DROP_REASONS = [
  /** A bounded queue was full; the oldest item made room. */
  "queue-overflow",
  /** Older than the policy's max age relative to the newest stamp. */
  "max-age",
  /** The set it would have joined spans more than the max timespan (fkie) / max interval (ROS). */
  "max-timespan",
  /** A better match was chosen for its slot; it can no longer be part of any set. */
  "not-selected",
  /** A stamp went backwards; the policy reset and discarded what it held. */
  "out-of-order-reset",
  /** Its stamp equals one already held on the same slot. */
  "duplicate-stamp",
  /** Arrived with a stamp older than what the filter already released (Sequencer, TimeSequencer). */
  "too-late",
  /** The message has no header stamp and the policy needs one. */
  "no-header",
  /** The header stamp is zero (unset). */
  "zero-stamp",
  /** The header stamp is not a time (nsec >= 1e9) or lies outside the time window of the others. */
  "invalid-stamp",
  /** The message's bytes do not decode (cut short, garbage, no usable definition). */
  "undecodable",
  /** The message was in a damaged chunk of the recording (counted from the file's index). */
  "unreadable-chunk",
  /** A covariance or other measurement field failed validation. */
  "invalid-covariance",
  /** A transform needed for the message was unavailable or expired. */
  "transform-unavailable",
  /** The message's frame_id is empty, so it cannot be transformed. */
  "empty-frame-id",
  /** A Buffer in Discard mode, or a user filter that returned false / emitted nothing. */
  "discarded",
  /** Held by a filter that was reset (or whose policy switched to Discard) before release. */
  "reset",
  /** Replaced by a newer message before it could be used (Latch, LatestTime, Fifo overwrite). */
  "superseded",
  /** Too soon after the previous message on its topic (throttling, rate bounds). */
  "throttled",
] as const;

/** A reason from the shared drop vocabulary. */
export type DropReason = (typeof DROP_REASONS)[number];
