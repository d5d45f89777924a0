/**
 * Test helper: writes a ROS 1 bag (format 2.0) from the format's specification, with chunks,
 * per-chunk index data, connection and chunk info records, so tests can make small recordings
 * (and damage them) instead of committing binaries. Returns the bytes and where each chunk and
 * each message record landed, for tests that compute expectations from the file layout.
 */

/** One connection of a fixture bag. */
export interface BagFixtureConnection {
  readonly topic: string;
  readonly type: string;
  readonly definition: string;
  readonly md5sum?: string;
}

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

const enc = new TextEncoder();

class Bytes {
  readonly parts: Uint8Array[] = [];
  length = 0;

  public add(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.byteLength;
  }

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

function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0, true);
  return b;
}

function u64(n: number): Uint8Array {
  const b = new Uint8Array(8);
  const v = new DataView(b.buffer);
  v.setUint32(0, n % 2 ** 32, true);
  v.setUint32(4, Math.floor(n / 2 ** 32), true);
  return b;
}

function time(sec: number, nsec: number): Uint8Array {
  const b = new Uint8Array(8);
  const v = new DataView(b.buffer);
  v.setUint32(0, sec >>> 0, true);
  v.setUint32(4, nsec >>> 0, true);
  return b;
}

function fields(entries: [string, Uint8Array][]): Uint8Array {
  const out = new Bytes();
  for (const [name, value] of entries) {
    const field = new Uint8Array(name.length + 1 + value.byteLength);
    field.set(enc.encode(`${name}=`), 0);
    field.set(value, name.length + 1);
    out.add(u32(field.byteLength));
    out.add(field);
  }
  return out.concat();
}

function record(header: [string, Uint8Array][], data: Uint8Array): Uint8Array {
  const h = fields(header);
  const out = new Bytes();
  out.add(u32(h.byteLength));
  out.add(h);
  out.add(u32(data.byteLength));
  out.add(data);
  return out.concat();
}

function op(n: number): Uint8Array {
  return Uint8Array.of(n);
}

function connectionRecord(id: number, c: BagFixtureConnection): Uint8Array {
  const data = fields([
    ["topic", enc.encode(c.topic)],
    ["type", enc.encode(c.type)],
    ["md5sum", enc.encode(c.md5sum ?? "*")],
    ["message_definition", enc.encode(c.definition)],
  ]);
  return record([["op", op(7)], ["conn", u32(id)], ["topic", enc.encode(c.topic)]], data);
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
  const body = new Bytes();
  const headerLength = 4096; // rosbag pads the bag header record to 4096 bytes
  const magic = enc.encode("#ROSBAG V2.0\n");
  const chunks: { offset: number; end: number; messages: number[] }[] = [];
  const chunkInfos: Uint8Array[] = [];
  const written = new Set<number>();
  let pos = magic.byteLength + headerLength;
  for (let start = 0; start < messages.length; start += perChunk) {
    const indices = [...Array(Math.min(perChunk, messages.length - start)).keys()].map((i) => start + i);
    const inner = new Bytes();
    const perConn = new Map<number, { sec: number; nsec: number; offset: number }[]>();
    for (const i of indices) {
      const m = messages[i]!;
      if (!written.has(m.conn)) {
        written.add(m.conn);
        inner.add(connectionRecord(m.conn, connections[m.conn]!));
      }
      const list = perConn.get(m.conn) ?? [];
      list.push({ sec: m.sec, nsec: m.nsec, offset: inner.length });
      perConn.set(m.conn, list);
      inner.add(record([["op", op(2)], ["conn", u32(m.conn)], ["time", time(m.sec, m.nsec)]], m.data));
    }
    const plain = inner.concat();
    const packed = options.compress ? options.compress(plain) : { compression: "none", data: plain };
    const chunk = record(
      [["op", op(5)], ["compression", enc.encode(packed.compression)], ["size", u32(plain.byteLength)]],
      packed.data,
    );
    const offset = pos;
    body.add(chunk);
    pos += chunk.byteLength;
    chunks.push({ offset, end: pos, messages: indices });
    for (const [conn, entries] of perConn) {
      const data = new Bytes();
      for (const e of entries) {
        data.add(time(e.sec, e.nsec));
        data.add(u32(e.offset));
      }
      const index = record([["op", op(4)], ["ver", u32(1)], ["conn", u32(conn)], ["count", u32(entries.length)]], data.concat());
      body.add(index);
      pos += index.byteLength;
    }
    const inChunk = indices.map((i) => messages[i]!);
    const first = inChunk.reduce((a, b) => (timeLess(b, a) ? b : a));
    const last = inChunk.reduce((a, b) => (timeLess(a, b) ? b : a));
    const counts = new Bytes();
    for (const [conn, entries] of perConn) {
      counts.add(u32(conn));
      counts.add(u32(entries.length));
    }
    chunkInfos.push(
      record(
        [
          ["op", op(6)],
          ["ver", u32(1)],
          ["chunk_pos", u64(offset)],
          ["start_time", time(first.sec, first.nsec)],
          ["end_time", time(last.sec, last.nsec)],
          ["count", u32(perConn.size)],
        ],
        counts.concat(),
      ),
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
  const headerFields: [string, Uint8Array][] = [
    ["op", op(3)],
    ["index_pos", u64(options.noIndex === true ? 0 : indexPos)],
    ["conn_count", u32(connections.length)],
    ["chunk_count", u32(chunks.length)],
  ];
  const h = fields(headerFields);
  const padding = headerLength - 8 - h.byteLength;
  const header = record(headerFields, new Uint8Array(padding).fill(0x20));
  const out = new Bytes();
  out.add(magic);
  out.add(header);
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
