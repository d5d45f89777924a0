import { libraryPolicy, type ParameterDescriptor, type PolicyLibrary } from "../PolicyDescriptor";
import { maxSetSpread, minSlotGap, requiredQueueSize } from "../sharedParameters";
import { ApproximateEpsilonTime } from "./ApproximateEpsilonTime";
import { ApproximateTime } from "./ApproximateTime";
import { ExactTime } from "./ExactTime";
import { LatestTime } from "./LatestTime";

/** ROS message_filters' C++ sync policies (reference ros-message-filters.md). */
const ROS: PolicyLibrary = {
  family: "ros",
  classPrefix: "message_filters::sync_policies::",
  title: "ROS message_filters C++",
  document: "ros-message-filters.md",
};

/** ROS message_filters C++ ApproximateTime (reference ros-message-filters.md §2.1). */
export const rosApproximateTime = libraryPolicy(ROS, "ros/approximate-time", "ApproximateTime", "§2.1", {
  parameters: [
    requiredQueueSize(1, "Messages kept per topic (required)"),
    {
      name: "agePenalty",
      kind: "number",
      label: "Age penalty",
      help: "Weight that favours emitting older sets sooner (the code's default, not the wiki's)",
      libraryName: "age_penalty",
      default: 0.1,
      minimum: 0,
    },
    minSlotGap("interMessageLowerBound", "Min message gap", "inter_message_lower_bound"),
    maxSetSpread("maxIntervalDuration", "Max interval", "max_interval_duration"),
  ],
  create: (slots, params, zero) => new ApproximateTime(slots, { ...params, zero }),
});

/** ROS message_filters C++ ExactTime (reference §2.2). */
export const rosExactTime = libraryPolicy(ROS, "ros/exact-time", "ExactTime", "§2.2", {
  note: "TimeSynchronizer",
  parameters: [requiredQueueSize(0, "Partial tuples kept (required); 0 = unlimited")],
  create: (slots, params) => new ExactTime(slots, params),
});

/** ROS message_filters C++ ApproximateEpsilonTime (reference §2.4). */
export const rosApproximateEpsilonTime = libraryPolicy(ROS, "ros/approximate-epsilon-time", "ApproximateEpsilonTime", "§2.4", {
  parameters: [
    requiredQueueSize(0, "Messages kept per topic (required)"),
    {
      name: "epsilon",
      kind: "duration",
      label: "Epsilon",
      help: "Stamps within epsilon of the oldest head match (inclusive; required)",
      libraryName: "epsilon",
      unit: "ns",
      required: true,
      initial: "10ms",
    },
  ],
  create: (slots, params) => new ApproximateEpsilonTime(slots, params),
});

const alpha = (name: string, label: string, help: string, libraryName: string, def: number) =>
  ({
    name,
    kind: "number",
    label,
    help,
    libraryName,
    default: def,
    exclusiveMinimum: 0,
    maximum: 1,
  }) as const satisfies ParameterDescriptor;

/** ROS message_filters C++ LatestTime (reference §2.3); driven by arrival time. */
export const rosLatestTime = libraryPolicy(ROS, "ros/latest-time", "LatestTime", "§2.3", {
  note: "driven by arrival time",
  usesArrivalTime: true,
  parameters: [
    {
      name: "rateConfig",
      kind: "group",
      label: "Rate config",
      help: "One rate config for every slot, or an array with one per slot",
      libraryName: "RateConfig",
      defaultText: "the library's defaults",
      perSlotGroup: true,
      fields: [
        alpha("alphaRate", "Rate EMA alpha", "Smoothing of the estimated rate", "alpha_rate", 0.9),
        alpha("alphaError", "Error EMA alpha", "Smoothing of the rate error", "alpha_error", 0.3),
        {
          name: "margin",
          kind: "number",
          label: "Margin",
          help: "Errors beyond margin × error are step changes",
          libraryName: "margin",
          default: 10,
          minimum: 0,
        },
      ],
    },
    {
      name: "fixFirstArrivalOrder",
      kind: "boolean",
      label: "Per-slot rates",
      help:
        "Default false keeps ROS's quirk (rate estimators created in first-arrival order but looked up by slot index); " +
        "true gives each slot its own estimator",
      libraryName: "(ROS quirk switch)",
      default: false,
    },
  ],
  create: (slots, params) => new LatestTime(slots, params),
});
