import type { ParameterDescriptor, ParameterValues } from "./policies/PolicyDescriptor";

/**
 * The parameters of the Buffer between a pipeline's inputs and its combiner (fkie's `Buffer`,
 * reference fkie-message-filters.md §2.5), described like a policy's: the config's `buffer`
 * section, its schema, types and editor fields are derived from this list.
 */
export const BUFFER_PARAMETERS = [
  {
    name: "policy",
    kind: "choice",
    label: "Buffer policy",
    help: "passthru forwards each message at once; queue holds them until the consumer takes them (bounded, the oldest is dropped when full); discard drops every message",
    libraryName: "BufferPolicy",
    choices: ["discard", "queue", "passthru"],
    default: "passthru",
  },
  {
    name: "maxQueueSize",
    kind: "count",
    label: "Buffer queue size",
    help: "Messages the queue holds; when full the oldest is dropped (queue-overflow)",
    libraryName: "max_queue_size",
    unit: "messages",
    default: 1,
    minimum: 1,
    maximum: 1_000_000_000,
  },
] as const satisfies readonly ParameterDescriptor[];

/** The parsed `buffer` section of a pipeline config. */
export type BufferConfig = ParameterValues<typeof BUFFER_PARAMETERS>;

/** Buffer policy names (fkie BufferPolicy). */
export type BufferPolicyName = NonNullable<BufferConfig["policy"]>;
