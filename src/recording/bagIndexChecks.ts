// Checks of a ROS 1 bag's index made before it is trusted: @foxglove/rosbag believes every
// count and position in it, so a damaged one would send it astray or hide chunks.
import type { Bag } from "@foxglove/rosbag";

import type { ByteSource } from "./ByteSource";
import { timeLess } from "./ChunkMerge";
import { RecordingError, reasonOf } from "./RecordingError";
import {
  FIRST_RECORD,
  OP_CHUNK,
  OP_CHUNK_INFO,
  OP_CONNECTION,
  OP_NAMES,
  parseFields,
  readRecordData,
  readRecordHeader,
  u32,
  u64,
  type RecordHeader,
} from "./bagRecords";
import { timeText } from "./recordedMessage";

/**
 * Checks the index's records before @foxglove/rosbag parses them, because it trusts them (a damaged
 * count or length there becomes a JavaScript error, and a count of 2^31 or more is read as
 * negative): `conn_count` connection records start at the index position and `chunk_count` chunk
 * info records follow, no more and no fewer, each whole and with the fields and data size the
 * parser reads. Throws a RecordingError at the offending record (or at the bag header, for a
 * count) saying what the file holds instead. Reads no record data larger than `limit`. Returns
 * where the index ends: a file that goes on past it holds bytes that are not part of the bag.
 */
export async function checkIndexLayout(source: ByteSource, indexPos: number, header: Map<string, Uint8Array>, limit: number): Promise<number> {
  const connectionCount = u32(header.get("conn_count"), "conn_count", FIRST_RECORD);
  const chunkCount = u32(header.get("chunk_count"), "chunk_count", FIRST_RECORD);
  if (connectionCount === 0 && chunkCount > 0) {
    throw new RecordingError(FIRST_RECORD, `the bag header says ${chunkCount} chunks but no connection`);
  }
  let pos = indexPos;
  const next = async (): Promise<RecordHeader | undefined> => {
    if (pos >= source.size) {
      return undefined;
    }
    try {
      return await readRecordHeader(source, pos);
    } catch (err) {
      throw new RecordingError(pos, `its record at byte ${pos} is damaged: ${reasonOf(err)}`, { cause: err });
    }
  };
  const expectRecords = async (op: number, expected: number, what: string, check: (record: RecordHeader) => Promise<void>): Promise<void> => {
    // Each record moves `pos` forward, so a huge count stops at the end of the file.
    for (let held = 0; held < expected; held++) {
      const record = await next();
      if (record?.op !== op) {
        const instead = record ? `; ${OP_NAMES.get(record.op) ?? "a record"} (op ${record.op}) follows them at byte ${pos}` : "";
        throw new RecordingError(FIRST_RECORD, `the bag header says ${expected} ${what} but the index holds ${held}${instead}`);
      }
      await check(record);
      pos = record.end;
    }
    const extra = pos < source.size ? await readRecordHeader(source, pos).catch(() => undefined) : undefined;
    if (extra?.op === op) {
      throw new RecordingError(FIRST_RECORD, `the bag header says ${expected} ${what} but the index holds more (another at byte ${pos})`);
    }
  };
  await expectRecords(OP_CONNECTION, connectionCount, "connections", async (record) => {
    u32(record.fields.get("conn"), "conn", pos);
    let data: Map<string, Uint8Array>;
    try {
      data = parseFields(await readRecordData(source, record, pos, "connection", limit), pos);
    } catch (err) {
      throw new RecordingError(pos, `the data of the connection record at byte ${pos} is unreadable: ${reasonOf(err)}`, { cause: err });
    }
    for (const name of ["type", "md5sum", "message_definition"]) {
      if (!data.has(name)) {
        throw new RecordingError(pos, `the connection record at byte ${pos} has no "${name}" field`);
      }
    }
  });
  await expectRecords(OP_CHUNK_INFO, chunkCount, "chunks", async (record) => {
    u32(record.fields.get("ver"), "ver", pos);
    const chunkPosField = record.fields.get("chunk_pos");
    if (!Number.isSafeInteger(u64(chunkPosField, "chunk_pos", pos))) {
      const exact = new DataView(chunkPosField!.buffer, chunkPosField!.byteOffset, 8).getBigUint64(0, true);
      throw new RecordingError(pos, `the chunk info record at byte ${pos} points to byte ${exact}, past the end of the file`);
    }
    for (const name of ["start_time", "end_time"]) {
      if (record.fields.get(name)?.byteLength !== 8) {
        throw new RecordingError(pos, `record header field "${name}" is missing or has the wrong size`);
      }
    }
    const count = u32(record.fields.get("count"), "count", pos);
    if (record.dataLength !== count * 8) {
      throw new RecordingError(pos, `the chunk info record at byte ${pos} says it lists ${count} connections (${count * 8} bytes) but holds ${record.dataLength} bytes`);
    }
  });
  return pos;
}

/**
 * Checks what @foxglove/rosbag does not: every chunk the index lists starts a chunk record inside
 * the file, before the index (a record whose header parses must be a chunk), spans a time range
 * (valid times, start not after end: the chunks are merged in start-time order), and names only
 * connections the index has, counts messages in each chunk, and lists chunks at all when there is
 * room for them. A flipped byte in the index otherwise sends the reader to the wrong place or
 * silently hides a chunk; such an index is not used (the file is scanned instead).
 */
export async function checkChunkInfos(bag: Bag, source: ByteSource, indexPos: number): Promise<void> {
  // No chunk listed while records lie between the bag header and the index (a damaged chunk
  // count): the index would hide them all.
  if (bag.chunkInfos.length === 0 && (await readRecordHeader(source, FIRST_RECORD)).end < indexPos) {
    throw new RecordingError(indexPos, `the index lists no chunk, but records lie between the bag header and the index at byte ${indexPos}`);
  }
  for (const info of bag.chunkInfos) {
    const at = info.offset ?? indexPos;
    // A writer never closes an empty chunk: a chunk info that counts no message is damaged, and
    // would hide its chunk.
    if (info.connections.every(({ count }) => count === 0)) {
      throw new RecordingError(at, `the chunk info of the chunk at byte ${info.chunkPosition} counts no message`);
    }
    if (!Number.isSafeInteger(info.chunkPosition) || info.chunkPosition < FIRST_RECORD || info.chunkPosition >= indexPos) {
      throw new RecordingError(at, `a chunk info record points to byte ${info.chunkPosition}, outside the chunk area (${FIRST_RECORD} to ${indexPos})`);
    }
    // The chunks are merged in the order of their start times: a start time that is not a time,
    // or after the end time, would deliver the chunk's messages out of order.
    const { startTime, endTime } = info;
    if (startTime.nsec >= 1e9 || endTime.nsec >= 1e9 || timeLess(endTime, startTime)) {
      throw new RecordingError(
        at,
        `the chunk info of the chunk at byte ${info.chunkPosition} says it spans receive times ${timeText(startTime)} to ${timeText(endTime)}, which is not a time range`,
      );
    }
    for (const { conn } of info.connections) {
      if (!bag.connections.has(conn)) {
        throw new RecordingError(at, `the chunk info of the chunk at byte ${info.chunkPosition} names connection ${conn}, which the index does not have`);
      }
    }
    let op: number | undefined;
    try {
      op = (await readRecordHeader(source, info.chunkPosition)).op;
    } catch {
      // A damaged chunk header: the chunk is reported as damaged when read, the index is fine.
      op = undefined;
    }
    if (op != undefined && op !== OP_CHUNK) {
      // Named at the chunk's place: a damaged op there is what the scan will skip.
      throw new RecordingError(info.chunkPosition, `the index lists a chunk at byte ${info.chunkPosition}, but the record there is op ${op}`);
    }
  }
}
