import type { ByteSource } from "./ByteSource";

/** Options of {@link EagerByteSource}; the defaults suit a reader on an interactive thread. */
export interface EagerReadOptions {
  /** The largest read served synchronously, in bytes (default 1 MiB); larger ones wait. */
  readonly maxSyncBytes?: number;
  /**
   * How long, in ms, reads may be served synchronously before one waits for the event loop
   * (default 10): the most a run of reads keeps timers, signals, a server's clients or a
   * worker's messages waiting, plus one read.
   */
  readonly yieldEveryMs?: number;
  /** The clock `yieldEveryMs` is measured on (tests); default `performance.now`. */
  readonly now?: () => number;
}

const DEFAULT_MAX_SYNC_BYTES = 1 << 20;
const DEFAULT_YIELD_EVERY_MS = 10;

/**
 * A ByteSource that serves `read` from its inner source's `readSync` where that exists (a file in
 * Node, a Blob in a Web Worker, bytes in memory), for a reader that makes many small reads one
 * after another: the ROS 1 bag reader reads a record header, an index data record and a few spans
 * per chunk, the MCAP reader's scan a record's prefix, opcode and body, and an asynchronous file
 * read costs a round trip through Node's thread pool, several times a small read's own cost from
 * the page cache.
 *
 * Guarantees: `read` resolves to the same bytes as the inner source's `read`, and rejects (never
 * throws) where it rejects; a read larger than `maxSyncBytes`, or the first read after
 * `yieldEveryMs` of synchronous ones, goes through the inner `read`, which waits for the event
 * loop; without `readSync` every read does. `readSync`, `size` and `readsAreOwned` are the inner
 * source's.
 *
 * ```ts
 * const bag = await BagRecording.open(new EagerByteSource(await FileByteSource.open(path)), decompressors);
 * ```
 */
export class EagerByteSource implements ByteSource {
  /** The inner source's `readSync`, when it has one. */
  public readonly readSync?: (offset: number, length: number) => Uint8Array;
  readonly #inner: ByteSource;
  readonly #maxSyncBytes: number;
  readonly #yieldEveryMs: number;
  readonly #now: () => number;
  /** When the last read that waited for the event loop ended (on `#now`'s clock). */
  #lastWait: number;

  public constructor(inner: ByteSource, options: EagerReadOptions = {}) {
    this.#inner = inner;
    if (inner.readSync) {
      this.readSync = inner.readSync.bind(inner);
    }
    this.#maxSyncBytes = options.maxSyncBytes ?? DEFAULT_MAX_SYNC_BYTES;
    this.#yieldEveryMs = options.yieldEveryMs ?? DEFAULT_YIELD_EVERY_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#lastWait = this.#now();
  }

  public get size(): number {
    return this.#inner.size;
  }

  public get readsAreOwned(): boolean | undefined {
    return this.#inner.readsAreOwned;
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    const readSync = this.readSync;
    if (readSync && length <= this.#maxSyncBytes && this.#now() - this.#lastWait < this.#yieldEveryMs) {
      return readSync(offset, length);
    }
    try {
      return await this.#inner.read(offset, length);
    } finally {
      this.#lastWait = this.#now();
    }
  }
}
