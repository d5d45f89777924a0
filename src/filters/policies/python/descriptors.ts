import { libraryPolicy, type PolicyLibrary } from "../PolicyDescriptor";
import { requiredQueueSize } from "../sharedParameters";
import { ApproximateTime } from "./ApproximateTime";
import { ExactTime } from "./ExactTime";

/** ROS message_filters' Python synchronizers (reference ros-message-filters.md). */
const PYTHON: PolicyLibrary = {
  family: "python",
  classPrefix: "message_filters.",
  title: "ROS message_filters Python",
  document: "ros-message-filters.md",
};

const queueSize = requiredQueueSize(1, "Messages kept per input (required)");

/** ROS message_filters Python ApproximateTimeSynchronizer (reference ros-message-filters.md §2.5). */
export const pythonApproximateTime = libraryPolicy(PYTHON, "python/approximate-time", "ApproximateTimeSynchronizer", "§2.5", {
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
      label: "Allow no header",
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
      label: "Arrival times",
      help: "Match on arrival times instead of header stamps",
      libraryName: "sync_arrival_time",
      default: false,
    },
  ],
  create: (slots, params) => new ApproximateTime(slots, params),
});

/** ROS message_filters Python TimeSynchronizer (reference ros-message-filters.md §1). */
export const pythonExactTime = libraryPolicy(PYTHON, "python/exact-time", "TimeSynchronizer", "§1", {
  parameters: [queueSize],
  create: (slots, params) => new ExactTime(slots, params),
});
