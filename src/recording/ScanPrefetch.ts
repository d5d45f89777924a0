import type { ChunkPrefetch } from "./ChunkPrefetch";

/** Where a chunk record lies in the file: its first byte and the byte after it. */
export interface ChunkAt {
  readonly offset: number;
  readonly end: number;
}

/**
 * What a scan's walk ahead learns of the record at `at`: where it ends, and whether it is a chunk
 * record; undefined when it is not one a writer puts between two chunks (or is unreadable): the
 * walk stops there.
 */
export type RecordAhead = (at: number) => Promise<{ readonly end: number; readonly chunk: boolean } | undefined>;

/**
 * Works ahead of the sequential scan of a recording without a usable index (a ROS 1 bag or an
 * MCAP file a killed recorder left): while the scan walks one chunk, the next ones are prepared
 * by `prefetch` (read and decompressed on a ChunkWorker's threads), as an indexed read's prefetch
 * does. A scan learns where a chunk is only when it gets there, so the chunks ahead are found by
 * reading the records after the one taken (`recordAt`: a bag's index data records, an MCAP's
 * message indexes) up to the next chunk records; the walk stops at the first record that is not
 * one of those (damage, the index or summary) and starts again from wherever the scan goes on.
 *
 * Guarantees: `take` gives what `prefetch` prepares of the chunk the scan reads, or `undefined`
 * when that failed, in which case the scan reads the chunk itself, with its own damage reports;
 * the records walked ahead are only read, never believed: the scan checks each one as it would
 * without a prefetch. At most `prefetch.lookahead` chunks are worked on ahead of the one taken.
 */
export class ScanPrefetch<P> {
  readonly #prefetch: ChunkPrefetch<ChunkAt, P>;
  readonly #recordAt: RecordAhead;
  readonly #size: number;
  /** Chunk records found after the one taken, in file order. */
  #ahead: ChunkAt[] = [];
  /** Where the walk goes on; undefined once it met a record that is not between two chunks. */
  #walkAt: number | undefined;

  /** @param size the file's size in bytes: the walk stops there */
  public constructor(prefetch: ChunkPrefetch<ChunkAt, P>, recordAt: RecordAhead, size: number) {
    this.#prefetch = prefetch;
    this.#recordAt = recordAt;
    this.#size = size;
  }

  /**
   * What the chunk record from `at` to `end` (as the scan read its header) is prepared into, or
   * undefined: the scan then reads it itself. Never rejects.
   */
  public async take(at: number, end: number): Promise<P | undefined> {
    let chunk = this.#ahead[0];
    if (chunk?.offset === at && chunk.end === end) {
      this.#ahead.shift();
    } else {
      chunk = { offset: at, end };
      this.#ahead = [];
      this.#walkAt = end;
    }
    await this.#walk();
    return await this.#prefetch.take(chunk, this.#ahead).catch(() => undefined);
  }

  /** Finds the next chunk records, until `lookahead` of them are known or the walk stops. */
  async #walk(): Promise<void> {
    while (this.#ahead.length < this.#prefetch.lookahead && this.#walkAt != undefined && this.#walkAt < this.#size) {
      const at = this.#walkAt;
      const record = await this.#recordAt(at).catch(() => undefined);
      if (record == undefined || record.end <= at) {
        this.#walkAt = undefined;
        return;
      }
      if (record.chunk) {
        this.#ahead.push({ offset: at, end: record.end });
      }
      this.#walkAt = record.end;
    }
  }
}
