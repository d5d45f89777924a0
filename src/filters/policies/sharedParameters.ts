import type { ParameterDescriptor } from "./PolicyDescriptor";

/** Largest queue size a config may give (a bound for the schema and the editors). */
export const QUEUE_SIZE_MAX = 1_000_000_000;

/**
 * The ROS `queue_size` (C++ and Python): required, filled in as 10 by editors, from `minimum`
 * (0 where the library reads 0 as unlimited) to QUEUE_SIZE_MAX.
 */
export const requiredQueueSize = (minimum: 0 | 1, help: string) =>
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
    maximum: QUEUE_SIZE_MAX,
  }) as const satisfies ParameterDescriptor;

/** A bound on the spread of stamps within one set (fkie `max_timespan`, ROS `max_interval_duration`); default unlimited. */
export const maxSetSpread = <const Name extends string>(name: Name, label: string, libraryName: string) =>
  ({
    name,
    kind: "nullableDuration",
    label,
    help: "Largest allowed spread of stamps within one set; null = unlimited",
    libraryName,
    unit: "ns",
    default: null,
  }) as const satisfies ParameterDescriptor;

/** The expected gap between messages of a slot (fkie `min_distance`, ROS `inter_message_lower_bound`); default 0. */
export const minSlotGap = <const Name extends string>(name: Name, label: string, libraryName: string) =>
  ({
    name,
    kind: "perSlotDuration",
    label,
    help: "Smallest expected gap between two messages on this slot",
    libraryName,
    unit: "ns",
    default: 0,
  }) as const satisfies ParameterDescriptor;
