import type { ByteSource } from "./ByteSource";
import type { ChunkPrefetch } from "./ChunkPrefetch";
import type { ChunkWorker } from "./ChunkWorker";
import { chunkPrefetchFor, type BagChunkAt } from "./bagChunkPrefetch";
import { OP_CHUNK, OP_CONNECTION, OP_INDEX_DATA, readRecordHeader } from "./bagRecords";

/** What a writer puts between two chunks of a bag: the first chunk's index data, connection records. */
const BETWEEN_CHUNKS: ReadonlySet<number> = new Set([OP_CHUNK, OP_INDEX_DATA, OP_CONNECTION]);

/**
 * Works ahead of the sequential scan of a ROS 1 bag without a usable index on a ChunkWorker's
 * threads, as `bagChunkPrefetch` does for an indexed read: while the scan walks one chunk, the
 * next bz2 ones are read and decompressed there. A scan learns where a chunk is only when it gets
 * there, so the chunks ahead are found by reading the headers of the records after the chunk
 * taken (its index data records, connection records) up to the next chunk records; the walk
 * stops at the first record that is not one of those (damage, or the index), and starts again
 * from wherever the scan goes on.
 *
 * Guarantees: `take` gives the data of the chunk record the scan reads, decompressed, or
 * `undefined`, in which case the scan reads and decompresses the chunk itself, with its own
 * damage reports (the conditions are `bagChunkPrefetch`'s); the records walked ahead are only
 * read, never believed: the scan checks each one as it would without a worker. At most the
 * worker's parallelism plus one chunks are worked on ahead of the one taken.
 */
export class BagScanPrefetch {
  /** Where the walk reads record headers. */
  readonly #headers: ByteSource;
  readonly #prefetch: ChunkPrefetch<BagChunkAt, Uint8Array | undefined>;
  /** Chunk records found after the one taken, in file order. */
  #ahead: BagChunkAt[] = [];
  /** Where the walk goes on; undefined once it met a record that is not between two chunks. */
  #walkAt: number | undefined;

  private constructor(headers: ByteSource, prefetch: ChunkPrefetch<BagChunkAt, Uint8Array | undefined>) {
    this.#headers = headers;
    this.#prefetch = prefetch;
  }

  /**
   * A prefetch for a scan whose first chunk record is compressed with `compression`, or undefined
   * when no chunk of such a bag goes to the worker (see `bagChunkPrefetch`). Chunks are read from
   * `source`, the headers between them from `headers` (the same bytes; the scan's block reads).
   */
  public static create(
    source: ByteSource,
    worker: ChunkWorker | undefined,
    maxChunkBytes: number,
    compression: string,
    headers: ByteSource = source,
  ): BagScanPrefetch | undefined {
    const prefetch = chunkPrefetchFor<BagChunkAt>(source, worker, maxChunkBytes, source.size, compression);
    return prefetch && new BagScanPrefetch(headers, prefetch);
  }

  /**
   * The decompressed data of the chunk record that starts at `at` and ends at `end` (as the scan
   * read its header), or undefined: the scan then reads it itself. Never rejects.
   */
  public async take(at: number, end: number): Promise<Uint8Array | undefined> {
    let chunk = this.#ahead[0];
    if (chunk?.offset === at) {
      this.#ahead.shift();
    } else {
      chunk = { offset: at };
      this.#ahead = [];
      this.#walkAt = end;
    }
    await this.#walk();
    return await this.#prefetch.take(chunk, this.#ahead).catch(() => undefined);
  }

  /** Finds the next chunk records, until `lookahead` of them are known or the walk stops. */
  async #walk(): Promise<void> {
    const size = this.#headers.size;
    while (this.#ahead.length < this.#prefetch.lookahead && this.#walkAt != undefined && this.#walkAt < size) {
      const at = this.#walkAt;
      const header = await readRecordHeader(this.#headers, at).catch(() => undefined);
      if (header == undefined || !BETWEEN_CHUNKS.has(header.op)) {
        this.#walkAt = undefined;
        return;
      }
      if (header.op === OP_CHUNK) {
        this.#ahead.push({ offset: at });
      }
      this.#walkAt = header.end;
    }
  }
}
