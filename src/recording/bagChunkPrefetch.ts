import { ArrayByteSource, type ByteSource } from "./ByteSource";
import { ChunkPrefetch } from "./ChunkPrefetch";
import { canHandOver, type ChunkWorker } from "./ChunkWorker";
import { OP_CHUNK, chunkCompression, readRecordHeader, u32 } from "./bagRecords";

/** What the reader needs to find a chunk record: its byte offset (from the bag's index). */
export interface BagChunkAt {
  readonly offset: number;
}

const NOT_HANDED_OVER = new Uint8Array(0);

/**
 * Works ahead of an indexed ROS 1 bag reader on a ChunkWorker's threads: while the reader walks
 * one chunk, the next compressed ones (bz2, lz4: whatever the worker decompresses) are read and
 * decompressed there, as many as the worker works on at once. In a compressed bag decompression is
 * most of a pass (bz2 above all), so on two cores a pass takes about half as long.
 *
 * Each chunk is prepared into its decompressed data, or into `undefined`: the reader then reads it
 * as it would without a worker. That happens for every chunk the worker cannot take (stored
 * uncompressed, a compression it does not know, a stored or declared size over `maxChunkBytes`)
 * and for every failure (a damaged header, a read that fails, data that does not decompress to
 * its declared size, a thread that died): the reader's own attempt then reports the damage, in
 * the same words and at the same offset as without a worker. The memory handed over is the
 * chunk record's own read, never touched again.
 *
 * Undefined (no prefetch) without a worker, when the worker decompresses neither bag
 * compression, or when the source's reads are not buffers of their own (`readsAreOwned`): the
 * chunk would be read twice.
 */
export function bagChunkPrefetch<C extends BagChunkAt>(
  source: ByteSource,
  worker: ChunkWorker | undefined,
  maxChunkBytes: number,
  indexPos: number,
): ChunkPrefetch<C, Uint8Array | undefined> | undefined {
  if (worker == undefined || source.readsAreOwned !== true || !["bz2", "lz4"].some((c) => worker.compressions.has(c))) {
    return undefined;
  }
  return new ChunkPrefetch<C, Uint8Array | undefined>(
    async (chunk) => await storedChunk(source, worker, maxChunkBytes, chunk.offset, indexPos),
    async (_chunk, record) => await decompressed(worker, record),
    worker.parallelism,
  );
}

/** The chunk record at `offset` (header and data) when the worker can take it, else nothing. */
async function storedChunk(source: ByteSource, worker: ChunkWorker, maxChunkBytes: number, offset: number, indexPos: number): Promise<Uint8Array> {
  const record = await readRecordHeader(source, offset, indexPos);
  if (record.op !== OP_CHUNK || !worker.compressions.has(chunkCompression(record)) || record.dataLength > maxChunkBytes) {
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
