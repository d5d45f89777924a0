import { definePolicy, type ParameterDescriptor } from "../PolicyDescriptor";
import { ApproximateEpsilonTime } from "./ApproximateEpsilonTime";
import { ApproximateTime } from "./ApproximateTime";
import { ExactTime } from "./ExactTime";
import { LatestTime } from "./LatestTime";

const QUEUE_MAX = 1_000_000_000;

const queueSize = (minimum: 0 | 1, help: string) =>
  ({
    name: "queueSize",
    kind: "count",
    label: "Queue size",
    help,
    libraryName: "queue_size",
    unit: "messages",
    required: true,
    initial: 10,
    minimum,
    maximum: QUEUE_MAX,
  }) as const satisfies ParameterDescriptor;

/** ROS message_filters C++ ApproximateTime (reference ros-message-filters.md §2.1). */
export const rosApproximateTime = definePolicy({
  type: "ros/approximate-time",
  family: "ros",
  libraryName: "message_filters::sync_policies::ApproximateTime",
  description: "ROS message_filters C++ ApproximateTime.",
  reference: "ros-message-filters.md §2.1",
  usesArrivalTime: false,
  parameters: [
    queueSize(1, "Messages kept per topic (required)"),
    {
      name: "agePenalty",
      kind: "number",
      label: "Age penalty",
      help: "Weight that favours emitting older sets sooner (the code's default, not the wiki's)",
      libraryName: "age_penalty",
      default: 0.1,
      minimum: 0,
    },
    {
      name: "interMessageLowerBound",
      kind: "perSlotDuration",
      label: "Inter-message lower bound",
      help: "Smallest expected gap between two messages on this slot",
      libraryName: "inter_message_lower_bound",
      unit: "ns",
      default: 0,
    },
    {
      name: "maxIntervalDuration",
      kind: "nullableDuration",
      label: "Max interval",
      help: "Largest allowed spread of stamps within one set; null = unlimited",
      libraryName: "max_interval_duration",
      unit: "ns",
      default: null,
    },
  ],
  create: (slots, params, zero) => new ApproximateTime(slots, { ...params, zero }),
});

/** ROS message_filters C++ ExactTime (reference §2.2). */
export const rosExactTime = definePolicy({
  type: "ros/exact-time",
  family: "ros",
  libraryName: "message_filters::sync_policies::ExactTime",
  description: "ROS message_filters C++ ExactTime (TimeSynchronizer).",
  reference: "ros-message-filters.md §2.2",
  usesArrivalTime: false,
  parameters: [queueSize(0, "Partial tuples kept (required); 0 = unlimited")],
  create: (slots, params) => new ExactTime(slots, params),
});

/** ROS message_filters C++ ApproximateEpsilonTime (reference §2.4). */
export const rosApproximateEpsilonTime = definePolicy({
  type: "ros/approximate-epsilon-time",
  family: "ros",
  libraryName: "message_filters::sync_policies::ApproximateEpsilonTime",
  description: "ROS message_filters C++ ApproximateEpsilonTime.",
  reference: "ros-message-filters.md §2.4",
  usesArrivalTime: false,
  parameters: [
    queueSize(0, "Messages kept per topic (required)"),
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
export const rosLatestTime = definePolicy({
  type: "ros/latest-time",
  family: "ros",
  libraryName: "message_filters::sync_policies::LatestTime",
  description: "ROS message_filters C++ LatestTime (driven by arrival time).",
  reference: "ros-message-filters.md §2.3",
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
      label: "Fix first-arrival order",
      help:
        "Default false keeps ROS's quirk (rate estimators created in first-arrival order but looked up by slot index); " +
        "true gives each slot its own estimator",
      libraryName: "(ROS quirk switch)",
      default: false,
    },
  ],
  create: (slots, params) => new LatestTime(slots, params),
});
