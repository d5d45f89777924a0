/**
 * The records of a ROS 1 bag (format 2.0) as bytes, from the format's specification: the little-
 * endian numbers, the `name=value` header fields and every record a bag holds. Shared by the
 * in-memory test bags (bagFixtures.ts) and the benchmark's bag written to disk
 * (bench/syntheticBag.ts), which differ only in how they lay the records out.
 */

import { MAGIC, OP_BAG_HEADER, OP_CHUNK, OP_CHUNK_INFO, OP_CONNECTION, OP_INDEX_DATA, OP_MESSAGE } from "../bagRecords";

/** A record header: its fields in write order, each a name and its value's bytes. */
export type BagFields = readonly (readonly [string, Uint8Array])[];

/** A receive time as a bag stores it. */
export interface BagTime {
  readonly sec: number;
  readonly nsec: number;
}

/** What a connection record says of one connection. */
export interface BagConnection {
  readonly topic: string;
  readonly type: string;
  readonly definition: string;
  /** Default "*", which readers take as "any". */
  readonly md5sum?: string;
}

/** One entry of an index data record: a message's receive time and its offset in the chunk's data. */
export interface BagIndexEntry extends BagTime {
  readonly offset: number;
}

/** What a chunk info record says of one chunk. */
export interface BagChunkInfo {
  /** Byte offset of the chunk record in the file. */
  readonly chunkPos: number;
  readonly startTime: BagTime;
  readonly endTime: BagTime;
  /** Messages per connection, in the order written. */
  readonly counts: readonly (readonly [conn: number, count: number])[];
}

/** The size rosbag pads the bag header record's header and data to, together. */
export const BAG_HEADER_PADDED_LENGTH = 4096;

const enc = new TextEncoder();

/** The bytes a bag file starts with ("#ROSBAG V2.0\n"). */
export const BAG_MAGIC: Uint8Array = enc.encode(MAGIC);

/**
 * Byte parts appended in order, concatenated only on demand: a record or a chunk's data can be
 * built (and its length known) without copying large parts such as messages.
 */
export class ByteParts {
  /** The parts, in order. */
  public readonly parts: Uint8Array[] = [];
  /** Their total length. */
  public length = 0;

  /** Appends `b` (kept, not copied). */
  public add(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.byteLength;
  }

  /** The parts as one new array. */
  public concat(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.byteLength;
    }
    return out;
  }
}

/** `n` as a little-endian uint32 (taken modulo 2^32). */
export function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, true);
  return b;
}

/** `n` (a non-negative integer below 2^53) as a little-endian uint64. */
export function u64(n: number): Uint8Array {
  const b = new Uint8Array(8);
  const v = new DataView(b.buffer);
  v.setUint32(0, n % 2 ** 32, true);
  v.setUint32(4, Math.floor(n / 2 ** 32), true);
  return b;
}

/** A time as the format stores it: uint32 seconds, then uint32 nanoseconds. */
export function time(t: BagTime): Uint8Array {
  const b = new Uint8Array(8);
  const v = new DataView(b.buffer);
  v.setUint32(0, t.sec >>> 0, true);
  v.setUint32(4, t.nsec >>> 0, true);
  return b;
}

/** The `op` field of a record header. */
export function opField(op: number): readonly [string, Uint8Array] {
  return ["op", Uint8Array.of(op)];
}

/** Header fields as stored: each one `<uint32 length>name=value` (names are ASCII). */
export function fields(entries: BagFields): Uint8Array {
  const out = new ByteParts();
  for (const [name, value] of entries) {
    const field = new Uint8Array(name.length + 1 + value.byteLength);
    field.set(enc.encode(`${name}=`), 0);
    field.set(value, name.length + 1);
    out.add(u32(field.byteLength));
    out.add(field);
  }
  return out.concat();
}

/**
 * A record up to its data: `<header length><header><data length>`. Followed by `dataLength`
 * bytes of data it is a whole record, so large data need not be copied into one.
 */
export function recordHead(header: BagFields, dataLength: number): Uint8Array {
  const h = fields(header);
  const out = new Uint8Array(4 + h.byteLength + 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, h.byteLength, true);
  out.set(h, 4);
  view.setUint32(4 + h.byteLength, dataLength, true);
  return out;
}

/** A whole record: `recordHead` then `data`. */
export function record(header: BagFields, data: Uint8Array): Uint8Array {
  const head = recordHead(header, data.byteLength);
  const out = new Uint8Array(head.byteLength + data.byteLength);
  out.set(head, 0);
  out.set(data, head.byteLength);
  return out;
}

/**
 * The bag header record as rosbag writes it: op 3, `index_pos`, `conn_count`, `chunk_count`,
 * and spaces as data so that its header and data take `BAG_HEADER_PADDED_LENGTH` bytes (the
 * record is 8 bytes more, its two lengths). Always the same length, so a writer can put a
 * placeholder first and rewrite it once the index is written.
 */
export function bagHeaderRecord(header: { readonly indexPos: number; readonly connCount: number; readonly chunkCount: number }): Uint8Array {
  const headerFields: BagFields = [
    opField(OP_BAG_HEADER),
    ["index_pos", u64(header.indexPos)],
    ["conn_count", u32(header.connCount)],
    ["chunk_count", u32(header.chunkCount)],
  ];
  const padding = BAG_HEADER_PADDED_LENGTH - fields(headerFields).byteLength;
  return record(headerFields, new Uint8Array(padding).fill(0x20));
}

/** A connection record (op 7): connection `id`'s topic in the header, the rest in the data. */
export function connectionRecord(id: number, c: BagConnection): Uint8Array {
  const data = fields([
    ["topic", enc.encode(c.topic)],
    ["type", enc.encode(c.type)],
    ["md5sum", enc.encode(c.md5sum ?? "*")],
    ["message_definition", enc.encode(c.definition)],
  ]);
  return record([opField(OP_CONNECTION), ["conn", u32(id)], ["topic", enc.encode(c.topic)]], data);
}

/** The header of a message data record (op 2) of connection `conn` received at `t`. */
export function messageFields(conn: number, t: BagTime): BagFields {
  return [opField(OP_MESSAGE), ["conn", u32(conn)], ["time", time(t)]];
}

/**
 * The header of a chunk record (op 5) whose data, `size` bytes uncompressed, is stored with
 * `compression` ("none", "bz2", "lz4"); its data length is the stored size.
 */
export function chunkFields(compression: string, size: number): BagFields {
  return [opField(OP_CHUNK), ["compression", enc.encode(compression)], ["size", u32(size)]];
}

/** An index data record (op 4, version 1): where connection `conn`'s messages lie in the chunk before it. */
export function indexDataRecord(conn: number, entries: readonly BagIndexEntry[]): Uint8Array {
  const data = new Uint8Array(entries.length * 12);
  const view = new DataView(data.buffer);
  entries.forEach((e, i) => {
    view.setUint32(i * 12, e.sec >>> 0, true);
    view.setUint32(i * 12 + 4, e.nsec >>> 0, true);
    view.setUint32(i * 12 + 8, e.offset, true);
  });
  return record([opField(OP_INDEX_DATA), ["ver", u32(1)], ["conn", u32(conn)], ["count", u32(entries.length)]], data);
}

/** A chunk info record (op 6, version 1). */
export function chunkInfoRecord(info: BagChunkInfo): Uint8Array {
  const data = new Uint8Array(info.counts.length * 8);
  const view = new DataView(data.buffer);
  info.counts.forEach(([conn, count], i) => {
    view.setUint32(i * 8, conn, true);
    view.setUint32(i * 8 + 4, count, true);
  });
  return record(
    [
      opField(OP_CHUNK_INFO),
      ["ver", u32(1)],
      ["chunk_pos", u64(info.chunkPos)],
      ["start_time", time(info.startTime)],
      ["end_time", time(info.endTime)],
      ["count", u32(info.counts.length)],
    ],
    data,
  );
}
