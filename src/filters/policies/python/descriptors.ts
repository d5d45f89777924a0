import { definePolicy, type ParameterDescriptor } from "../PolicyDescriptor";
import { ApproximateTime } from "./ApproximateTime";
import { ExactTime } from "./ExactTime";

const queueSize = {
  name: "queueSize",
  kind: "count",
  label: "Queue size",
  help: "Messages kept per input (required)",
  libraryName: "queue_size",
  unit: "messages",
  required: true,
  initial: 10,
  minimum: 1,
  maximum: 1_000_000_000,
} as const satisfies ParameterDescriptor;

/** ROS message_filters Python ApproximateTimeSynchronizer (reference ros-message-filters.md §2.5). */
export const pythonApproximateTime = definePolicy({
  type: "python/approximate-time",
  family: "python",
  libraryName: "message_filters.ApproximateTimeSynchronizer",
  description: "ROS message_filters Python ApproximateTimeSynchronizer.",
  reference: "ros-message-filters.md §2.5",
  usesArrivalTime: true,
  parameters: [
    queueSize,
    {
      name: "slop",
      kind: "duration",
      label: "Slop",
      help: "Largest distance between the stamps of a set (required)",
      libraryName: "slop",
      unit: "ns",
      required: true,
      initial: "50ms",
    },
    {
      name: "allowHeaderless",
      kind: "boolean",
      label: "Allow headerless",
      help: "Use the arrival time for messages without a header",
      libraryName: "allow_headerless",
      default: false,
    },
    {
      name: "queueOffset",
      kind: "perSlotSignedDuration",
      label: "Queue offset",
      help: "Subtracted from this slot's stamps before matching (may be negative)",
      libraryName: "queue_offset",
      unit: "ns",
      default: 0,
    },
    {
      name: "syncArrivalTime",
      kind: "boolean",
      label: "Sync arrival time",
      help: "Match on arrival times instead of header stamps",
      libraryName: "sync_arrival_time",
      default: false,
    },
  ],
  create: (slots, params) => new ApproximateTime(slots, params),
});

/** ROS message_filters Python TimeSynchronizer (reference ros-message-filters.md §1). */
export const pythonExactTime = definePolicy({
  type: "python/exact-time",
  family: "python",
  libraryName: "message_filters.TimeSynchronizer",
  description: "ROS message_filters Python TimeSynchronizer.",
  reference: "ros-message-filters.md §1",
  usesArrivalTime: false,
  parameters: [queueSize],
  create: (slots, params) => new ExactTime(slots, params),
});
