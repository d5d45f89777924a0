/**
 * The part of a policy parameter's description the search reads: its JSON key, kind, bounds
 * and library default. Shaped as a subset of the policy descriptors' `ParameterDescriptor`, so
 * the descriptors can be passed here as they are.
 */
export interface SearchableParameter {
  readonly name: string;
  readonly kind: string;
  readonly required?: boolean;
  readonly default?: unknown;
  readonly minimum?: number;
  readonly maximum?: number;
}

/** The part of a policy descriptor the search reads (a subset of `PolicyDescriptor`). */
export interface SearchablePolicy {
  readonly type: string;
  readonly family: string;
  readonly parameters: readonly SearchableParameter[];
}

const count = (name: string, minimum: number, options: { required?: true; default?: number }): SearchableParameter => ({
  name,
  kind: "count",
  minimum,
  ...options,
});

/**
 * Every combiner policy's searchable parameters (DESIGN §3.2's table). Policies matched by
 * arrival (Fifo, Latch, LatestTime) have nothing the stamps could tune and are absent.
 */
export const SEARCH_SPACE: readonly SearchablePolicy[] = [
  {
    type: "fkie/approximate-time",
    family: "fkie",
    parameters: [
      count("maxQueueSize", 0, { default: 0 }),
      { name: "maxAge", kind: "nullableDuration", default: 1_000_000_000 },
      { name: "maxTimespan", kind: "nullableDuration", default: null },
      { name: "minDistance", kind: "perSlotDuration", default: 0 },
      { name: "ros1OutOfOrder", kind: "boolean", default: false },
    ],
  },
  {
    type: "fkie/exact-time",
    family: "fkie",
    parameters: [count("maxQueueSize", 0, { default: 0 }), { name: "maxAge", kind: "nullableDuration", default: 1_000_000_000 }],
  },
  {
    type: "ros/approximate-time",
    family: "ros",
    parameters: [
      count("queueSize", 1, { required: true }),
      { name: "agePenalty", kind: "number", default: 0.1, minimum: 0 },
      { name: "interMessageLowerBound", kind: "perSlotDuration", default: 0 },
      { name: "maxIntervalDuration", kind: "nullableDuration", default: null },
    ],
  },
  { type: "ros/exact-time", family: "ros", parameters: [count("queueSize", 0, { required: true })] },
  {
    type: "ros/approximate-epsilon-time",
    family: "ros",
    parameters: [count("queueSize", 1, { required: true }), { name: "epsilon", kind: "duration", required: true }],
  },
  {
    type: "python/approximate-time",
    family: "python",
    parameters: [
      count("queueSize", 1, { required: true }),
      { name: "slop", kind: "duration", required: true },
      { name: "allowHeaderless", kind: "boolean", default: false },
    ],
  },
  { type: "python/exact-time", family: "python", parameters: [count("queueSize", 1, { required: true })] },
];

/** The searchable description of a policy type, or undefined when nothing about it is tuned by stamps. */
export function searchSpaceOf(type: string): SearchablePolicy | undefined {
  return SEARCH_SPACE.find((p) => p.type === type);
}

/** The other stamp-matching policies of the same library (alternatives to suggest). */
export function familyOf(type: string): SearchablePolicy[] {
  const own = searchSpaceOf(type);
  return own == undefined ? [] : SEARCH_SPACE.filter((p) => p.family === own.family && p.type !== type);
}
