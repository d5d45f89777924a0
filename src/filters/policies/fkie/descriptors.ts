import { libraryPolicy, type ParameterDescriptor, type PolicyLibrary } from "../PolicyDescriptor";
import { maxSetSpread, minSlotGap, QUEUE_SIZE_MAX } from "../sharedParameters";
import { ApproximateTime } from "./ApproximateTime";
import { ExactTime } from "./ExactTime";
import { Fifo } from "./Fifo";
import { Latch } from "./Latch";

/** fkie_message_filters' combiner policies (reference fkie-message-filters.md). */
const FKIE: PolicyLibrary = {
  family: "fkie",
  classPrefix: "fkie_message_filters::combiner_policies::",
  title: "fkie_message_filters",
  document: "fkie-message-filters.md",
};

const maxQueueSize = (def: 0 | 1, help: string) =>
  ({
    name: "maxQueueSize",
    kind: "count",
    label: "Max queue size",
    help,
    libraryName: "max_queue_size",
    unit: "messages",
    default: def,
    minimum: 0,
    maximum: QUEUE_SIZE_MAX,
  }) as const satisfies ParameterDescriptor;

const maxAge = {
  name: "maxAge",
  kind: "nullableDuration",
  label: "Max age",
  help: "Drop messages older than the newest stamp minus this; null = unlimited",
  libraryName: "max_age",
  unit: "ns",
  default: "1s",
} as const satisfies ParameterDescriptor;

/** fkie_message_filters ApproximateTime (reference fkie-message-filters.md §2.1). */
export const fkieApproximateTime = libraryPolicy(FKIE, "fkie/approximate-time", "ApproximateTime", "§2.1", {
  parameters: [
    maxQueueSize(0, "Messages kept per slot besides the head; 0 = unlimited"),
    maxAge,
    maxSetSpread("maxTimespan", "Max timespan", "max_timespan"),
    minSlotGap("minDistance", "Min distance", "min_distance"),
    {
      name: "ros1OutOfOrder",
      kind: "boolean",
      label: "ROS 1 ordering",
      help:
        "Use fkie 1.x (ROS 1) out-of-order detection: only a stamp older than the newest message still held on its slot resets the policy. " +
        "Default false: the ROS 2 rule (older than the newest stamp ever received on the slot)",
      libraryName: "(fkie 1.x behaviour)",
      default: false,
    },
  ],
  create: (slots, params, zero) => new ApproximateTime(slots, { ...params, zero }),
});

/** fkie_message_filters ExactTime (reference §2.2). */
export const fkieExactTime = libraryPolicy(FKIE, "fkie/exact-time", "ExactTime", "§2.2", {
  parameters: [maxQueueSize(0, "Messages kept per slot; 0 = unlimited"), maxAge],
  create: (slots, params, zero) => new ExactTime(slots, { ...params, zero }),
});

/** fkie_message_filters Fifo (reference §2.3). */
export const fkieFifo = libraryPolicy(FKIE, "fkie/fifo", "Fifo", "§2.3", {
  parameters: [maxQueueSize(1, "Capacity of each slot's FIFO; 0 holds nothing")],
  create: (slots, params) => new Fifo(slots, params),
});

/** fkie_message_filters Latch (reference §2.4). */
export const fkieLatch = libraryPolicy(FKIE, "fkie/latch", "Latch", "§2.4", {
  parameters: [
    {
      name: "trigger",
      kind: "trigger",
      label: "Trigger",
      help: 'The slot whose messages emit a set (the others are latched), or "any"',
      libraryName: "(the triggering input)",
      unit: "slot",
      default: 0,
    },
  ],
  create: (slots, params) => new Latch(slots, params),
});
