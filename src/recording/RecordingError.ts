/**
 * A recording that cannot be read (further): corrupt, truncated, or using something Lockstep does
 * not support. `offset` is the byte offset where the problem is (the start of the record or chunk
 * that failed, or the end of the data for truncation); the message states it and the reason.
 */
export class RecordingError extends Error {
  /** Byte offset of the problem in the file. */
  public readonly offset: number;
  /** The reason without the offset (e.g. "bz2 decompression failed: …"). */
  public readonly reason: string;

  public constructor(offset: number, reason: string, options?: { cause?: unknown }) {
    super(`at byte offset ${offset}: ${reason}`, options);
    this.name = "RecordingError";
    this.offset = offset;
    this.reason = reason;
  }
}

/** The message of an unknown thrown value. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
