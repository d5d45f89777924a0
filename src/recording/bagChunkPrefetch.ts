import { ArrayByteSource, type ByteSource } from "./ByteSource";
import { ChunkPrefetch } from "./ChunkPrefetch";
import { canHandOver, type ChunkWorker } from "./ChunkWorker";
import { ScanPrefetch, type ChunkAt } from "./ScanPrefetch";
import { OP_CHUNK, OP_CONNECTION, OP_INDEX_DATA, chunkCompression, readRecordHeader, u32 } from "./bagRecords";

/** What the reader needs to find a chunk record: its byte offset (from the bag's index). */
export interface BagChunkAt {
  readonly offset: number;
}

const NOT_HANDED_OVER = new Uint8Array(0);

/**
 * The bag compressions worth a thread. bz2 is most of a pass's time (`analyze` of a 163 MB bz2
 * bag: 8.7–9.1 s on the reading thread, 5.4–5.6 s with two threads); lz4 is not (a 0.98 GB lz4
 * bag: 1.26–1.32 s on the reading thread, 1.42–1.46 s with two threads and about 100 MB more
 * memory), so its chunks stay on the reading thread.
 */
const ON_WORKER: ReadonlySet<string> = new Set(["bz2"]);

/**
 * Works ahead of an indexed ROS 1 bag reader on a ChunkWorker's threads: while the reader walks
 * one chunk, the next bz2 ones are read and decompressed there, as many as the worker works on at
 * once. In a bz2 bag decompression is most of a pass, so on two cores a pass takes about 40 %
 * less time.
 *
 * Each chunk is prepared into its decompressed data, or into `undefined`: the reader then reads it
 * as it would without a worker. That happens for every chunk the worker does not take (stored
 * uncompressed or lz4, a stored or declared size over `maxChunkBytes`) and for every failure (a
 * damaged header, a read that fails, data that does not decompress to its declared size, a thread
 * that died): the reader's own attempt then reports the damage, in the same words and at the same
 * offset as without a worker. The memory handed over is the chunk record's own read, never
 * touched again.
 *
 * Undefined (no prefetch) without a worker, when the worker does not decompress bz2, when the
 * source's reads are not buffers of their own (`readsAreOwned`: the chunk would be read twice),
 * or when the `first` chunk (any of those read) is not bz2 (or its header is unreadable): rosbag writes one
 * compression for a whole bag, and a prefetch of an uncompressed or lz4 bag would only read every
 * chunk's header a second time. A bag of mixed compressions whose first chunk is not bz2 then
 * reads all its chunks on the reading thread, with the same result.
 */
export async function bagChunkPrefetch<C extends BagChunkAt>(
  source: ByteSource,
  worker: ChunkWorker | undefined,
  maxChunkBytes: number,
  indexPos: number,
  first: C | undefined,
): Promise<ChunkPrefetch<C, Uint8Array | undefined> | undefined> {
  if (first == undefined || !workerTakesChunks(source, worker)) {
    return undefined;
  }
  const compression = await readRecordHeader(source, first.offset, indexPos).then(chunkCompression, () => undefined);
  return compression == undefined ? undefined : chunkPrefetchFor<C>(source, worker, maxChunkBytes, indexPos, compression);
}

/**
 * The prefetch for a bag whose chunks are compressed with `compression` (what its first chunk
 * says), reading no record data past `end`; undefined under the same conditions as
 * `bagChunkPrefetch`. For readers that have already read a chunk's header (a scan).
 */
export function chunkPrefetchFor<C extends BagChunkAt>(
  source: ByteSource,
  worker: ChunkWorker | undefined,
  maxChunkBytes: number,
  end: number,
  compression: string,
): ChunkPrefetch<C, Uint8Array | undefined> | undefined {
  if (!workerTakesChunks(source, worker) || !ON_WORKER.has(compression)) {
    return undefined;
  }
  return new ChunkPrefetch<C, Uint8Array | undefined>(
    async (chunk) => await storedChunk(source, worker, maxChunkBytes, chunk.offset, end),
    async (_chunk, record) => await decompressed(worker, record),
    worker.parallelism,
  );
}

/** What a writer puts between two chunks of a bag: the first chunk's index data, connection records. */
const BETWEEN_CHUNKS: ReadonlySet<number> = new Set([OP_CHUNK, OP_INDEX_DATA, OP_CONNECTION]);

/**
 * The same for the scan of a bag without a usable index (`ScanPrefetch`), whose first chunk
 * record is compressed with `compression`: chunks are read from `source`, the record headers
 * between them from `headers` (the same bytes; the scan's block reads). Undefined under the same
 * conditions as `bagChunkPrefetch`.
 */
export function bagScanPrefetch(
  source: ByteSource,
  worker: ChunkWorker | undefined,
  maxChunkBytes: number,
  compression: string,
  headers: ByteSource = source,
): ScanPrefetch<Uint8Array | undefined> | undefined {
  const prefetch = chunkPrefetchFor<ChunkAt>(source, worker, maxChunkBytes, source.size, compression);
  const recordAt = async (at: number): Promise<{ end: number; chunk: boolean } | undefined> => {
    const header = await readRecordHeader(headers, at);
    return BETWEEN_CHUNKS.has(header.op) ? { end: header.end, chunk: header.op === OP_CHUNK } : undefined;
  };
  return prefetch && new ScanPrefetch(prefetch, recordAt, source.size);
}

/** Whether `worker` can take chunks read from `source` at all (without reading any twice). */
function workerTakesChunks(source: ByteSource, worker: ChunkWorker | undefined): worker is ChunkWorker {
  return worker != undefined && source.readsAreOwned === true && worker.compressions.has("bz2");
}

/**
 * The chunk record at `offset` (header and data) when the worker can take it, else nothing; a
 * record whose data would run past `end` (the index, or the file's end) is an error.
 */
async function storedChunk(source: ByteSource, worker: ChunkWorker, maxChunkBytes: number, offset: number, end: number): Promise<Uint8Array> {
  const record = await readRecordHeader(source, offset, end);
  const compression = chunkCompression(record);
  if (record.op !== OP_CHUNK || !ON_WORKER.has(compression) || !worker.compressions.has(compression) || record.dataLength > maxChunkBytes) {
    return NOT_HANDED_OVER;
  }
  if (u32(record.fields.get("size"), "size", offset) > maxChunkBytes) {
    return NOT_HANDED_OVER;
  }
  return await source.read(offset, record.end - offset);
}

/** The data of the chunk record `record` (read whole) decompressed by the worker, or undefined. */
async function decompressed(worker: ChunkWorker, record: Uint8Array): Promise<Uint8Array | undefined> {
  if (record.byteLength === 0 || !canHandOver(record)) {
    return undefined;
  }
  try {
    // Parsed before the memory is handed over: from then on only the worker's reply is read.
    const header = await readRecordHeader(new ArrayByteSource(record), 0);
    const where = {
      compression: chunkCompression(header),
      offset: header.dataOffset,
      length: header.dataLength,
      uncompressedSize: u32(header.fields.get("size"), "size", 0),
    };
    return (await worker.decompress(record, where)).bytes;
  } catch {
    return undefined;
  }
}
