import { definePolicy, type ParameterDescriptor } from "../PolicyDescriptor";
import { ApproximateTime } from "./ApproximateTime";
import { ExactTime } from "./ExactTime";
import { Fifo } from "./Fifo";
import { Latch } from "./Latch";

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
    maximum: 1_000_000_000,
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
export const fkieApproximateTime = definePolicy({
  type: "fkie/approximate-time",
  family: "fkie",
  libraryName: "fkie_message_filters::combiner_policies::ApproximateTime",
  description: "fkie_message_filters ApproximateTime.",
  reference: "fkie-message-filters.md §2.1",
  usesArrivalTime: false,
  parameters: [
    maxQueueSize(0, "Messages kept per slot besides the head; 0 = unlimited"),
    maxAge,
    {
      name: "maxTimespan",
      kind: "nullableDuration",
      label: "Max timespan",
      help: "Largest allowed spread of stamps within one set; null = unlimited",
      libraryName: "max_timespan",
      unit: "ns",
      default: null,
    },
    {
      name: "minDistance",
      kind: "perSlotDuration",
      label: "Min distance",
      help: "Smallest expected gap between two messages on this slot",
      libraryName: "min_distance",
      unit: "ns",
      default: 0,
    },
    {
      name: "ros1OutOfOrder",
      kind: "boolean",
      label: "ROS 1 out-of-order rule",
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
export const fkieExactTime = definePolicy({
  type: "fkie/exact-time",
  family: "fkie",
  libraryName: "fkie_message_filters::combiner_policies::ExactTime",
  description: "fkie_message_filters ExactTime.",
  reference: "fkie-message-filters.md §2.2",
  usesArrivalTime: false,
  parameters: [maxQueueSize(0, "Messages kept per slot; 0 = unlimited"), maxAge],
  create: (slots, params, zero) => new ExactTime(slots, { ...params, zero }),
});

/** fkie_message_filters Fifo (reference §2.3). */
export const fkieFifo = definePolicy({
  type: "fkie/fifo",
  family: "fkie",
  libraryName: "fkie_message_filters::combiner_policies::Fifo",
  description: "fkie_message_filters Fifo.",
  reference: "fkie-message-filters.md §2.3",
  usesArrivalTime: false,
  parameters: [maxQueueSize(1, "Capacity of each slot's FIFO; 0 holds nothing")],
  create: (slots, params) => new Fifo(slots, params),
});

/** fkie_message_filters Latch (reference §2.4). */
export const fkieLatch = definePolicy({
  type: "fkie/latch",
  family: "fkie",
  libraryName: "fkie_message_filters::combiner_policies::Latch",
  description: "fkie_message_filters Latch.",
  reference: "fkie-message-filters.md §2.4",
  usesArrivalTime: false,
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
