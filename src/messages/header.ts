import { nsecOf, type RosTime, type Stamp, type TimeBase } from "../time";

/**
 * Why a message cannot give a stamp: it has no header (no `header.stamp` and no Foxglove
 * `timestamp`), its stamp is zero (unset), or (`readHeader`) it is not a time on the base's clock.
 * The names are the drop reasons of the vocabulary.
 */
export type StampProblem = "no-header" | "zero-stamp" | "invalid-stamp";

function isTime(t: unknown): t is RosTime {
  if (typeof t !== "object" || t == undefined) {
    return false;
  }
  const o = t as { sec?: unknown; nsec?: unknown; nanosec?: unknown };
  return typeof o.sec === "number" && (typeof o.nsec === "number" || typeof o.nanosec === "number");
}

/**
 * The time object a decoded message is stamped with, without copying: ROS 1 `header.stamp`
 * (`{sec, nsec}`), ROS 2 `header.stamp` (`{sec, nanosec}`) or a Foxglove schema's `timestamp`.
 * Undefined when there is none. Never throws, whatever the input.
 */
export function stampOf(message: unknown): RosTime | undefined {
  if (typeof message !== "object" || message == undefined) {
    return undefined;
  }
  const m = message as { header?: unknown; timestamp?: unknown };
  const header = m.header as { stamp?: unknown } | null | undefined;
  if (typeof header === "object" && header != undefined && isTime(header.stamp)) {
    return header.stamp;
  }
  return isTime(m.timestamp) ? m.timestamp : undefined;
}

// The one nsec accessor lives beside RosTime; messages hands it on with the headers it reads.
export { nsecOf };

/**
 * The stamp of a message, or the drop reason when it has none: `"no-header"` without a header
 * stamp, `"zero-stamp"` when the stamp is 0.0 (ROS's "unset"). Allocation-free; never throws.
 */
export function readStamp(message: unknown): RosTime | StampProblem {
  const t = stampOf(message);
  if (t == undefined) {
    return "no-header";
  }
  return t.sec === 0 && nsecOf(t) === 0 ? "zero-stamp" : t;
}

/**
 * The frame a message is expressed in: ROS `header.frame_id` or a Foxglove schema's `frame_id`.
 * Undefined when the message has neither (an empty string is returned as is).
 */
export function frameIdOf(message: unknown): string | undefined {
  if (typeof message !== "object" || message == undefined) {
    return undefined;
  }
  const m = message as { header?: { frame_id?: unknown }; frame_id?: unknown };
  const id = m.header?.frame_id ?? m.frame_id;
  return typeof id === "string" ? id : undefined;
}

/** `child_frame_id` of an odometry or transform message, if it has one. */
export function childFrameIdOf(message: unknown): string | undefined {
  if (typeof message !== "object" || message == undefined) {
    return undefined;
  }
  const id = (message as { child_frame_id?: unknown }).child_frame_id;
  return typeof id === "string" ? id : undefined;
}

/** A message's own header as read once per message: its stamp (relative) and its frame. */
export interface MessageHeader {
  /** `header.stamp` (or a Foxglove `timestamp`) on the pipeline's time base. */
  readonly stamp: Stamp;
  /** `header.frame_id` (or a Foxglove `frame_id`); "" when there is none. */
  readonly frameId: string;
}

/**
 * The header of a message on `base`, or why it has none usable: `"no-header"`, `"zero-stamp"`
 * for a zero stamp, `"invalid-stamp"` for one that is not a time (nsec ≥ 1e9) or lies outside the
 * base's window (so cannot be on its clock), as the pipeline's inputs name them. Never throws.
 */
export function readHeader(message: unknown, base: TimeBase): MessageHeader | StampProblem {
  const t = readStamp(message);
  if (typeof t === "string") {
    return t;
  }
  let stamp: Stamp;
  try {
    stamp = base.fromSecNsec(t.sec, nsecOf(t));
  } catch {
    return "invalid-stamp";
  }
  return { stamp, frameId: frameIdOf(message) ?? "" };
}
