/**
 * What the settings editor shows for each policy type (DESIGN §3.2): one entry per parameter, in
 * display order. The editor never decides validity: it stores what the user typed and shows the
 * pipeline's own validation error on the field (see configErrors.ts).
 */

/** How a parameter is edited. */
export type ParamKind =
  /** Non-negative integer (queue sizes). */
  | "int"
  /** Real number (penalties, EMA factors). */
  | "float"
  /** Duration string with unit ("33ms") or integer ns; "unlimited" stores null when nullable. */
  | "duration"
  | "boolean"
  /** fkie Latch trigger: a slot index or "any". */
  | "trigger";

/** One policy parameter as the editor shows it. */
export interface ParamSpec {
  /** JSON key under `policy` (dotted for nested objects, e.g. "rateConfig.alphaRate"). */
  readonly key: string;
  readonly label: string;
  readonly kind: ParamKind;
  /** One value per input slot (an array in the JSON), edited in each slot's node. */
  readonly perSlot?: boolean;
  /** `null` (shown as "unlimited") is allowed. */
  readonly nullable?: boolean;
  /** The library's default, shown as the placeholder ("" when required). */
  readonly defaultText: string;
  readonly help: string;
}

const maxQueueSize = (def: string): ParamSpec => ({
  key: "maxQueueSize",
  label: "Max queue size",
  kind: "int",
  defaultText: def,
  help: "Messages held per slot; 0 = unlimited (fkie)",
});
const maxAge: ParamSpec = {
  key: "maxAge",
  label: "Max age",
  kind: "duration",
  nullable: true,
  defaultText: "1s",
  help: "Drop messages older than this relative to the newest stamp; 'unlimited' disables",
};
const queueSize: ParamSpec = {
  key: "queueSize",
  label: "Queue size",
  kind: "int",
  defaultText: "",
  help: "Messages held per slot (required)",
};

/** Parameters per policy type, in display order. */
export const POLICY_PARAMS: Readonly<Record<string, readonly ParamSpec[]>> = {
  "fkie/approximate-time": [
    maxQueueSize("0"),
    maxAge,
    {
      key: "maxTimespan",
      label: "Max timespan",
      kind: "duration",
      nullable: true,
      defaultText: "unlimited",
      help: "Largest allowed spread of stamps within one set",
    },
    {
      key: "minDistance",
      label: "Min distance",
      kind: "duration",
      perSlot: true,
      defaultText: "0",
      help: "Smallest expected gap between two messages on this slot",
    },
  ],
  "fkie/exact-time": [maxQueueSize("0"), maxAge],
  "fkie/fifo": [maxQueueSize("1")],
  "fkie/latch": [
    {
      key: "trigger",
      label: "Trigger",
      kind: "trigger",
      defaultText: "0",
      help: "The slot whose messages emit a set (others are latched), or any slot",
    },
  ],
  "ros/approximate-time": [
    queueSize,
    {
      key: "agePenalty",
      label: "Age penalty",
      kind: "float",
      defaultText: "0.1",
      help: "Weight that favours emitting older sets sooner",
    },
    {
      key: "maxIntervalDuration",
      label: "Max interval",
      kind: "duration",
      nullable: true,
      defaultText: "unlimited",
      help: "Largest allowed spread of stamps within one set",
    },
    {
      key: "interMessageLowerBound",
      label: "Inter-message lower bound",
      kind: "duration",
      perSlot: true,
      defaultText: "0",
      help: "Smallest expected gap between two messages on this slot",
    },
  ],
  "ros/exact-time": [queueSize],
  "ros/approximate-epsilon-time": [
    queueSize,
    {
      key: "epsilon",
      label: "Epsilon",
      kind: "duration",
      defaultText: "",
      help: "Stamps within epsilon of each other match",
    },
  ],
  "ros/latest-time": [
    {
      key: "rateConfig.alphaRate",
      label: "Rate EMA alpha",
      kind: "float",
      defaultText: "0.9",
      help: "Smoothing of the estimated rate (shared by all slots)",
    },
    {
      key: "rateConfig.alphaError",
      label: "Error EMA alpha",
      kind: "float",
      defaultText: "0.3",
      help: "Smoothing of the rate error",
    },
    {
      key: "rateConfig.margin",
      label: "Margin",
      kind: "float",
      defaultText: "10",
      help: "Errors beyond margin × error are step changes",
    },
  ],
  "python/approximate-time": [
    queueSize,
    {
      key: "slop",
      label: "Slop",
      kind: "duration",
      defaultText: "",
      help: "Largest stamp difference within a set",
    },
    {
      key: "allowHeaderless",
      label: "Allow headerless",
      kind: "boolean",
      defaultText: "false",
      help: "Use the arrival time for messages without a header",
    },
    {
      key: "syncArrivalTime",
      label: "Sync arrival time",
      kind: "boolean",
      defaultText: "false",
      help: "Match on arrival times instead of header stamps",
    },
    {
      key: "queueOffset",
      label: "Queue offset",
      kind: "duration",
      perSlot: true,
      defaultText: "0",
      help: "Subtracted from this slot's stamps before matching",
    },
  ],
  "python/exact-time": [queueSize],
};

/** Every policy type the editor offers, in menu order. */
export const POLICY_TYPES: readonly string[] = Object.keys(POLICY_PARAMS);

/** Default parameters when the user switches to a policy type (required ones filled in). */
export function defaultPolicy(type: string): Record<string, unknown> {
  const required = (POLICY_PARAMS[type] ?? []).some((p) => p.key === "queueSize");
  switch (type) {
    case "ros/approximate-epsilon-time":
      return { type, queueSize: 10, epsilon: "10ms" };
    case "python/approximate-time":
      return { type, queueSize: 10, slop: "50ms" };
    default:
      return required ? { type, queueSize: 10 } : { type };
  }
}
