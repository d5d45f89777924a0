import { BagRecording } from "./BagRecording";
import type { ByteSource } from "./ByteSource";
import { McapRecording } from "./McapRecording";
import { RecordingError } from "./RecordingError";
import { loadDecompressors } from "./decompress";
import type { ReadOptions, RecordedMessage, Recording } from "./types";

const BAG_MAGIC = [...new TextEncoder().encode("#ROSBAG V2.0\n")];
const MCAP_MAGIC = [0x89, 0x4d, 0x43, 0x41, 0x50];

/**
 * Opens a ROS 1 bag or an MCAP file, recognized by its first bytes (not its name). Runs wherever
 * the ByteSource does (Node, browser, Web Worker). Throws RecordingError (offset 0) for anything
 * else.
 *
 * ```ts
 * const recording = await openRecording(new BlobByteSource(file));
 * for await (const m of recording.messages({ topics: ["/imu/data"] })) { … }
 * ```
 */
export async function openRecording(source: ByteSource): Promise<Recording> {
  const head = await source.read(0, Math.min(source.size, BAG_MAGIC.length));
  const starts = (magic: number[]): boolean =>
    head.length >= magic.length && magic.every((b, i) => head[i] === b);
  if (starts(BAG_MAGIC)) {
    return await BagRecording.open(source, await loadDecompressors());
  }
  if (starts(MCAP_MAGIC)) {
    return await McapRecording.open(source, await loadDecompressors());
  }
  throw new RecordingError(
    0,
    `not a recording Lockstep reads: expected a ROS 1 bag ("#ROSBAG V2.0") or an MCAP file (\\x89MCAP), found ${JSON.stringify(new TextDecoder().decode(head.subarray(0, 8)))}`,
  );
}

/** `openRecording(source)` then `messages(options)`, as one async iterator. */
export async function* readRecording(
  source: ByteSource,
  options?: ReadOptions,
): AsyncIterableIterator<RecordedMessage> {
  const recording = await openRecording(source);
  yield* recording.messages(options);
}
