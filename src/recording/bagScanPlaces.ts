// Where a ROS 1 bag's sequential scan may go on after a record: whether a record really starts
// where a length says, and where the next one starts when it does not.
import type { ChunkRecords } from "./BagRecording";
import type { ByteSource } from "./ByteSource";
import {
  INDEX_ENTRY,
  OP_CONNECTION,
  OP_INDEX_DATA,
  TOP_LEVEL_OPS,
  countsMatch,
  headerAt,
  isMessageRecord,
  isTopLevelHeader,
  recordTimeAt,
  u32,
  type RecordHeader,
} from "./bagRecords";
import type { RecordTime } from "./types";

/** How far before its "op" field a record header may start: the fields written before it. */
const MAX_FIELDS_BEFORE_OP = 512;

/** Bytes examined at a time when looking for the next record after damage, the read limit allowing. */
export const RESYNC_BLOCK = 1 << 20;

/** The fewest bytes examined at a time, however low the read limit. */
export const RESYNC_MIN_BLOCK = 4096;

/** What a sequential scan knows of where records start in its file. */
export interface ScanPlaces {
  readonly source: ByteSource;
  /** Where the bag header says the index starts (the records before it end there), if in the file. */
  readonly indexPos: number | undefined;
  /** Positions from which the records were found to go on as a bag's top level does. */
  readonly borneOut: Set<number>;
  /** Bytes examined at a time when looking for the next record (at most the read limit). */
  readonly block: number;
}

/** What follows a record where its length says it ends, when reading can go on there. */
export interface RecordAfter {
  /**
   * The header of the whole record there; undefined at the end of the file, at the index
   * position, or for a record cut off by the end of the file.
   */
  readonly header: RecordHeader | undefined;
}

/**
 * Whether the records from `at` on go on as a bag's top level does: `at` is the end of the file or
 * the index position, or a top-level record starts there that is cut off by the end of the file,
 * or a whole one other than a connection record, or a run of connection records (the index's)
 * that ends in one of these. Connection records lie inside uncompressed chunks too, followed by
 * message records: this tells them apart.
 */
async function goesOnAtTopLevel(places: ScanPlaces, at: number): Promise<boolean> {
  const { source, borneOut } = places;
  const run: number[] = [];
  let p = at;
  while (p !== source.size && p !== places.indexPos && !borneOut.has(p)) {
    const record = await headerAt(source, p);
    if (!record || !isTopLevelHeader(record)) {
      return false;
    }
    if (record.end > source.size) {
      break;
    }
    run.push(p);
    if (record.op !== OP_CONNECTION) {
      break;
    }
    p = record.end;
  }
  // Each record of the run is met again as the scan goes on: it is not followed a second time.
  for (const q of run) {
    borneOut.add(q);
  }
  return true;
}

/**
 * After a record: what follows it where its length says it ends (`at`), when reading can go on
 * there; undefined when that length must be damaged. Reading goes on at the end of the file, at
 * the index position, and at a record a bag holds outside its chunks: a bag header, chunk, index
 * data or chunk info one (the common case: one header read), even one cut off by the end of the
 * file (a truncation, named when it is read); a connection record, or one whose op or fields are
 * damaged, only when the records after it go on at top level (`goesOnAtTopLevel`). Never at a
 * message record: those lie inside chunks.
 */
export async function recordAfter(places: ScanPlaces, at: number): Promise<RecordAfter | undefined> {
  const { source } = places;
  if (at === source.size || at === places.indexPos) {
    return { header: undefined };
  }
  const record = await headerAt(source, at);
  if (!record || isMessageRecord(record)) {
    return undefined;
  }
  const whole = record.end <= source.size;
  if (isTopLevelHeader(record) && (record.op !== OP_CONNECTION || !whole)) {
    return { header: whole ? record : undefined };
  }
  return whole && (await goesOnAtTopLevel(places, record.end)) ? { header: record } : undefined;
}

/**
 * Whether reading can resume at `pos` after damage: a whole record a bag holds outside its chunks
 * starts there, holding the data its count says, and the records after it go on at top level (so
 * that it is not one of the connection records inside an uncompressed chunk).
 */
async function resumesAt(places: ScanPlaces, pos: number): Promise<boolean> {
  const record = await headerAt(places.source, pos);
  return (
    record != undefined &&
    record.end <= places.source.size &&
    isTopLevelHeader(record) &&
    countsMatch(record) &&
    (await goesOnAtTopLevel(places, record.end))
  );
}

/**
 * Whether what follows a chunk where its length says it ends (`after`, from `recordAfter`) bears
 * that length out: an index data record (what a writer puts after each chunk) whose first entry
 * is the first message of its connection in the chunk `chunk`, receive time and offset. Anything
 * else there (the end of the file included) may be where a damaged length points, past chunks.
 */
export async function chunkEndBorneOut(source: ByteSource, after: RecordAfter, chunk: Pick<ChunkRecords, "firsts">): Promise<boolean> {
  const next = after.header;
  if (next?.op !== OP_INDEX_DATA || !isTopLevelHeader(next) || next.dataLength < INDEX_ENTRY) {
    return false;
  }
  const first = chunk.firsts.get(u32(next.fields.get("conn"), "conn", 0));
  if (first == undefined) {
    return false;
  }
  const entry = await firstIndexEntry(source, next);
  return entry?.time.sec === first.time.sec && entry.time.nsec === first.time.nsec && entry.offset === first.offset;
}

/**
 * The first entry of the index data record `record`: the receive time of its connection's first
 * message in the chunk before it, and that message record's offset in the chunk's data.
 * Undefined when the record holds no entry.
 */
export async function firstIndexEntry(source: ByteSource, record: RecordHeader): Promise<{ time: RecordTime; offset: number } | undefined> {
  if (record.dataLength < INDEX_ENTRY) {
    return undefined;
  }
  const entry = await source.read(record.dataOffset, INDEX_ENTRY);
  const offset = new DataView(entry.buffer, entry.byteOffset, INDEX_ENTRY).getUint32(8, true);
  return { time: recordTimeAt(entry), offset };
}

/**
 * Whether the bytes from `at` (to `before`) hold the "op" field of a bag header, chunk, index data
 * or chunk info record where a record header starting at `at` would: a damaged record lies there,
 * not the tail of the record before. (Connection records are left out: chunks hold them.)
 */
export async function holdsHeaderOf(source: ByteSource, at: number, before: number): Promise<boolean> {
  const bytes = await source.read(at, Math.min(before, at + 8 + MAX_FIELDS_BEFORE_OP) - at);
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 0x6f && bytes[i + 1] === 0x70 && bytes[i + 2] === 0x3d && TOP_LEVEL_OPS.has(bytes[i + 3]!) && bytes[i + 3] !== OP_CONNECTION) {
      return true;
    }
  }
  return false;
}

/** The record `record` as if its data length said it ends at `end` (after its header). */
export function endingAt(record: RecordHeader, end: number): RecordHeader {
  return { ...record, dataLength: end - record.dataOffset, end };
}

/** Names a record's damaged data length: where it says the record ends, and where the next record starts. */
export function damagedLength(record: RecordHeader, resume: number, size: number, there: "no record" | "a later record"): string {
  const says = `data length ${record.dataLength} is damaged: it says the record ends at byte ${record.end}`;
  if (record.end > size) {
    return `${says}, but the file ends at byte ${size}; the next record starts at byte ${resume}`;
  }
  const off = resume < record.end ? `${record.end - resume} bytes before` : `${resume - record.end} bytes after`;
  return `${says}, where ${there} starts; the next record starts at byte ${resume}, ${off} that`;
}

/** A ByteSource answering reads inside `bytes` (the file's bytes from `start`) from memory. */
class WindowSource implements ByteSource {
  readonly #source: ByteSource;
  readonly #start: number;
  readonly #bytes: Uint8Array;

  public constructor(source: ByteSource, start: number, bytes: Uint8Array) {
    this.#source = source;
    this.#start = start;
    this.#bytes = bytes;
  }

  public get size(): number {
    return this.#source.size;
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    const at = offset - this.#start;
    if (at >= 0 && at + length <= this.#bytes.byteLength) {
      return this.#bytes.subarray(at, at + length);
    }
    return await this.#source.read(offset, length);
  }
}

/**
 * After damage: the first position at or after `from`, and before `before`, where reading can
 * resume (`resumesAt`), or undefined. Looks for "op=" followed by a top-level op and tries the
 * positions its header could start at.
 */
export async function findNextRecord(places: ScanPlaces, from: number, before = places.source.size): Promise<number | undefined> {
  const size = places.source.size;
  const block = places.block;
  for (let start = from; start < before; start += block - 64) {
    const length = Math.min(block, size - start);
    const bytes = (await places.source.read(start, length)).slice();
    const window = { ...places, source: new WindowSource(places.source, start, bytes) };
    for (let i = 4; i + 3 < bytes.length; i++) {
      if (bytes[i] !== 0x6f || bytes[i + 1] !== 0x70 || bytes[i + 2] !== 0x3d || !TOP_LEVEL_OPS.has(bytes[i + 3]!)) {
        continue; // not "op=" and a top-level op
      }
      // The "op" field (length 4, "op=X") starts 4 bytes before "op="; the record header starts
      // at most a few fields earlier.
      const fieldStart = start + i - 4;
      if (fieldStart - 4 - MAX_FIELDS_BEFORE_OP >= before) {
        return undefined;
      }
      for (let pos = Math.min(fieldStart - 4, before - 1); pos >= Math.max(from, fieldStart - 4 - MAX_FIELDS_BEFORE_OP); pos--) {
        if (await resumesAt(window, pos)) {
          return pos;
        }
      }
    }
    if (start + length >= size) {
      break;
    }
  }
  return undefined;
}
