/**
 * What a `Buffer` does with incoming data (fkie's `BufferPolicy`, reference §2.5). The values
 * are the strings the pipeline config uses (`"buffer": {"policy": "queue"}`).
 */
export const BufferPolicy = {
  /** Incoming data is dropped (reported with reason `discarded`). */
  Discard: "discard",
  /** Incoming data is stored until `processOne`, `spinOnce` or `spin` forwards it. */
  Queue: "queue",
  /** Incoming data is forwarded at once, like a plain wire. */
  Passthru: "passthru",
} as const;

/** One of `BufferPolicy.Discard`, `BufferPolicy.Queue`, `BufferPolicy.Passthru`. */
export type BufferPolicy = (typeof BufferPolicy)[keyof typeof BufferPolicy];

/** Whether `value` is a BufferPolicy string. */
export function isBufferPolicy(value: unknown): value is BufferPolicy {
  return value === "discard" || value === "queue" || value === "passthru";
}
