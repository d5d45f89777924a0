/**
 * Test helper: writes a ROS 1 bag (format 2.0) from the format's specification, with chunks,
 * per-chunk index data, connection and chunk info records, so tests can make small recordings
 * (and damage them) instead of committing binaries. Returns the bytes and where each chunk and
 * each message record landed, for tests that compute expectations from the file layout. The
 * records themselves are encoded by bagRecordEncoding.ts.
 */

import {
  BAG_MAGIC,
  ByteParts,
  bagHeaderRecord,
  chunkFields,
  chunkInfoRecord,
  connectionRecord,
  indexDataRecord,
  messageFields,
  record,
  type BagConnection,
  type BagIndexEntry,
} from "./bagRecordEncoding";

/** One connection of a fixture bag. */
export type BagFixtureConnection = BagConnection;

/** One message of a fixture bag, in write order. */
export interface BagFixtureMessage {
  readonly conn: number;
  readonly sec: number;
  readonly nsec: number;
  readonly data: Uint8Array;
}

/** Options of `writeBag`. */
export interface BagFixtureOptions {
  /** Messages per chunk (default 50). */
  readonly perChunk?: number;
  /** Compresses chunk data: the compression name and the compressed bytes (default: none). */
  readonly compress?: (data: Uint8Array) => { compression: string; data: Uint8Array };
  /** Leave the index out (index_pos 0), as an interrupted recorder does. */
  readonly noIndex?: boolean;
}

/** Layout of a written bag. */
export interface BagFixture {
  readonly bytes: Uint8Array;
  /** Byte offset of each chunk record, and the messages (indices into the input) it holds. */
  readonly chunks: { readonly offset: number; readonly end: number; readonly messages: number[] }[];
  /** Byte offset of the index (first connection record after the chunks). */
  readonly indexPos: number;
}

function timeLess(a: BagFixtureMessage, b: BagFixtureMessage): boolean {
  return a.sec < b.sec || (a.sec === b.sec && a.nsec < b.nsec);
}

/** Writes the bag: header, chunks (each with its connection records and index data), index. */
export function writeBag(
  connections: readonly BagFixtureConnection[],
  messages: readonly BagFixtureMessage[],
  options: BagFixtureOptions = {},
): BagFixture {
  const perChunk = options.perChunk ?? 50;
  const body = new ByteParts();
  const chunks: { offset: number; end: number; messages: number[] }[] = [];
  const chunkInfos: Uint8Array[] = [];
  const written = new Set<number>();
  // The bag header record has the same length whatever it says: its place is known before the index.
  let pos = BAG_MAGIC.byteLength + bagHeaderRecord({ indexPos: 0, connCount: 0, chunkCount: 0 }).byteLength;
  for (let start = 0; start < messages.length; start += perChunk) {
    const indices = [...Array(Math.min(perChunk, messages.length - start)).keys()].map((i) => start + i);
    const inner = new ByteParts();
    const perConn = new Map<number, BagIndexEntry[]>();
    for (const i of indices) {
      const m = messages[i]!;
      if (!written.has(m.conn)) {
        written.add(m.conn);
        inner.add(connectionRecord(m.conn, connections[m.conn]!));
      }
      const list = perConn.get(m.conn) ?? [];
      list.push({ sec: m.sec, nsec: m.nsec, offset: inner.length });
      perConn.set(m.conn, list);
      inner.add(record(messageFields(m.conn, m), m.data));
    }
    const plain = inner.concat();
    const packed = options.compress ? options.compress(plain) : { compression: "none", data: plain };
    const chunk = record(chunkFields(packed.compression, plain.byteLength), packed.data);
    const offset = pos;
    body.add(chunk);
    pos += chunk.byteLength;
    chunks.push({ offset, end: pos, messages: indices });
    for (const [conn, entries] of perConn) {
      const index = indexDataRecord(conn, entries);
      body.add(index);
      pos += index.byteLength;
    }
    const inChunk = indices.map((i) => messages[i]!);
    chunkInfos.push(
      chunkInfoRecord({
        chunkPos: offset,
        startTime: inChunk.reduce((a, b) => (timeLess(b, a) ? b : a)),
        endTime: inChunk.reduce((a, b) => (timeLess(a, b) ? b : a)),
        counts: [...perConn].map(([conn, entries]) => [conn, entries.length] as const),
      }),
    );
  }
  const indexPos = pos;
  if (options.noIndex !== true) {
    connections.forEach((c, id) => {
      body.add(connectionRecord(id, c));
    });
    for (const info of chunkInfos) {
      body.add(info);
    }
  }
  const out = new ByteParts();
  out.add(BAG_MAGIC);
  out.add(bagHeaderRecord({ indexPos: options.noIndex === true ? 0 : indexPos, connCount: connections.length, chunkCount: chunks.length }));
  out.add(body.concat());
  return { bytes: out.concat(), chunks, indexPos };
}

/**
 * Where the value of header field `name` of the record at `pos` starts, in a bag's bytes; throws
 * when the record has no such field. For tests that damage one field of one record.
 */
export function bagFieldAt(bytes: Uint8Array, pos: number, name: string): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(pos, true);
  for (let at = pos + 4; at < pos + 4 + headerLength; ) {
    const fieldLength = view.getUint32(at, true);
    const field = bytes.subarray(at + 4, at + 4 + fieldLength);
    const eq = field.indexOf(0x3d);
    if (new TextDecoder().decode(field.subarray(0, eq)) === name) {
      return at + 4 + eq + 1;
    }
    at += 4 + fieldLength;
  }
  throw new Error(`no field ${name} in the record at byte ${pos}`);
}

/** Where the data length of the record at `pos` is stored, in a bag's bytes. */
export function bagDataLengthAt(bytes: Uint8Array, pos: number): number {
  return pos + 4 + new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(pos, true);
}

/** The offsets of a bag's records from `pos` to the end of the file (the index, from its position). */
export function bagRecordsFrom(bytes: Uint8Array, pos: number): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const offsets: number[] = [];
  for (let at = pos; at < bytes.length; at = bagDataLengthAt(bytes, at) + 4 + view.getUint32(bagDataLengthAt(bytes, at), true)) {
    offsets.push(at);
  }
  return offsets;
}
