// ROS 1 bag (format 2.0) records: their op codes, header fields and lengths, read from a
// ByteSource with every length checked against the file and the read limit. Shared by the
// indexed reader, the index checks and the sequential scan.
import type { ByteSource } from "./ByteSource";
import { RecordingError, errorText } from "./RecordingError";
import { checkStoredSize } from "./decompress";
import type { RecordTime } from "./types";

/** The text a ROS 1 bag (format 2.0) starts with. */
export const MAGIC = "#ROSBAG V2.0\n";

/** Where the first record (the bag header) starts. */
export const FIRST_RECORD = MAGIC.length;

/** Record op codes (the format's numbers). */
export const OP_MESSAGE = 2;

export const OP_BAG_HEADER = 3;

export const OP_INDEX_DATA = 4;

export const OP_CHUNK = 5;

export const OP_CHUNK_INFO = 6;

export const OP_CONNECTION = 7;

/** What each record op is, for sentences naming a record. */
export const RECORD_NAMES: ReadonlyMap<number, string> = new Map([
  [OP_MESSAGE, "message record"],
  [OP_BAG_HEADER, "bag header record"],
  [OP_INDEX_DATA, "index data record"],
  [OP_CHUNK, "chunk record"],
  [OP_CHUNK_INFO, "chunk info record"],
  [OP_CONNECTION, "connection record"],
]);

/** The same with their article, for sentences naming a record found where another was expected. */
export const OP_NAMES: ReadonlyMap<number, string> = new Map(
  [...RECORD_NAMES].map(([op, name]) => [op, `${op === OP_INDEX_DATA ? "an" : "a"} ${name}`]),
);

/** The records a bag holds outside its chunks: bag header, chunk, index data, chunk info, connection. */
export const TOP_LEVEL_OPS: ReadonlySet<number> = new Set([OP_BAG_HEADER, OP_CHUNK, OP_INDEX_DATA, OP_CHUNK_INFO, OP_CONNECTION]);

/** The size of one entry of an index data record (version 1): receive time and offset. */
export const INDEX_ENTRY = 12;

/** Sanity bound on one record header: real ones are a few hundred bytes. */
const MAX_RECORD_HEADER = 1 << 20;
/** Bytes read at a record's start: its header length, and usually its whole header and data length. */
const HEADER_READ = 512;

/** Decodes header field names and text values (UTF-8). */
export const textDecoder = new TextDecoder();

/** A field map of a ROS bag record header (`name=value` entries, each length-prefixed). */
export function parseFields(bytes: Uint8Array, offset: number): Map<string, Uint8Array> {
  const fields = new Map<string, Uint8Array>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  while (at < bytes.length) {
    if (at + 4 > bytes.length) {
      throw new RecordingError(offset, "record header field is cut off (corrupt record header)");
    }
    const len = view.getUint32(at, true);
    at += 4;
    if (at + len > bytes.length) {
      throw new RecordingError(offset, `record header field length ${len} is impossible: it says ${len} bytes but the header has ${bytes.length - at} after it (corrupt record header)`);
    }
    const field = bytes.subarray(at, at + len);
    const eq = field.indexOf(0x3d);
    if (eq < 0) {
      throw new RecordingError(offset, "record header field has no '=' (corrupt record header)");
    }
    fields.set(textDecoder.decode(field.subarray(0, eq)), field.subarray(eq + 1));
    at += len;
  }
  return fields;
}

/** A header field as an unsigned 32-bit count; throws RecordingError naming it when missing or mis-sized. */
export function u32(field: Uint8Array | undefined, name: string, offset: number): number {
  if (field?.byteLength !== 4 && field?.byteLength !== 8) {
    throw new RecordingError(offset, `record header field "${name}" is missing or has the wrong size`);
  }
  return new DataView(field.buffer, field.byteOffset, field.byteLength).getUint32(0, true);
}

/** A header field as an unsigned 64-bit position (exact below 2^53); throws RecordingError naming it when missing or mis-sized. */
export function u64(field: Uint8Array | undefined, name: string, offset: number): number {
  if (field?.byteLength !== 8) {
    throw new RecordingError(offset, `record header field "${name}" is missing or has the wrong size`);
  }
  const view = new DataView(field.buffer, field.byteOffset, field.byteLength);
  return view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
}

/** A record's op, header fields, and where its data lies (`end`: the byte after it). */
export interface RecordHeader {
  op: number;
  fields: Map<string, Uint8Array>;
  dataOffset: number;
  dataLength: number;
  end: number;
}

/**
 * Reads and checks the header of the record at `pos` (not its data). `indexPos`, for a record
 * before a readable index, is where the record must end: running past it is a corrupt length,
 * not a truncation.
 */
export async function readRecordHeader(source: ByteSource, pos: number, indexPos?: number): Promise<RecordHeader> {
  const record = await readHeaderOfCut(source, pos, indexPos);
  if (record.end > source.size) {
    throw cutOffError(record, pos, source.size);
  }
  return record;
}

/** Names a record (at `pos`) whose data runs past the end of the file (of `size` bytes). */
export function cutOffError(record: RecordHeader, pos: number, size: number): RecordingError {
  // A length the file cannot hold is either cut off by a truncation or corrupt; only the
  // surrounding records tell which, so the sentence names both.
  return new RecordingError(
    pos,
    `the file is truncated or this record's length is corrupt: the record here (op ${record.op}) says its data is ${record.dataLength} bytes but the file has ${size - record.dataOffset} after its header`,
  );
}

/**
 * `readRecordHeader`, except that the record's data may run past the end of the file (`end` is
 * then after it): the header of a record cut off by a truncation.
 */
export async function readHeaderOfCut(source: ByteSource, pos: number, indexPos?: number): Promise<RecordHeader> {
  const size = source.size;
  const truncated = (what: string): RecordingError =>
    new RecordingError(pos, `the file is truncated: ${what} but the file ends at byte ${size}`);
  if (pos + 4 > size) {
    throw truncated("a record starts here");
  }
  // One read usually holds the header too (a chunk's takes about 50 bytes): a reader of a large
  // bag reads one record header per chunk, and each read costs far more than its bytes.
  const head = await source.read(pos, Math.min(size - pos, HEADER_READ));
  const headerLength = new DataView(head.buffer, head.byteOffset, 4).getUint32(0, true);
  const afterLength = size - pos - 4;
  if (headerLength < 4) {
    throw new RecordingError(pos, `record header length ${headerLength} is impossible: a header holds at least its "op" field (corrupt data)`);
  }
  if (headerLength > MAX_RECORD_HEADER) {
    const room = headerLength > afterLength ? `the file has ${afterLength} after it` : `a record header is at most ${MAX_RECORD_HEADER} bytes`;
    throw new RecordingError(pos, `record header length ${headerLength} is impossible: it says ${headerLength} bytes but ${room} (corrupt data)`);
  }
  if (pos + 8 + headerLength > size) {
    throw truncated(`the record header here needs ${headerLength + 8} bytes`);
  }
  const bytes = 8 + headerLength <= head.byteLength ? head.subarray(4, 8 + headerLength) : await source.read(pos + 4, headerLength + 4);
  const fields = parseFields(bytes.subarray(0, headerLength), pos);
  const dataLength = new DataView(bytes.buffer, bytes.byteOffset + headerLength, 4).getUint32(0, true);
  const opField = fields.get("op");
  if (opField?.byteLength !== 1) {
    throw new RecordingError(pos, 'record header has no valid "op" field (corrupt data)');
  }
  const dataOffset = pos + 8 + headerLength;
  if (indexPos != undefined && dataOffset + dataLength > indexPos) {
    throw new RecordingError(
      pos,
      `record data length ${dataLength} is impossible: the record here (op ${opField[0]!}) says its data is ${dataLength} bytes but only ${Math.max(0, indexPos - dataOffset)} lie between its header and the index at byte ${indexPos} (corrupt data)`,
    );
  }
  return { op: opField[0]!, fields, dataOffset, dataLength, end: dataOffset + dataLength };
}

/**
 * The data of the record at `pos` (a "chunk" or "connection" one, as `kind` says), read only when
 * it holds at most `limit` bytes: else a RecordingError at `pos` names the sizes and the remedy.
 */
export async function readRecordData(source: ByteSource, record: RecordHeader, pos: number, kind: "chunk" | "connection", limit: number): Promise<Uint8Array> {
  try {
    checkStoredSize(`the ${kind} record here`, kind === "chunk" ? "chunk" : "record", record.dataLength, limit);
  } catch (err) {
    throw new RecordingError(pos, errorText(err));
  }
  return await source.read(record.dataOffset, record.dataLength);
}

/**
 * The receive time stored in the 8 bytes at `at` of `bytes` (sec, then nsec, little-endian
 * uint32s), as message records and index data entries store it. Not checked (nsec may be 1e9 or
 * more): callers decide what an impossible time means.
 */
export function recordTimeAt(bytes: Uint8Array, at = 0): RecordTime {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, 8);
  return { sec: view.getUint32(0, true), nsec: view.getUint32(4, true) };
}

/** Whether the record is a message record (connection and receive time): those lie only inside chunks. */
export function isMessageRecord(record: RecordHeader): boolean {
  return record.op === OP_MESSAGE && record.fields.get("conn")?.byteLength === 4 && record.fields.get("time")?.byteLength === 8;
}

/**
 * Whether the header is one of a record a bag holds outside its chunks (bag header, chunk, index
 * data, chunk info, connection) with the fields that record has, at their sizes. Its data length
 * is checked by `countsMatch`.
 */
export function isTopLevelHeader(record: RecordHeader): boolean {
  const size = (name: string): number | undefined => record.fields.get(name)?.byteLength;
  switch (record.op) {
    case OP_BAG_HEADER:
      return size("index_pos") === 8 && size("conn_count") === 4 && size("chunk_count") === 4;
    case OP_CHUNK:
      return record.fields.has("compression") && size("size") === 4;
    case OP_INDEX_DATA:
      return size("ver") === 4 && size("conn") === 4 && size("count") === 4;
    case OP_CHUNK_INFO:
      return size("ver") === 4 && size("chunk_pos") === 8 && size("start_time") === 8 && size("end_time") === 8 && size("count") === 4;
    case OP_CONNECTION:
      return size("conn") === 4 && record.fields.has("topic");
    default:
      return false;
  }
}

/** Whether an index data or chunk info record holds the data its count says; true for the others. */
export function countsMatch(record: RecordHeader): boolean {
  const perEntry = record.op === OP_INDEX_DATA ? INDEX_ENTRY : record.op === OP_CHUNK_INFO ? 8 : undefined;
  const count = record.fields.get("count");
  return perEntry == undefined || (count?.byteLength === 4 && record.dataLength === u32(count, "count", 0) * perEntry);
}

/** The header at `pos` (its data perhaps cut off by the end of the file), or undefined when none parses there. */
export async function headerAt(source: ByteSource, pos: number): Promise<RecordHeader | undefined> {
  try {
    return await readHeaderOfCut(source, pos);
  } catch {
    return undefined;
  }
}

/** A chunk record's `compression` field ("none", "bz2", "lz4"; empty when missing). */
export function chunkCompression(record: RecordHeader): string {
  return textDecoder.decode(record.fields.get("compression") ?? new Uint8Array());
}
