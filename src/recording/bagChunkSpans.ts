// Which bytes of an uncompressed ROS 1 bag chunk hold the message records a read wants, as the
// chunk's index data records say: the plan the indexed reader follows to read those alone.
import type { RecordTime } from "./types";

/** One entry of an index data record: a message record's receive time and offset in the chunk's data. */
export interface ChunkIndexEntry {
  readonly time: RecordTime;
  readonly offset: number;
}

/** One index data record of a chunk: the connection and its entries, as stored. */
export interface ChunkConnectionIndex {
  readonly conn: number;
  readonly entries: readonly ChunkIndexEntry[];
}

/** An indexed message record inside a span: its connection, receive time and offset in the chunk's data. */
export interface IndexedRecord extends ChunkIndexEntry {
  readonly conn: number;
}

/** A byte range of the file to read, `[start, end)`, that starts at a message record. */
export interface ChunkSpan {
  readonly start: number;
  readonly end: number;
  /** Where `start` lies in the chunk's data. */
  readonly startInChunk: number;
  /**
   * Every indexed message record whose offset lies in the span, wanted or not, in offset order:
   * what walking the span's records must meet, and nothing else.
   */
  readonly records: readonly IndexedRecord[];
}

/** Where a chunk record's data lies in the file. */
export interface ChunkDataLayout {
  readonly dataOffset: number;
  readonly dataLength: number;
}

/** Tuning of `planChunkSpans`. */
export interface ChunkSpanTuning {
  /** Spans this close (bytes) or closer are read as one, gap included (default `SPAN_MERGE_GAP`). */
  readonly mergeGap?: number;
  /** Above this share of the chunk's data, reading the whole chunk is cheaper (default `SPARSE_MAX_SHARE`). */
  readonly maxShare?: number;
}

/** The default gap below which two spans are read as one: a read costs more than that many bytes. */
export const SPAN_MERGE_GAP = 64 * 1024;

/** The default largest share of a chunk's data a sparse read may cover. */
export const SPARSE_MAX_SHARE = 0.5;

/**
 * Whether a chunk whose data is `dataLength` bytes is worth reading its index data for: not when
 * it is smaller than two merge gaps, where the reads of its index data and spans would cost more
 * than the bytes they could save (a read costs more than a merge gap's bytes).
 */
export function sparseReadWorthTrying(dataLength: number, tuning: ChunkSpanTuning = {}): boolean {
  return dataLength >= 2 * (tuning.mergeGap ?? SPAN_MERGE_GAP);
}

/**
 * The spans of the file to read for the message records of the `wanted` connections in a chunk
 * whose data lies at `layout`, from its index data records `indexes`, given the counts its chunk
 * info states (`counts`). Each wanted record's span runs from its offset to the next indexed
 * record's offset (or the end of the chunk's data): the record and any connection records after
 * it. Spans closer than `mergeGap` are merged; the result is in file order, without overlaps,
 * inside the chunk's data.
 *
 * Returns undefined (read the whole chunk) when the index data does not add up: a connection of
 * the chunk info without exactly one index data record with its count, or one the chunk info does
 * not list; an offset that is not an integer inside the data; two records at the same offset; a
 * receive time that is not a time (nsec >= 1e9, which the whole-chunk read reports). Also when
 * the spans cover more than `maxShare` of the data, where one read is cheaper. The index data's
 * times are not checked here against the records: the reader does that for what it walks.
 */
export function planChunkSpans(
  layout: ChunkDataLayout,
  indexes: readonly ChunkConnectionIndex[],
  counts: readonly { readonly conn: number; readonly count: number }[],
  wanted: ReadonlySet<number>,
  tuning: ChunkSpanTuning = {},
): ChunkSpan[] | undefined {
  const mergeGap = tuning.mergeGap ?? SPAN_MERGE_GAP;
  const maxShare = tuning.maxShare ?? SPARSE_MAX_SHARE;
  const expected = new Map<number, number>();
  for (const { conn, count } of counts) {
    if (expected.has(conn)) {
      return undefined;
    }
    expected.set(conn, count);
  }
  if (indexes.length !== expected.size) {
    return undefined;
  }
  const all: IndexedRecord[] = [];
  const seen = new Set<number>();
  for (const { conn, entries } of indexes) {
    if (seen.has(conn) || expected.get(conn) !== entries.length) {
      return undefined;
    }
    seen.add(conn);
    for (const { time, offset } of entries) {
      if (!Number.isSafeInteger(offset) || offset < 0 || offset >= layout.dataLength || !(time.nsec < 1_000_000_000)) {
        return undefined;
      }
      all.push({ conn, time, offset });
    }
  }
  all.sort((a, b) => a.offset - b.offset);
  // Spans of consecutive records, each [first record, next indexed record or data end).
  const pieces: { start: number; end: number; first: number; last: number }[] = [];
  for (let i = 0; i < all.length; i++) {
    const record = all[i]!;
    const next = all[i + 1];
    if (next?.offset === record.offset) {
      return undefined;
    }
    if (!wanted.has(record.conn)) {
      continue;
    }
    const end = next?.offset ?? layout.dataLength;
    const previous = pieces.at(-1);
    if (previous && record.offset - previous.end < Math.max(1, mergeGap)) {
      previous.end = end;
      previous.last = i;
    } else {
      pieces.push({ start: record.offset, end, first: i, last: i });
    }
  }
  const covered = pieces.reduce((sum, p) => sum + (p.end - p.start), 0);
  if (covered > maxShare * layout.dataLength) {
    return undefined;
  }
  return pieces.map((p) => ({
    start: layout.dataOffset + p.start,
    end: layout.dataOffset + p.end,
    startInChunk: p.start,
    records: all.slice(p.first, p.last + 1),
  }));
}
