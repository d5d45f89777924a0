import { Bag } from "@foxglove/rosbag";

import type { ByteSource } from "./ByteSource";
import { mergeChunks, ScanMerge, timeLess } from "./ChunkMerge";
import { DamageLog } from "./DamageLog";
import { RecordingError, errorText, reasonOf } from "./RecordingError";
import { DEFAULT_MAX_CHUNK_BYTES, ReadLimitError, checkStoredSize, type Decompressors, type OpenOptions } from "./decompress";
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
const OP_INDEX_DATA = 4;
const OP_CHUNK = 5;
const OP_CHUNK_INFO = 6;
const OP_CONNECTION = 7;
/** What each record op is, for sentences naming a record. */
const RECORD_NAMES: ReadonlyMap<number, string> = new Map([
  [OP_MESSAGE, "message record"],
  [OP_BAG_HEADER, "bag header record"],
  [OP_INDEX_DATA, "index data record"],
  [OP_CHUNK, "chunk record"],
  [OP_CHUNK_INFO, "chunk info record"],
  [OP_CONNECTION, "connection record"],
]);
/** The same with their article, for sentences naming a record found where another was expected. */
const OP_NAMES: ReadonlyMap<number, string> = new Map(
  [...RECORD_NAMES].map(([op, name]) => [op, `${op === OP_INDEX_DATA ? "an" : "a"} ${name}`]),
);
/** The records a bag holds outside its chunks: bag header, chunk, index data, chunk info, connection. */
const TOP_LEVEL_OPS: ReadonlySet<number> = new Set([OP_BAG_HEADER, OP_CHUNK, OP_INDEX_DATA, OP_CHUNK_INFO, OP_CONNECTION]);
/** The size of one entry of an index data record (version 1): receive time and offset. */
const INDEX_ENTRY = 12;
/** How far before its "op" field a record header may start: the fields written before it. */
const MAX_FIELDS_BEFORE_OP = 512;
/** Bytes examined at a time when looking for the next record after damage, the read limit allowing. */
const RESYNC_BLOCK = 1 << 20;
/** The fewest bytes examined at a time, however low the read limit. */
const RESYNC_MIN_BLOCK = 4096;
/** Sanity bound on one record header: real ones are a few hundred bytes. */
const MAX_RECORD_HEADER = 1 << 20;
const textDecoder = new TextDecoder();


/** One message of a chunk: connection id, receive time, serialized bytes. */
interface RawMessage {
  conn: number;
  time: RecordTime;
  data: Uint8Array;
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
 * A ROS 1 bag (format 2.0; chunks uncompressed, bz2 or lz4). Indexed bags are read chunk by chunk
 * from the index's chunk list and merged by receive time, ties in file order (`mergeChunks`); a
 * bag whose index is missing or unreadable (recording interrupted, file truncated) is read by a
 * sequential recovery scan, in the same order as far as chunks start in time order (`ScanMerge`).
 * Either way a damaged chunk or record is skipped and reading goes on: from the index's next
 * chunk, or (scanning) from the next position where a well-formed record starts. A scan believes
 * a record's length only when a record that belongs there starts where it ends (after a chunk,
 * its own index data): else the length is damaged, the record is read up to the first record
 * after its header and reading goes on there, so that no chunk is passed over. No record whose
 * data exceeds `maxChunkBytes` is read (see `OpenOptions`): it is damage, skipped like any other.
 */
export class BagRecording implements Recording {
  public readonly info: RecordingInfo;
  readonly #source: ByteSource;
  readonly #bag: Bag | undefined;
  readonly #decompressors: Decompressors;
  /** The most bytes of one record's data that are read (`OpenOptions.maxChunkBytes`). */
  readonly #maxChunkBytes: number;
  /** Set when the bag header points past the end of the file: a truncated file. */
  readonly #truncatedIndexAt: number | undefined;
  /**
   * Where the bag header says the index starts, when that lies inside the file: a scan takes the
   * connection records it repeats for messages whose own connection record was lost.
   */
  readonly #indexPos: number | undefined;
  /**
   * Set when the bag has an index that lies or is unreadable: damage a scan reports even when it
   * reads every message, since the file is not what its writer left.
   */
  readonly #indexDamage: IndexDamage | undefined;

  private constructor(
    source: ByteSource,
    bag: Bag | undefined,
    decompressors: Decompressors,
    maxChunkBytes: number,
    info: RecordingInfo,
    truncatedIndexAt: number | undefined,
    indexPos?: number,
    indexDamage?: IndexDamage,
  ) {
    this.#source = source;
    this.#bag = bag;
    this.#decompressors = decompressors;
    this.#maxChunkBytes = maxChunkBytes;
    this.info = info;
    this.#truncatedIndexAt = truncatedIndexAt;
    this.#indexPos = indexPos;
    this.#indexDamage = indexDamage;
  }

  /**
   * Opens a bag. Throws RecordingError when it is not a ROS bag 2.0 or its header record is
   * unreadable; an unusable index is not an error here (see `info.indexed`), nor is one larger
   * than `options.maxChunkBytes`, which is not read. `decompressors` should be bounded by the
   * same limit (`loadDecompressors(options)`).
   */
  public static async open(source: ByteSource, decompressors: Decompressors, options: OpenOptions = {}): Promise<BagRecording> {
    const limit = options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
    if (source.size < FIRST_RECORD || textDecoder.decode(await source.read(0, FIRST_RECORD)) !== MAGIC) {
      throw new RecordingError(0, 'not a ROS bag 2.0 (the file does not start with "#ROSBAG V2.0")');
    }
    let indexPos: number;
    let headerFields = new Map<string, Uint8Array>();
    let problem: string | undefined;
    let indexDamage: IndexDamage | undefined;
    try {
      const header = await readRecordHeader(source, FIRST_RECORD);
      if (header.op !== OP_BAG_HEADER) {
        throw new RecordingError(FIRST_RECORD, `expected the bag header record (op 3), found op ${header.op}`);
      }
      headerFields = header.fields;
      indexPos = u64(header.fields.get("index_pos"), "index_pos", FIRST_RECORD);
    } catch (err) {
      // A damaged bag header loses only the index position: the records after it can be scanned.
      indexPos = 0;
      problem = `the bag header record at byte ${FIRST_RECORD} is unreadable (${reasonOf(err)})`;
    }
    let truncatedAt: number | undefined;
    if (problem != undefined) {
      // keep it
    } else if (indexPos === 0) {
      problem = "the bag header has no index position (the recording was not closed properly)";
    } else if (indexPos >= source.size) {
      problem = `the bag header says the index starts at byte ${indexPos} but the file has ${source.size} bytes (truncated)`;
      truncatedAt = indexPos;
    } else {
      const bag = new Bag({ read: async (o, l) => await source.read(o, l), size: () => source.size }, { parse: false });
      try {
        await checkIndexLayout(source, indexPos, headerFields, limit);
        // @foxglove/rosbag reads everything from the index position to the end of the file at once.
        checkStoredSize(`the index section at byte ${indexPos}`, "index", source.size - indexPos, limit);
        await bag.open();
        await checkChunkInfos(bag, source, indexPos);
        return new BagRecording(source, bag, decompressors, limit, indexedInfo(bag, source.size), undefined);
      } catch (err) {
        if (err instanceof ReadLimitError) {
          // Too large to read, not damaged: named, and the file is read sequentially.
          problem = reasonOf(err);
        } else {
          problem = `the index at byte ${indexPos} is unreadable: ${reasonOf(err)}`;
          indexDamage = { offset: err instanceof RecordingError ? (err.offset ?? indexPos) : indexPos, reason: `${problem}; the file was read sequentially instead` };
        }
      }
    }
    const info = unindexedInfo("ros1bag", "ros1", problem, source.size);
    const indexInFile = indexPos > FIRST_RECORD && indexPos < source.size ? indexPos : undefined;
    return new BagRecording(source, undefined, decompressors, limit, info, truncatedAt, indexInFile, indexDamage);
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
    const allConnections = new Set(bag.connections.keys());
    const chunks = bag.chunkInfos
      .filter((info) => info.connections.some((c) => wanted.has(c.conn)))
      .map((info) => ({ startTime: info.startTime, offset: info.chunkPosition, info }));
    const indexPos = bag.header?.indexPosition ?? this.#source.size;
    const total = this.#source.size;
    const damage = new DamageLog(options.onDamage);
    let bytesRead = 0;
    const load = async (chunk: (typeof chunks)[number]): Promise<RawMessage[]> => {
      const { info, offset } = chunk;
      /** What the index says this chunk holds, per wanted topic, minus what was read of it. */
      const lostOf = (read: readonly RawMessage[]): Map<string, number> => {
        const lost = new Map<string, number>();
        for (const { conn, count } of info.connections) {
          const entry = wanted.get(conn);
          if (entry) {
            const topic = entry.channel.topic;
            lost.set(topic, (lost.get(topic) ?? 0) + count);
          }
        }
        for (const m of read) {
          const topic = wanted.get(m.conn)?.channel.topic;
          if (topic != undefined) {
            lost.set(topic, (lost.get(topic) ?? 0) - 1);
          }
        }
        for (const [topic, n] of lost) {
          if (n <= 0) {
            lost.delete(topic);
          }
        }
        return lost;
      };
      let result: ChunkRecords;
      try {
        const record = await readRecordHeader(this.#source, offset, indexPos);
        if (record.op !== OP_CHUNK) {
          throw new RecordingError(offset, `the index points to a chunk here but the record is op ${record.op}`);
        }
        const data = await this.#chunkData(record, offset);
        result = parseChunkRecords(data, offset, wanted, topics, allConnections);
      } catch (err) {
        damage.add(offset, `the chunk is unreadable: ${reasonOf(err)}`, lostOf([]));
        result = { messages: [], problem: undefined, undefinedConnections: 0, firsts: new Map() };
      }
      if (result.problem != undefined) {
        damage.add(offset, result.problem, lostOf(result.messages));
      }
      if (result.undefinedConnections > 0) {
        damage.add(offset, `${result.undefinedConnections} message records in the chunk name a connection the index does not have; they were skipped`);
      }
      // The chunk was merged in where its chunk info's start time put it: messages outside the
      // times it states were delivered all the same, perhaps out of receive-time order.
      const outside = result.messages.filter((m) => timeLess(m.time, info.startTime) || timeLess(info.endTime, m.time));
      if (outside.length > 0) {
        const first = outside.reduce((a, b) => (timeLess(b.time, a.time) ? b : a));
        damage.add(
          offset,
          `the index says the chunk spans receive times ${timeText(info.startTime)} to ${timeText(info.endTime)}, but ${outside.length} of its messages lie outside that range (the first at ${timeText(first.time)}): ` +
            "the index is damaged, so these messages may have been delivered out of receive-time order (rosbag reindex rebuilds the index)",
        );
      }
      bytesRead = Math.max(bytesRead, info.nextChunk?.chunkPosition ?? indexPos);
      reportProgress(options, bytesRead, total);
      return result.messages;
    };
    for await (const { item, chunk } of mergeChunks(chunks, load)) {
      yield toMessage(item, wanted.get(item.conn)!, decode, chunk.offset);
    }
    if (bytesRead < total) {
      reportProgress(options, total, total);
    }
    damage.finish();
  }

  /**
   * The decompressed data of a chunk record: its stored bytes bounded by `maxChunkBytes`, what they
   * decompress into by the decompressors' limit.
   */
  async #chunkData(record: RecordHeader, pos: number): Promise<Uint8Array> {
    const compression = textDecoder.decode(record.fields.get("compression") ?? new Uint8Array());
    const size = u32(record.fields.get("size"), "size", pos);
    if (compression === "none") {
      return await readRecordData(this.#source, record, pos, "chunk", this.#maxChunkBytes);
    }
    const decompress = this.#decompressors[compression];
    if (!decompress) {
      throw new RecordingError(pos, `chunk uses unsupported compression "${compression}"`);
    }
    const stored = await readRecordData(this.#source, record, pos, "chunk", this.#maxChunkBytes);
    try {
      return decompress(stored, size);
    } catch (err) {
      throw new RecordingError(pos, `${compression} decompression of the chunk failed: ${errorText(err)}`, { cause: err });
    }
  }

  async *#scan(options: ReadOptions): AsyncIterableIterator<RecordedMessage> {
    const source = this.#source;
    const total = source.size;
    const decode = options.decode === false ? "raw" : "decode";
    const state: ScanState = {
      connections: new Map(),
      topics: options.topics ? new Set(options.topics) : undefined,
      defined: new Set(),
      indexLearned: false,
    };
    const places: ScanPlaces = {
      source,
      indexPos: this.#indexPos,
      borneOut: new Set(),
      block: Math.max(RESYNC_MIN_BLOCK, Math.min(RESYNC_BLOCK, this.#maxChunkBytes)),
    };
    const damage = new DamageLog(options.onDamage);
    const merge = new ScanMerge<RawMessage>();
    // The index's damage takes its place in file order; a scan damage at the same record is the
    // same damage, named once, by the scan, which says what it skipped there.
    let indexDamage = this.#indexDamage;
    const report = (offset: number, reason: string): void => {
      if (indexDamage && indexDamage.offset <= offset) {
        if (indexDamage.offset < offset) {
          damage.add(indexDamage.offset, indexDamage.reason);
        }
        indexDamage = undefined;
      }
      damage.add(offset, reason);
    };
    let pos = FIRST_RECORD;
    /** The header of the record at `pos`, when the step before already read it. */
    let ahead: RecordHeader | undefined;
    while (pos < total) {
      let record: RecordHeader;
      try {
        record = ahead ?? (await readHeaderOfCut(source, pos));
      } catch (err) {
        const resume = await findNextRecord(places, pos + 1);
        const reason = reasonOf(err);
        report(pos, resume == undefined ? reason : `${reason}; reading resumed at the next record, byte ${resume} (${resume - pos} bytes skipped)`);
        if (resume == undefined) {
          break;
        }
        pos = resume;
        continue;
      }
      ahead = undefined;
      // Where the record really ends: where its length says when a record starts there, else
      // (a damaged length) at the first record after its header. Scanning from its length's end
      // instead would lose every chunk between the two.
      const after = record.end <= total ? await recordAfter(places, record.end) : undefined;
      let resume = after ? undefined : await findNextRecord(places, record.dataOffset);
      if (resume != undefined && resume > record.end && record.end <= total && (await holdsHeaderOf(source, record.end, resume))) {
        // Nothing starts where the length says and the next record lies beyond, but what lies
        // there is a record's header: that record is the damaged one, named where it is read.
        resume = undefined;
      }
      if (record.end > total && resume == undefined) {
        // Nothing readable follows a record whose data runs past the end of the file: most
        // likely cut off there.
        report(pos, cutOffError(record, pos, total).reason);
        break;
      }
      // A record starts where the length says but the record's contents belie that length: a
      // length pointing at a later record passes over the chunks in between, unless none lies there.
      const recordInside = async (): Promise<number | undefined> => await findNextRecord(places, record.dataOffset, record.end);
      const lengthDamage = (): string | undefined => (resume == undefined ? undefined : damagedLength(record, resume, total, after ? "a later record" : "no record"));
      if (record.op === OP_CHUNK) {
        // A writer puts the chunk's index data after it; anything else there is checked before
        // the chunk is read, so that a damaged length is never read (a decompressor may not
        // recover from data cut short).
        if (after && after.header?.op !== OP_INDEX_DATA) {
          resume = await recordInside();
        }
        let result = await this.#readChunk(resume == undefined ? record : endingAt(record, resume), pos, state);
        if (resume == undefined && after && !(await chunkEndBorneOut(source, after, result))) {
          resume = await recordInside();
          if (resume != undefined) {
            const whole = await this.#readChunk(endingAt(record, resume), pos, state);
            result = whole.problem == undefined || (result.problem != undefined && whole.messages.length > result.messages.length) ? whole : result;
          }
        }
        const damaged = lengthDamage();
        if (result.problem != undefined) {
          report(pos, damaged == undefined ? result.problem : `${result.problem}; its ${damaged}, where reading resumed, past the chunk's ${resume! - pos} bytes`);
        } else if (damaged != undefined) {
          report(pos, `the chunk's ${damaged}; its data up to there read whole, so no message was lost, and reading resumed there`);
        }
        if (result.undefinedConnections > 0) {
          report(pos, `${result.undefinedConnections} message records in the chunk name a connection no connection record defines; they were skipped`);
        }
        for (const { item, offset } of merge.add(result.messages, pos)) {
          yield toMessage(item, state.connections.get(item.conn)!, decode, offset);
        }
      } else if (record.op === OP_CONNECTION) {
        const read = async (): Promise<string | undefined> => {
          try {
            const data = await readRecordData(source, resume == undefined ? record : endingAt(record, resume), pos, "connection", this.#maxChunkBytes);
            addConnection(record.fields, data, pos, state.connections, state.topics, state.defined);
            return undefined;
          } catch (err) {
            return `the connection record is unreadable: ${reasonOf(err)}`;
          }
        };
        let problem = await read();
        if (problem != undefined && after) {
          resume = await recordInside();
          if (resume != undefined) {
            problem = await read();
          }
        }
        const damaged = lengthDamage();
        if (problem != undefined) {
          report(pos, damaged == undefined ? problem : `${problem}; its ${damaged}, where reading resumed, past the record's ${resume! - pos} bytes`);
        } else if (damaged != undefined) {
          report(pos, `the connection record's ${damaged}; its data up to there read whole, and reading resumed there`);
        }
      } else if (!TOP_LEVEL_OPS.has(record.op)) {
        const stray = `a record of op ${record.op} stands where a bag has chunks, index data and connections; it was skipped`;
        const damaged = lengthDamage();
        report(pos, damaged == undefined ? stray : `${stray}; its ${damaged}, where reading resumed, past the record's ${resume! - pos} bytes`);
      } else {
        if (after && !countsMatch(record)) {
          resume = await recordInside();
        }
        const damaged = lengthDamage();
        if (damaged != undefined) {
          report(pos, `the ${RECORD_NAMES.get(record.op)!}'s ${damaged}, where reading resumed, past the record's ${resume! - pos} bytes (a sequential read does not use it)`);
        }
      }
      if (resume == undefined) {
        ahead = after?.header;
        pos = record.end;
      } else {
        pos = resume;
      }
      reportProgress(options, pos, total);
    }
    for (const { item, offset } of merge.finish()) {
      yield toMessage(item, state.connections.get(item.conn)!, decode, offset);
    }
    if (indexDamage) {
      damage.add(indexDamage.offset, indexDamage.reason);
    }
    if (this.#truncatedIndexAt != undefined && damage.count === 0) {
      damage.add(
        total,
        `the file is truncated: its header says the index starts at byte ${this.#truncatedIndexAt}; every complete chunk before byte ${total} was delivered`,
      );
    }
    damage.finish();
  }

  /**
   * The messages of the chunk record `record` at `pos` a scan wants, learning its connection
   * records; a chunk that cannot be read is an empty result whose `problem` says why.
   */
  async #readChunk(record: RecordHeader, pos: number, state: ScanState): Promise<ChunkRecords> {
    const { connections, topics, defined } = state;
    try {
      const data = await this.#chunkData(record, pos);
      let result = parseChunkRecords(data, pos, connections, topics, defined);
      if (result.undefinedConnections > 0 && !state.indexLearned) {
        // Their connection records were lost (with a damaged chunk): the index repeats them.
        state.indexLearned = true;
        await this.#learnIndexConnections(connections, topics, defined);
        result = parseChunkRecords(data, pos, connections, topics, defined);
      }
      return result;
    } catch (err) {
      return { messages: [], problem: `the chunk is unreadable: ${reasonOf(err)}`, undefinedConnections: 0, firsts: new Map() };
    }
  }

  /** Adds the connection records of the index section (not yet defined ones) to a scan's maps. */
  async #learnIndexConnections(connections: Map<number, ChannelEntry>, topics: Set<string> | undefined, defined: Set<number>): Promise<void> {
    const source = this.#source;
    for (let pos = this.#indexPos ?? source.size; pos < source.size; ) {
      try {
        const record = await readRecordHeader(source, pos);
        if (record.op === OP_CONNECTION) {
          addConnection(record.fields, await readRecordData(source, record, pos, "connection", this.#maxChunkBytes), pos, connections, topics, defined);
        }
        pos = record.end;
      } catch {
        return; // a damaged index: what was read of it stays
      }
    }
  }
}

/** Where a bag's index (or the bag header's counts for it) is damaged, and the sentence naming it. */
interface IndexDamage {
  readonly offset: number;
  readonly reason: string;
}

/**
 * Checks the index's records before @foxglove/rosbag parses them, because it trusts them (a damaged
 * count or length there becomes a JavaScript error, and a count of 2^31 or more is read as
 * negative): `conn_count` connection records start at the index position and `chunk_count` chunk
 * info records follow, no more and no fewer, each whole and with the fields and data size the
 * parser reads. Throws a RecordingError at the offending record (or at the bag header, for a
 * count) saying what the file holds instead. Reads no record data larger than `limit`.
 */
async function checkIndexLayout(source: ByteSource, indexPos: number, header: Map<string, Uint8Array>, limit: number): Promise<void> {
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
}

/**
 * Checks what @foxglove/rosbag does not: every chunk the index lists starts a chunk record inside
 * the file, before the index (a record whose header parses must be a chunk), spans a time range
 * (valid times, start not after end: the chunks are merged in start-time order), and names only
 * connections the index has, counts messages in each chunk, and lists chunks at all when there is
 * room for them. A flipped byte in the index otherwise sends the reader to the wrong place or
 * silently hides a chunk; such an index is not used (the file is scanned instead).
 */
async function checkChunkInfos(bag: Bag, source: ByteSource, indexPos: number): Promise<void> {
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

/** What a sequential scan keeps of the connections it met. */
interface ScanState {
  readonly connections: Map<number, ChannelEntry>;
  readonly topics: Set<string> | undefined;
  /** Every connection id a connection record defined so far, wanted or not. */
  readonly defined: Set<number>;
  /** Whether the index's connection records were read for messages whose own ones were lost. */
  indexLearned: boolean;
}

/** What a sequential scan knows of where records start in its file. */
interface ScanPlaces {
  readonly source: ByteSource;
  /** Where the bag header says the index starts (the records before it end there), if in the file. */
  readonly indexPos: number | undefined;
  /** Positions from which the records were found to go on as a bag's top level does. */
  readonly borneOut: Set<number>;
  /** Bytes examined at a time when looking for the next record (at most the read limit). */
  readonly block: number;
}

/** What follows a record where its length says it ends, when reading can go on there. */
interface RecordAfter {
  /**
   * The header of the whole record there; undefined at the end of the file, at the index
   * position, or for a record cut off by the end of the file.
   */
  readonly header: RecordHeader | undefined;
}

/** Whether the record is a message record (connection and receive time): those lie only inside chunks. */
function isMessageRecord(record: RecordHeader): boolean {
  return record.op === OP_MESSAGE && record.fields.get("conn")?.byteLength === 4 && record.fields.get("time")?.byteLength === 8;
}

/**
 * Whether the header is one of a record a bag holds outside its chunks (bag header, chunk, index
 * data, chunk info, connection) with the fields that record has, at their sizes. Its data length
 * is checked by `countsMatch`.
 */
function isTopLevelHeader(record: RecordHeader): boolean {
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
function countsMatch(record: RecordHeader): boolean {
  const perEntry = record.op === OP_INDEX_DATA ? INDEX_ENTRY : record.op === OP_CHUNK_INFO ? 8 : undefined;
  const count = record.fields.get("count");
  return perEntry == undefined || (count?.byteLength === 4 && record.dataLength === u32(count, "count", 0) * perEntry);
}

/** The header at `pos` (its data perhaps cut off by the end of the file), or undefined when none parses there. */
async function headerAt(source: ByteSource, pos: number): Promise<RecordHeader | undefined> {
  try {
    return await readHeaderOfCut(source, pos);
  } catch {
    return undefined;
  }
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
async function recordAfter(places: ScanPlaces, at: number): Promise<RecordAfter | undefined> {
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
async function chunkEndBorneOut(source: ByteSource, after: RecordAfter, chunk: ChunkRecords): Promise<boolean> {
  const next = after.header;
  if (next?.op !== OP_INDEX_DATA || !isTopLevelHeader(next) || next.dataLength < INDEX_ENTRY) {
    return false;
  }
  const first = chunk.firsts.get(u32(next.fields.get("conn"), "conn", 0));
  if (first == undefined) {
    return false;
  }
  const entry = await source.read(next.dataOffset, INDEX_ENTRY);
  const view = new DataView(entry.buffer, entry.byteOffset, INDEX_ENTRY);
  return view.getUint32(0, true) === first.time.sec && view.getUint32(4, true) === first.time.nsec && view.getUint32(8, true) === first.offset;
}

/**
 * Whether the bytes from `at` (to `before`) hold the "op" field of a bag header, chunk, index data
 * or chunk info record where a record header starting at `at` would: a damaged record lies there,
 * not the tail of the record before. (Connection records are left out: chunks hold them.)
 */
async function holdsHeaderOf(source: ByteSource, at: number, before: number): Promise<boolean> {
  const bytes = await source.read(at, Math.min(before, at + 8 + MAX_FIELDS_BEFORE_OP) - at);
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 0x6f && bytes[i + 1] === 0x70 && bytes[i + 2] === 0x3d && TOP_LEVEL_OPS.has(bytes[i + 3]!) && bytes[i + 3] !== OP_CONNECTION) {
      return true;
    }
  }
  return false;
}

/** The record `record` as if its data length said it ends at `end` (after its header). */
function endingAt(record: RecordHeader, end: number): RecordHeader {
  return { ...record, dataLength: end - record.dataOffset, end };
}

/** Names a record's damaged data length: where it says the record ends, and where the next record starts. */
function damagedLength(record: RecordHeader, resume: number, size: number, there: "no record" | "a later record"): string {
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
async function findNextRecord(places: ScanPlaces, from: number, before = places.source.size): Promise<number | undefined> {
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
  return `(receive time ${timeText(time)}) in the chunk`;
}

/** A receive time as seconds.nanoseconds, digits as stored (a damaged nsec shows as it is). */
function timeText(time: RecordTime): string {
  return `${time.sec}.${String(time.nsec).padStart(9, "0")}`;
}

interface RecordHeader {
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
async function readRecordHeader(source: ByteSource, pos: number, indexPos?: number): Promise<RecordHeader> {
  const record = await readHeaderOfCut(source, pos, indexPos);
  if (record.end > source.size) {
    throw cutOffError(record, pos, source.size);
  }
  return record;
}

/** Names a record (at `pos`) whose data runs past the end of the file (of `size` bytes). */
function cutOffError(record: RecordHeader, pos: number, size: number): RecordingError {
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
async function readHeaderOfCut(source: ByteSource, pos: number, indexPos?: number): Promise<RecordHeader> {
  const size = source.size;
  const truncated = (what: string): RecordingError =>
    new RecordingError(pos, `the file is truncated: ${what} but the file ends at byte ${size}`);
  if (pos + 4 > size) {
    throw truncated("a record starts here");
  }
  const lenBytes = await source.read(pos, 4);
  const headerLength = new DataView(lenBytes.buffer, lenBytes.byteOffset, 4).getUint32(0, true);
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
  const bytes = await source.read(pos + 4, headerLength + 4);
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
async function readRecordData(source: ByteSource, record: RecordHeader, pos: number, kind: "chunk" | "connection", limit: number): Promise<Uint8Array> {
  try {
    checkStoredSize(`the ${kind} record here`, kind === "chunk" ? "chunk" : "record", record.dataLength, limit);
  } catch (err) {
    throw new RecordingError(pos, errorText(err));
  }
  return await source.read(record.dataOffset, record.dataLength);
}

function addConnection(
  fields: Map<string, Uint8Array>,
  data: Uint8Array,
  pos: number,
  connections: Map<number, ChannelEntry>,
  topics: Set<string> | undefined,
  defined: Set<number>,
): void {
  const id = u32(fields.get("conn"), "conn", pos);
  const topic = textDecoder.decode(fields.get("topic") ?? new Uint8Array());
  if (defined.has(id)) {
    return; // the first record of an id counts
  }
  defined.add(id);
  if (topics && !topics.has(topic)) {
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

/** The messages of a chunk, in chunk order, and why reading it stopped early (if it did). */
interface ChunkRecords {
  messages: RawMessage[];
  problem: string | undefined;
  /** Message records whose connection no connection record (so far) defines: skipped. */
  undefinedConnections: number;
  /**
   * Per connection, the receive time and offset (in the decompressed chunk) of its first message
   * record, wanted or not: what the first entry of the chunk's index data record for it holds.
   */
  firsts: Map<number, { time: RecordTime; offset: number }>;
}

/**
 * Parses the records inside a decompressed chunk: the wanted messages in chunk order. A corrupt
 * record ends the chunk there: what came before it is kept and `problem` says where it broke.
 */
function parseChunkRecords(
  data: Uint8Array,
  chunkPos: number,
  connections: Map<number, ChannelEntry>,
  topics: Set<string> | undefined,
  defined: Set<number>,
): ChunkRecords {
  const out: RawMessage[] = [];
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  let badTimes = 0;
  let undefinedConnections = 0;
  const firsts = new Map<number, { time: RecordTime; offset: number }>();
  const corrupt = (what: string): ChunkRecords => ({
    messages: out,
    problem: `chunk data is corrupt: ${what} at byte ${at} of the decompressed chunk (its later records are lost)`,
    undefinedConnections,
    firsts,
  });
  while (at < data.byteLength) {
    if (at + 4 > data.byteLength) {
      return corrupt("a record is cut off");
    }
    const headerLength = view.getUint32(at, true);
    if (headerLength < 4 || at + 8 + headerLength > data.byteLength) {
      return corrupt(`record header length ${headerLength} (${data.byteLength - at - 4} bytes remain)`);
    }
    let fields: Map<string, Uint8Array>;
    try {
      fields = parseFields(data.subarray(at + 4, at + 4 + headerLength), chunkPos);
    } catch (err) {
      return corrupt(reasonOf(err));
    }
    const dataLength = view.getUint32(at + 4 + headerLength, true);
    const start = at + 8 + headerLength;
    if (start + dataLength > data.byteLength) {
      return corrupt(`record data length ${dataLength} (${data.byteLength - start} bytes remain)`);
    }
    const body = data.subarray(start, start + dataLength);
    const op = fields.get("op")?.[0];
    if (op === OP_CONNECTION) {
      try {
        addConnection(fields, body, chunkPos, connections, topics, defined);
      } catch (err) {
        return corrupt(`connection record: ${reasonOf(err)}`);
      }
    } else if (op === OP_MESSAGE) {
      const connField = fields.get("conn");
      const time = fields.get("time");
      if (connField?.byteLength !== 4 || time?.byteLength !== 8) {
        return corrupt('message record without valid "conn" and "time" fields');
      }
      const conn = new DataView(connField.buffer, connField.byteOffset, 4).getUint32(0, true);
      const tv = new DataView(time.buffer, time.byteOffset, 8);
      const stamp = { sec: tv.getUint32(0, true), nsec: tv.getUint32(4, true) };
      if (!firsts.has(conn)) {
        firsts.set(conn, { time: stamp, offset: at });
      }
      if (stamp.nsec >= 1_000_000_000) {
        // The record is intact but its receive time is not a time: it cannot be ordered.
        badTimes += 1;
      } else if (connections.has(conn)) {
        out.push({ conn, time: stamp, data: body.slice() });
      } else if (!defined.has(conn)) {
        undefinedConnections += 1;
      }
    } else {
      return corrupt(`unexpected record op ${String(op)} inside a chunk`);
    }
    at = start + dataLength;
  }
  const problem = badTimes > 0 ? `${badTimes} message records have an impossible receive time (nsec >= 1e9) and were skipped` : undefined;
  return { messages: out, problem, undefinedConnections, firsts };
}
