/**
 * One damaged region of a recording that a reader skipped: a chunk or record that is corrupt,
 * truncated or refused (too large), or rows of a database that cannot be placed, and what it held
 * when the index says so.
 */
export interface RecordingDamage {
  /**
   * Byte offset of the damaged chunk or record (or where the file breaks off); undefined when the
   * damage has no byte offset (SQLite rows: the reason names the file, table and row instead).
   */
  readonly offset: number | undefined;
  /** Why it could not be read, without the offset. */
  readonly reason: string;
  /**
   * Messages lost per topic, when the file's index says how many the region held (only topics
   * the read asked for); undefined when nothing tells.
   */
  readonly lost: ReadonlyMap<string, number> | undefined;
}

/** A damage as one line: "byte offset 1234: reason", or the reason alone when it has no byte offset. */
export function damageText(damage: Pick<RecordingDamage, "offset" | "reason">): string {
  return damage.offset == undefined ? damage.reason : `byte offset ${damage.offset}: ${damage.reason}`;
}

/**
 * A recording that cannot be read (further, or in full): corrupt, truncated, or using something
 * Lockstep does not support. `offset` is the byte offset where the (first) problem is, and the
 * message states it before the reason; a problem that has no byte offset (a folder, a file of a
 * folder, an SQLite table or row, which the reason names) has none, and the message is the reason
 * alone. After a read that went past damage, `damages` lists every region that was skipped, in
 * file order.
 */
export class RecordingError extends Error {
  /** Byte offset of the problem in the file; undefined when it has none (see the class). */
  public readonly offset: number | undefined;
  /** The reason without the offset (e.g. "bz2 decompression failed: …"). */
  public readonly reason: string;
  /** Every damaged region a read skipped (one entry, this error's own, when it did not go on). */
  public readonly damages: readonly RecordingDamage[];
  /**
   * True when the read went on past every region in `damages` and delivered everything readable
   * (the error ends a complete read, see `afterDamage`); false when reading stopped here.
   */
  public readonly readPast: boolean;

  public constructor(
    offset: number | undefined,
    reason: string,
    options?: { cause?: unknown; damages?: readonly RecordingDamage[]; readPast?: boolean },
  ) {
    super(offset == undefined ? reason : `at byte offset ${offset}: ${reason}`, options);
    this.name = "RecordingError";
    this.offset = offset;
    this.reason = reason;
    this.damages = options?.damages ?? [{ offset, reason, lost: undefined }];
    this.readPast = options?.readPast ?? false;
  }

  /**
   * The error as a sentence about the recording `file`: "FILE at byte offset N: reason", or
   * "FILE: reason" when it has no byte offset.
   */
  public in(file: string): string {
    return this.offset == undefined ? `${file}: ${this.message}` : `${file} ${this.message}`;
  }

  /**
   * The error that ends a read which skipped `damages` (at least one): it names every offset, so
   * one error tells the whole story.
   */
  public static afterDamage(damages: readonly RecordingDamage[]): RecordingError {
    const first = damages[0]!;
    if (damages.length === 1) {
      return new RecordingError(first.offset, `${first.reason}; everything readable around it was delivered`, { damages, readPast: true });
    }
    const list = damages.map((d) => (d.offset == undefined ? d.reason : `byte ${d.offset}: ${d.reason}`)).join("; ");
    return new RecordingError(
      first.offset,
      `${damages.length} damaged regions were skipped (${list}); everything readable around them was delivered`,
      { damages, readPast: true },
    );
  }
}

/** The message of an unknown thrown value. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A thrown value's reason, without a RecordingError's own "at byte offset" prefix (if any). */
export function reasonOf(err: unknown): string {
  return err instanceof RecordingError ? err.reason : errorText(err);
}
