import { Bag } from "@foxglove/rosbag";

import type { ByteSource } from "./ByteSource";
import { MinHeap } from "./MinHeap";
import { RecordingError, errorText } from "./RecordingError";
import type { Decompressors } from "./decompress";
import { reportProgress, toRecordedMessage, unindexedInfo, type ChannelEntry } from "./recordedMessage";
import type {
  ReadOptions,
  RecordTime,
  RecordedMessage,
  Recording,
  RecordingChannel,
  RecordingInfo,
} from "./types";

const MAGIC = "#ROSBAG V2.0\n";
const FIRST_RECORD = MAGIC.length;
const OP_MESSAGE = 2;
const OP_BAG_HEADER = 3;
const OP_CHUNK = 5;
const OP_CONNECTION = 7;
/** Sanity bound on one record header: real ones are a few hundred bytes. */
const MAX_RECORD_HEADER = 1 << 20;
const textDecoder = new TextDecoder();


/** One message of a chunk: connection id, receive time, serialized bytes. */
interface RawMessage {
  conn: number;
  time: RecordTime;
  data: Uint8Array;
}

interface ChunkCursor {
  readonly messages: RawMessage[];
  readonly order: number;
  readonly offset: number;
  next: number;
}

function timeLess(a: RecordTime, b: RecordTime): boolean {
  return a.sec < b.sec || (a.sec === b.sec && a.nsec < b.nsec);
}

function cursorLess(a: ChunkCursor, b: ChunkCursor): boolean {
  const ta = a.messages[a.next]!.time;
  const tb = b.messages[b.next]!.time;
  if (ta.sec !== tb.sec) {
    return ta.sec < tb.sec;
  }
  return ta.nsec !== tb.nsec ? ta.nsec < tb.nsec : a.order < b.order;
}

function channelOf(conn: {
  topic: string;
  type?: string;
  md5sum?: string;
  messageDefinition: string;
  callerid?: string;
  latching?: boolean;
}): RecordingChannel {
  const metadata = new Map<string, string>();
  if (conn.md5sum != undefined) {
    metadata.set("md5sum", conn.md5sum);
  }
  if (conn.callerid != undefined) {
    metadata.set("callerid", conn.callerid);
  }
  if (conn.latching != undefined) {
    metadata.set("latching", conn.latching ? "1" : "0");
  }
  return {
    topic: conn.topic,
    schemaName: conn.type ?? "",
    schemaEncoding: "ros1msg",
    schemaData: new TextEncoder().encode(conn.messageDefinition),
    messageEncoding: "ros1",
    metadata,
  };
}

/** A field map of a ROS bag record header (`name=value` entries, each length-prefixed). */
function parseFields(bytes: Uint8Array, offset: number): Map<string, Uint8Array> {
  const fields = new Map<string, Uint8Array>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  while (at < bytes.length) {
    if (at + 4 > bytes.length) {
      throw new RecordingError(offset, "record header field is cut off (corrupt record header)");
    }
    const len = view.getInt32(at, true);
    at += 4;
    if (len < 0 || at + len > bytes.length) {
      throw new RecordingError(offset, `record header field length ${len} is impossible (corrupt record header)`);
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

function u32(field: Uint8Array | undefined, name: string, offset: number): number {
  if (field?.byteLength !== 4 && field?.byteLength !== 8) {
    throw new RecordingError(offset, `record header field "${name}" is missing or has the wrong size`);
  }
  return new DataView(field.buffer, field.byteOffset, field.byteLength).getUint32(0, true);
}

function u64(field: Uint8Array | undefined, name: string, offset: number): number {
  if (field?.byteLength !== 8) {
    throw new RecordingError(offset, `record header field "${name}" is missing or has the wrong size`);
  }
  const view = new DataView(field.buffer, field.byteOffset, field.byteLength);
  return view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
}

/**
 * A ROS 1 bag (format 2.0; chunks uncompressed, bz2 or lz4). Indexed bags are read through
 * @foxglove/rosbag's index (chunk by chunk, merged by receive time); a bag whose index is missing
 * or unreadable (recording interrupted, file truncated) is read by a sequential recovery scan that
 * delivers each complete chunk (sorted by receive time within the chunk) and then reports where
 * and why it had to stop.
 */
export class BagRecording implements Recording {
  public readonly info: RecordingInfo;
  readonly #source: ByteSource;
  readonly #bag: Bag | undefined;
  readonly #decompressors: Decompressors;
  /** Set when the bag header points past the end of the file: a truncated file. */
  readonly #truncatedIndexAt: number | undefined;

  private constructor(
    source: ByteSource,
    bag: Bag | undefined,
    decompressors: Decompressors,
    info: RecordingInfo,
    truncatedIndexAt: number | undefined,
  ) {
    this.#source = source;
    this.#bag = bag;
    this.#decompressors = decompressors;
    this.info = info;
    this.#truncatedIndexAt = truncatedIndexAt;
  }

  /**
   * Opens a bag. Throws RecordingError when it is not a ROS bag 2.0 or its header record is
   * unreadable; an unusable index is not an error here (see `info.indexed`).
   */
  public static async open(source: ByteSource, decompressors: Decompressors): Promise<BagRecording> {
    if (source.size < FIRST_RECORD || textDecoder.decode(await source.read(0, FIRST_RECORD)) !== MAGIC) {
      throw new RecordingError(0, 'not a ROS bag 2.0 (the file does not start with "#ROSBAG V2.0")');
    }
    const header = await readRecordHeader(source, FIRST_RECORD);
    if (header.op !== OP_BAG_HEADER) {
      throw new RecordingError(FIRST_RECORD, `expected the bag header record (op 3), found op ${header.op}`);
    }
    const indexPos = u64(header.fields.get("index_pos"), "index_pos", FIRST_RECORD);
    let problem: string | undefined;
    let truncatedAt: number | undefined;
    if (indexPos === 0) {
      problem = "the bag header has no index position (the recording was not closed properly)";
    } else if (indexPos >= source.size) {
      problem = `the bag header says the index starts at byte ${indexPos} but the file has ${source.size} bytes (truncated)`;
      truncatedAt = indexPos;
    } else {
      const bag = new Bag({ read: async (o, l) => await source.read(o, l), size: () => source.size }, { parse: false });
      try {
        await bag.open();
        return new BagRecording(source, bag, decompressors, indexedInfo(bag, source.size), undefined);
      } catch (err) {
        problem = `the index at byte ${indexPos} is unreadable: ${errorText(err)}`;
      }
    }
    const info = unindexedInfo("ros1bag", "ros1", problem, source.size);
    return new BagRecording(source, undefined, decompressors, info, truncatedAt);
  }

  public messages(options: ReadOptions = {}): AsyncIterableIterator<RecordedMessage> {
    return this.#bag ? this.#indexed(this.#bag, options) : this.#scan(options);
  }

  async *#indexed(bag: Bag, options: ReadOptions): AsyncIterableIterator<RecordedMessage> {
    const topics = options.topics ? new Set(options.topics) : undefined;
    const decode = options.decode === false ? "raw" : "decode";
    const wanted = new Map<number, ChannelEntry>();
    for (const conn of bag.connections.values()) {
      if (!topics || topics.has(conn.topic)) {
        wanted.set(conn.conn, { channel: channelOf(conn) });
      }
    }
    const wantedIds = [...wanted.keys()];
    const chunks = bag.chunkInfos
      .map((info, order) => ({ info, order }))
      .filter(({ info }) => info.connections.some((c) => wanted.has(c.conn)))
      .sort((a, b) =>
        timeLess(a.info.startTime, b.info.startTime) ? -1 : timeLess(b.info.startTime, a.info.startTime) ? 1 : a.order - b.order,
      );
    const indexPos = bag.header?.indexPosition ?? this.#source.size;
    const total = this.#source.size;
    let bytesRead = 0;
    const heap = new MinHeap<ChunkCursor>(cursorLess);
    const far = { sec: Number.MAX_SAFE_INTEGER, nsec: 999_999_999 };
    let next = 0;
    for (;;) {
      // Open every chunk that starts no later than the earliest pending message.
      while (next < chunks.length) {
        const top = heap.peek();
        const { info, order } = chunks[next]!;
        if (top && timeLess(top.messages[top.next]!.time, info.startTime)) {
          break;
        }
        next += 1;
        let raw;
        try {
          raw = await bag.reader.readChunkMessages(info, wantedIds, { sec: 0, nsec: 0 }, far, this.#decompressors);
        } catch (err) {
          throw new RecordingError(info.chunkPosition, `chunk ${order} is unreadable: ${errorText(err)}`, { cause: err });
        }
        const end = info.nextChunk?.chunkPosition ?? indexPos;
        bytesRead = Math.max(bytesRead, end);
        reportProgress(options, bytesRead, total);
        const messages = raw.map((m) => ({ conn: m.conn, time: m.time, data: m.data ?? new Uint8Array() }));
        if (messages.length > 0) {
          heap.push({ messages, order, offset: info.chunkPosition, next: 0 });
        }
      }
      const cursor = heap.peek();
      if (!cursor) {
        break;
      }
      const raw = cursor.messages[cursor.next]!;
      cursor.next += 1;
      if (cursor.next === cursor.messages.length) {
        heap.pop();
      } else {
        heap.updateTop();
      }
      const entry = wanted.get(raw.conn)!;
      yield toMessage(raw, entry, decode, cursor.offset);
    }
    if (bytesRead < total) {
      reportProgress(options, total, total);
    }
  }

  async *#scan(options: ReadOptions): AsyncIterableIterator<RecordedMessage> {
    const source = this.#source;
    const total = source.size;
    const topics = options.topics ? new Set(options.topics) : undefined;
    const decode = options.decode === false ? "raw" : "decode";
    const connections = new Map<number, ChannelEntry>();
    let pos = FIRST_RECORD;
    while (pos < total) {
      const record = await readRecordHeader(source, pos);
      if (record.op === OP_CHUNK) {
        const compression = textDecoder.decode(record.fields.get("compression") ?? new Uint8Array());
        const size = u32(record.fields.get("size"), "size", pos);
        const stored = await source.read(record.dataOffset, record.dataLength);
        let data: Uint8Array;
        if (compression === "none") {
          data = stored;
        } else {
          const decompress = this.#decompressors[compression];
          if (!decompress) {
            throw new RecordingError(pos, `chunk uses unsupported compression "${compression}"`);
          }
          try {
            data = decompress(stored, size);
          } catch (err) {
            throw new RecordingError(pos, `${compression} decompression of the chunk failed: ${errorText(err)}`, { cause: err });
          }
        }
        const messages = parseChunkRecords(data, pos, connections, topics);
        // Stable sort: equal receive times keep their order in the chunk.
        messages.sort((a, b) => (timeLess(a.time, b.time) ? -1 : timeLess(b.time, a.time) ? 1 : 0));
        for (const raw of messages) {
          yield toMessage(raw, connections.get(raw.conn)!, decode, pos);
        }
      } else if (record.op === OP_CONNECTION) {
        const data = await source.read(record.dataOffset, record.dataLength);
        addConnection(record.fields, data, pos, connections, topics);
      }
      pos = record.end;
      reportProgress(options, pos, total);
    }
    if (this.#truncatedIndexAt != undefined) {
      throw new RecordingError(
        total,
        `the file is truncated: its header says the index starts at byte ${this.#truncatedIndexAt}; every complete chunk before byte ${total} was delivered`,
      );
    }
  }
}

function indexedInfo(bag: Bag, size: number): RecordingInfo {
  const channels: RecordingChannel[] = [];
  const seen = new Set<string>();
  const counts = new Map<string, number>();
  const topicOf = new Map<number, string>();
  for (const conn of bag.connections.values()) {
    topicOf.set(conn.conn, conn.topic);
    if (!seen.has(conn.topic)) {
      seen.add(conn.topic);
      channels.push(channelOf(conn));
      counts.set(conn.topic, 0);
    }
  }
  for (const info of bag.chunkInfos) {
    for (const { conn, count } of info.connections) {
      const topic = topicOf.get(conn);
      if (topic != undefined) {
        counts.set(topic, (counts.get(topic) ?? 0) + count);
      }
    }
  }
  return {
    format: "ros1bag",
    profile: "ros1",
    channels,
    messageCounts: counts,
    startTime: bag.startTime,
    endTime: bag.endTime,
    indexed: true,
    indexProblem: undefined,
    sizeInBytes: size,
  };
}

function toMessage(raw: RawMessage, entry: ChannelEntry, decode: "raw" | "decode", chunkOffset: number): RecordedMessage {
  return toRecordedMessage(entry, raw.data, raw.time, decode, chunkOffset, raw.time, describeInChunk);
}

function describeInChunk(time: RecordTime): string {
  return `(receive time ${time.sec}.${String(time.nsec).padStart(9, "0")}) in the chunk`;
}

interface RecordHeader {
  op: number;
  fields: Map<string, Uint8Array>;
  dataOffset: number;
  dataLength: number;
  end: number;
}

/** Reads and checks the header of the record at `pos` (not its data). */
async function readRecordHeader(source: ByteSource, pos: number): Promise<RecordHeader> {
  const size = source.size;
  const truncated = (what: string): RecordingError =>
    new RecordingError(pos, `the file is truncated: ${what} but the file ends at byte ${size}`);
  if (pos + 4 > size) {
    throw truncated("a record starts here");
  }
  const lenBytes = await source.read(pos, 4);
  const headerLength = new DataView(lenBytes.buffer, lenBytes.byteOffset, 4).getInt32(0, true);
  if (headerLength < 4 || headerLength > MAX_RECORD_HEADER) {
    throw new RecordingError(pos, `record header length ${headerLength} is impossible (corrupt data)`);
  }
  if (pos + 8 + headerLength > size) {
    throw truncated(`the record header here needs ${headerLength + 8} bytes`);
  }
  const bytes = await source.read(pos + 4, headerLength + 4);
  const fields = parseFields(bytes.subarray(0, headerLength), pos);
  const dataLength = new DataView(bytes.buffer, bytes.byteOffset + headerLength, 4).getInt32(0, true);
  const opField = fields.get("op");
  if (opField?.byteLength !== 1) {
    throw new RecordingError(pos, 'record header has no valid "op" field (corrupt data)');
  }
  const dataOffset = pos + 8 + headerLength;
  if (dataLength < 0) {
    throw new RecordingError(pos, `record data length ${dataLength} is impossible (corrupt data)`);
  }
  if (dataOffset + dataLength > size) {
    throw truncated(`the record here (op ${opField[0]!}) needs ${8 + headerLength + dataLength} bytes`);
  }
  return { op: opField[0]!, fields, dataOffset, dataLength, end: dataOffset + dataLength };
}

function addConnection(
  fields: Map<string, Uint8Array>,
  data: Uint8Array,
  pos: number,
  connections: Map<number, ChannelEntry>,
  topics: Set<string> | undefined,
): void {
  const id = u32(fields.get("conn"), "conn", pos);
  const topic = textDecoder.decode(fields.get("topic") ?? new Uint8Array());
  if (connections.has(id) || (topics && !topics.has(topic))) {
    return;
  }
  const conn = parseFields(data, pos);
  const text = (k: string): string | undefined => {
    const v = conn.get(k);
    return v ? textDecoder.decode(v) : undefined;
  };
  connections.set(id, {
    channel: channelOf({
      topic,
      type: text("type"),
      md5sum: text("md5sum"),
      messageDefinition: text("message_definition") ?? "",
      callerid: text("callerid"),
      latching: text("latching") === "1",
    }),
  });
}

/** Parses the records inside a decompressed chunk; returns the wanted messages in chunk order. */
function parseChunkRecords(
  data: Uint8Array,
  chunkPos: number,
  connections: Map<number, ChannelEntry>,
  topics: Set<string> | undefined,
): RawMessage[] {
  const out: RawMessage[] = [];
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  const corrupt = (what: string): RecordingError =>
    new RecordingError(chunkPos, `chunk data is corrupt: ${what} at byte ${at} of the decompressed chunk`);
  while (at < data.byteLength) {
    if (at + 4 > data.byteLength) {
      throw corrupt("a record is cut off");
    }
    const headerLength = view.getInt32(at, true);
    if (headerLength < 4 || at + 8 + headerLength > data.byteLength) {
      throw corrupt(`impossible record header length ${headerLength}`);
    }
    const fields = parseFields(data.subarray(at + 4, at + 4 + headerLength), chunkPos);
    const dataLength = view.getInt32(at + 4 + headerLength, true);
    const start = at + 8 + headerLength;
    if (dataLength < 0 || start + dataLength > data.byteLength) {
      throw corrupt(`impossible record data length ${dataLength}`);
    }
    const body = data.subarray(start, start + dataLength);
    const op = fields.get("op")?.[0];
    if (op === OP_CONNECTION) {
      addConnection(fields, body, chunkPos, connections, topics);
    } else if (op === OP_MESSAGE) {
      const conn = u32(fields.get("conn"), "conn", chunkPos);
      const time = fields.get("time");
      if (time?.byteLength !== 8) {
        throw corrupt('message record without a valid "time" field');
      }
      if (connections.has(conn)) {
        const tv = new DataView(time.buffer, time.byteOffset, 8);
        out.push({ conn, time: { sec: tv.getUint32(0, true), nsec: tv.getUint32(4, true) }, data: body.slice() });
      }
    } else {
      throw corrupt(`unexpected record op ${String(op)} inside a chunk`);
    }
    at = start + dataLength;
  }
  return out;
}
