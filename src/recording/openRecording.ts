import { BagRecording } from "./BagRecording";
import type { ByteSource } from "./ByteSource";
import type { ChunkWorker } from "./ChunkWorker";
import { McapRecording } from "./McapRecording";
import { RecordingError } from "./RecordingError";
import { SQLITE_MAGIC, Sqlite3Recording } from "./Sqlite3Recording";
import { loadDecompressors, type OpenOptions } from "./decompress";
import { defaultSqlJs, type SqlJsLoader } from "./sqlJs";
import { isWriteAheadLogMagic } from "./sqliteWriteAheadLog";
import type { ReadOptions, RecordedMessage, Recording } from "./types";

const BAG_MAGIC = [...new TextEncoder().encode("#ROSBAG V2.0\n")];
const MCAP_MAGIC = [0x89, 0x4d, 0x43, 0x41, 0x50];

/** Host services some formats need, and the decompression bound (OpenOptions). */
export interface OpenRecordingOptions extends OpenOptions {
  /** The SQLite engine for rosbag2 `.db3` files (default: sql.js finding its wasm beside the script). */
  readonly sqlJs?: SqlJsLoader;
  /**
   * Decompresses (and for MCAP checks) the next chunks of an MCAP file or ROS 1 bag on other
   * threads while this one is walked, whether the file is read through its index or by a scan
   * (in Node: `sharedChunkWorker()` from `recording/node`); default: on this thread.
   */
  readonly chunkWorker?: ChunkWorker;
}

/**
 * Opens a ROS 1 bag, an MCAP file or a rosbag2 sqlite3 file (`.db3`, without its folder's
 * metadata.yaml: see `openRosbag2` for folders), recognized by its first bytes (not its name). Runs wherever
 * the ByteSource does (Node, browser, Web Worker). Throws RecordingError (offset 0) for anything
 * else. No chunk or record larger than `options.maxChunkBytes` is read or decompressed (it is a
 * damaged chunk, see `OpenOptions`).
 *
 * ```ts
 * const recording = await openRecording(new BlobByteSource(file));
 * for await (const m of recording.messages({ topics: ["/imu/data"] })) { … }
 * ```
 */
export async function openRecording(source: ByteSource, options: OpenRecordingOptions = {}): Promise<Recording> {
  const head = await source.read(0, Math.min(source.size, Math.max(BAG_MAGIC.length, SQLITE_MAGIC.length)));
  const starts = (magic: number[]): boolean =>
    head.length >= magic.length && magic.every((b, i) => head[i] === b);
  if (starts(BAG_MAGIC)) {
    return await BagRecording.open(source, await loadDecompressors(options), {
      chunkWorker: options.chunkWorker,
      maxChunkBytes: options.maxChunkBytes,
    });
  }
  if (starts(MCAP_MAGIC)) {
    return await McapRecording.open(source, await loadDecompressors(options), {
      chunkWorker: options.chunkWorker,
      maxChunkBytes: options.maxChunkBytes,
    });
  }
  if (starts([...SQLITE_MAGIC])) {
    return await Sqlite3Recording.open(source, {
      sqlJs: options.sqlJs ?? defaultSqlJs,
      decompressors: await loadDecompressors(options),
      maxChunkBytes: options.maxChunkBytes,
    });
  }
  if (head.length >= 4 && isWriteAheadLogMagic(new DataView(head.buffer, head.byteOffset, 4).getUint32(0))) {
    throw new RecordingError(0, "this is a SQLite write-ahead log (the -wal file a rosbag2 .db3 in WAL mode leaves beside it), not a recording: open the .db3 file or the bag folder, and Lockstep reads the log with it");
  }
  throw new RecordingError(
    0,
    `not a recording Lockstep reads: expected a ROS 1 bag ("#ROSBAG V2.0"), an MCAP file (\\x89MCAP) or a rosbag2 .db3 ("SQLite format 3"), found ${JSON.stringify(new TextDecoder().decode(head.subarray(0, 8)))}`,
  );
}

/** `openRecording(source)` then `messages(options)`, as one async iterator. */
export async function* readRecording(
  source: ByteSource,
  options?: ReadOptions & OpenRecordingOptions,
): AsyncIterableIterator<RecordedMessage> {
  const recording = await openRecording(source, options);
  yield* recording.messages(options);
}
