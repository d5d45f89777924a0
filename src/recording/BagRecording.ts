import { Bag } from "@foxglove/rosbag";

import type { ByteSource } from "./ByteSource";
import { mergeChunks, ScanMerge, timeLess } from "./ChunkMerge";
import type { ChunkWorker } from "./ChunkWorker";
import { DamageLog } from "./DamageLog";
import { EagerByteSource } from "./EagerByteSource";
import { RecordingError, errorText, reasonOf } from "./RecordingError";
import type { ScanPrefetch } from "./ScanPrefetch";
import { SmallReadCache } from "./SmallReadCache";
import { bagChunkPrefetch, bagScanPrefetch } from "./bagChunkPrefetch";
import { planChunkSpans, sparseReadWorthTrying, type ChunkSpanTuning } from "./bagChunkSpans";
import { checkChunkInfos, checkIndexLayout } from "./bagIndexChecks";
import { indexDataReadSize, parseIndexDataRecords } from "./bagIndexData";
import {
  FIRST_RECORD,
  MAGIC,
  OP_BAG_HEADER,
  OP_CHUNK,
  OP_CONNECTION,
  OP_INDEX_DATA,
  OP_MESSAGE,
  RECORD_NAMES,
  TOP_LEVEL_OPS,
  countsMatch,
  cutOffError,
  isMessageRecord,
  recordTimeAt,
  chunkCompression,
  parseFields,
  readHeaderOfCut,
  readRecordData,
  readRecordHeader,
  textDecoder,
  u32,
  u64,
  type RecordHeader,
} from "./bagRecords";
import {
  RESYNC_BLOCK,
  RESYNC_MIN_BLOCK,
  chunkEndBorneOut,
  damagedLength,
  endingAt,
  findNextRecord,
  firstIndexEntry,
  holdsHeaderOf,
  recordAfter,
  type ScanPlaces,
} from "./bagScanPlaces";
import { DEFAULT_MAX_CHUNK_BYTES, ReadLimitError, checkStoredSize, type Decompressors, type OpenOptions } from "./decompress";
import { reportProgress, timeText, toRecordedMessage, unindexedInfo, type ChannelEntry } from "./recordedMessage";
import type {
  ReadOptions,
  RecordTime,
  RecordedMessage,
  Recording,
  RecordingChannel,
  RecordingInfo,
} from "./types";

/** A chunk as the bag's index describes it. */
type ChunkInfo = Bag["chunkInfos"][number];

/**
 * How the indexed reader reads uncompressed chunks, for tests that compare its two ways of
 * reading them; not for hosts. @internal
 */
export interface BagChunkReads {
  /** Read every chunk whole, never only the spans its index data names. */
  readonly whole?: boolean;
  /** How spans are planned (`planChunkSpans`). */
  readonly spans?: ChunkSpanTuning;
}

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

/**
 * A ROS 1 bag (format 2.0; chunks uncompressed, bz2 or lz4). Indexed bags are read chunk by chunk
 * from the index's chunk list and merged by receive time, ties in file order (`mergeChunks`); a
 * bag whose index is missing or unreadable (recording interrupted, file truncated) is read by a
 * sequential recovery scan, in the same order as far as chunks start in time order (`ScanMerge`).
 * Both read only the wanted records of an uncompressed chunk where its index data records (which
 * follow each chunk, index or not) say where they are, checked record by record.
 * Either way a damaged chunk or record is skipped and reading goes on: from the index's next
 * chunk, or (scanning) from the next position where a well-formed record starts. A scan believes
 * a record's length only when a record that belongs there starts where it ends (after a chunk,
 * its own index data): else the length is damaged, the record is read up to the first record
 * after its header and reading goes on there, so that no chunk is passed over. No record whose
 * data exceeds `maxChunkBytes` is read (see `OpenOptions`): it is damage, skipped like any other.
 * Reads are served synchronously where the source can (`EagerByteSource`).
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
  /** Where bytes that are not part of the bag start after its index (undefined: the file ends there). */
  readonly #appendedAt: number | undefined;
  /** See `BagChunkReads`. */
  #chunkReads: BagChunkReads = {};
  /** Decompresses the next bz2 chunks on other threads (`bagChunkPrefetch`, `bagScanPrefetch`). */
  #chunkWorker: ChunkWorker | undefined;

  private constructor(
    source: ByteSource,
    bag: Bag | undefined,
    decompressors: Decompressors,
    maxChunkBytes: number,
    info: RecordingInfo,
    truncatedIndexAt: number | undefined,
    indexPos?: number,
    indexDamage?: IndexDamage,
    appendedAt?: number,
  ) {
    this.#source = source;
    this.#bag = bag;
    this.#decompressors = decompressors;
    this.#maxChunkBytes = maxChunkBytes;
    this.info = info;
    this.#truncatedIndexAt = truncatedIndexAt;
    this.#indexPos = indexPos;
    this.#indexDamage = indexDamage;
    this.#appendedAt = appendedAt;
  }

  /**
   * Opens a bag. Throws RecordingError when it is not a ROS bag 2.0 or its header record is
   * unreadable; an unusable index is not an error here (see `info.indexed`), nor is one larger
   * than `options.maxChunkBytes`, which is not read. `decompressors` should be bounded by the
   * same limit (`loadDecompressors(options)`). With `options.chunkWorker`, a read has the next
   * bz2 chunks decompressed on its threads (`bagChunkPrefetch`, and `bagScanPrefetch` for a bag
   * read by a scan), with the same result.
   */
  public static async open(
    given: ByteSource,
    decompressors: Decompressors,
    options: OpenOptions & { readonly chunkReads?: BagChunkReads; readonly chunkWorker?: ChunkWorker } = {},
  ): Promise<BagRecording> {
    // A pass reads a few small ranges per chunk (record header, index data, spans): read
    // synchronously where the host can, each costs its bytes, not a thread-pool round trip.
    const source = new EagerByteSource(given);
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
      // It is damage all the same (a file cut off after its magic has nothing else to say so).
      indexPos = 0;
      problem = `the bag header record at byte ${FIRST_RECORD} is unreadable (${reasonOf(err)})`;
      indexDamage = { offset: FIRST_RECORD, reason: `${problem}; the file was read sequentially instead` };
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
        const indexEnd = await checkIndexLayout(source, indexPos, headerFields, limit);
        // @foxglove/rosbag reads everything from the index position to the end of the file at once.
        checkStoredSize(`the index section at byte ${indexPos}`, "index", source.size - indexPos, limit);
        await bag.open();
        await checkChunkInfos(bag, source, indexPos);
        const appendedAt = indexEnd < source.size ? indexEnd : undefined;
        const recording = new BagRecording(source, bag, decompressors, limit, indexedInfo(bag, source.size), undefined, undefined, undefined, appendedAt);
        recording.#chunkReads = options.chunkReads ?? {};
        recording.#chunkWorker = options.chunkWorker;
        return recording;
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
    const recording = new BagRecording(source, undefined, decompressors, limit, info, truncatedAt, indexInFile, indexDamage);
    recording.#chunkReads = options.chunkReads ?? {};
    recording.#chunkWorker = options.chunkWorker;
    return recording;
  }

  public messages(options: ReadOptions = {}): AsyncIterableIterator<RecordedMessage> {
    return this.#bag ? this.#indexed(this.#bag, options) : this.#scan(options);
  }

  /**
   * Reads the chunks that hold wanted connections. An uncompressed chunk that also holds others is
   * read in the spans its index data records name (`#sparseChunk`) when they add up; else, and for
   * any other chunk, whole. The chunk-level checks over its records (message records naming a
   * connection the index does not have, impossible receive times) see only what is read: a sparse
   * read meets the wanted records only, and leaves a chunk to the whole read whenever a record it
   * meets, or an index entry, has an impossible time, so such a wanted record is reported as ever.
   * Chunks that hold no wanted connection are not read, nor checked, at all.
   */
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
    // What follows a chunk up to the next chunk in the file (or the index) is its index data.
    const positions = [...new Set(bag.chunkInfos.map((c) => c.chunkPosition))].sort((a, b) => a - b);
    const nextInFile = new Map(positions.map((p, i) => [p, positions[i + 1] ?? indexPos]));
    const damage = new DamageLog(options.onDamage);
    let bytesRead = 0;
    type Chunk = (typeof chunks)[number];
    const prefetch = await bagChunkPrefetch<Chunk>(this.#source, this.#chunkWorker, this.#maxChunkBytes, indexPos, chunks[0]);
    const load = async (chunk: Chunk, upcoming: readonly Chunk[]): Promise<RawMessage[]> => {
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
      let unreadable = false;
      // Decompressed on the worker's threads, or undefined: read here (which names any damage).
      const decompressed = prefetch && (await prefetch.take(chunk, upcoming).catch(() => undefined));
      try {
        if (decompressed) {
          result = parseChunkRecords(decompressed, offset, wanted, topics, allConnections);
        } else {
          const record = await readRecordHeader(this.#source, offset, indexPos);
          if (record.op !== OP_CHUNK) {
            throw new RecordingError(offset, `the index points to a chunk here but the record is op ${record.op}`);
          }
          const sparse = await this.#sparseChunk(record, offset, info, nextInFile.get(offset) ?? indexPos, { wanted, topics, defined: allConnections });
          result = sparse ?? parseChunkRecords(await this.#chunkData(record, offset), offset, wanted, topics, allConnections);
        }
      } catch (err) {
        damage.add(offset, `the chunk is unreadable: ${reasonOf(err)}`, lostOf([]));
        result = { messages: [], problem: undefined, undefinedConnections: 0, firsts: new Map() };
        // (named here with everything the index counts in it)
        unreadable = true;
      }
      if (result.problem != undefined) {
        damage.add(offset, result.problem, lostOf(result.messages));
      } else if (!unreadable) {
        // A chunk that parses but holds fewer messages than its chunk info counts (a data length
        // cut short, a record's op damaged into another kind) loses them without a parse error.
        const lost = lostOf(result.messages);
        if (lost.size > 0) {
          const missing = [...lost.values()].reduce((a, b) => a + b, 0);
          damage.add(
            offset,
            `the index counts ${missing} more message${missing === 1 ? "" : "s"} on the topics read than the chunk holds: its data is cut short or damaged`,
            lost,
          );
        }
      }
      if (result.undefinedConnections > 0) {
        damage.add(offset, `${result.undefinedConnections} message records in the chunk name a connection the index does not have; they were skipped`);
      }
      // The chunk was merged in where its chunk info's start time put it: messages outside the
      // times it states were delivered all the same, perhaps out of receive-time order.
      let outside = 0;
      let first: RecordTime | undefined;
      for (const { time } of result.messages) {
        if (timeLess(time, info.startTime) || timeLess(info.endTime, time)) {
          outside++;
          if (first == undefined || timeLess(time, first)) {
            first = time;
          }
        }
      }
      if (first != undefined) {
        damage.add(
          offset,
          `the index says the chunk spans receive times ${timeText(info.startTime)} to ${timeText(info.endTime)}, but ${outside} of its messages lie outside that range (the first at ${timeText(first)}): ` +
            "the index is damaged, so these messages may have been delivered out of receive-time order (rosbag reindex rebuilds the index)",
        );
      }
      bytesRead = Math.max(bytesRead, info.nextChunk?.chunkPosition ?? indexPos);
      reportProgress(options, bytesRead, total);
      return result.messages;
    };
    for await (const { item, chunk } of mergeChunks(chunks, load, prefetch?.lookahead)) {
      yield toMessage(item, wanted.get(item.conn)!, decode, chunk.offset);
    }
    if (bytesRead < total) {
      reportProgress(options, total, total);
    }
    if (this.#appendedAt != undefined) {
      const at = this.#appendedAt;
      damage.add(at, `${total - at} bytes after the bag's index, which ends at byte ${at}, are not part of the bag (appended data?); they were ignored`);
    }
    damage.finish();
  }

  /**
   * The records of the uncompressed chunk `record` at `pos` that hold wanted messages, read in the
   * spans `planChunkSpans` makes of its index data records (read at once, up to `next`, where the
   * next chunk or the index starts), as the whole chunk's parse would give them; undefined when the
   * chunk is to be read whole: it is compressed, over the read limit, holds only wanted
   * connections, is too small to gain (`sparseReadWorthTrying`), or its index data does not add
   * up, or a record read is not the one its index entry names (offset, connection, receive time)
   * or does not parse, or a read fails. Memory holds one span at a time, never more than the
   * chunk's data. Reads through `source` (a scan passes its own).
   */
  async #sparseChunk(
    record: RecordHeader,
    pos: number,
    info: Pick<ChunkInfo, "connections">,
    next: number,
    read: { wanted: Map<number, ChannelEntry>; topics: Set<string> | undefined; defined: Set<number> },
    source: ByteSource = this.#source,
  ): Promise<ChunkRecords | undefined> {
    const { wanted, topics, defined } = read;
    const wantedHere = new Set(info.connections.filter((c) => wanted.has(c.conn)).map((c) => c.conn));
    const compression = chunkCompression(record);
    if (
      this.#chunkReads.whole === true ||
      compression !== "none" ||
      record.dataLength > this.#maxChunkBytes ||
      wantedHere.size === info.connections.length ||
      !sparseReadWorthTrying(record.dataLength, this.#chunkReads.spans)
    ) {
      return undefined;
    }
    try {
      u32(record.fields.get("size"), "size", pos);
      const indexSize = indexDataReadSize(info.connections, next - record.end);
      if (indexSize > this.#maxChunkBytes) {
        return undefined;
      }
      const indexes = parseIndexDataRecords(await source.read(record.end, indexSize), info.connections.length);
      const layout = { dataOffset: record.dataOffset, dataLength: record.dataLength };
      const spans = indexes && planChunkSpans(layout, indexes, info.connections, wantedHere, this.#chunkReads.spans);
      if (!spans) {
        return undefined;
      }
      const messages: RawMessage[] = [];
      for (const span of spans) {
        const met: { at: number; conn: number; time: RecordTime }[] = [];
        const visit = (at: number, conn: number, time: RecordTime): void => {
          met.push({ at, conn, time });
        };
        const bytes = await source.read(span.start, span.end - span.start);
        const part = parseChunkRecords(bytes, pos, wanted, topics, defined, { start: span.startInChunk, visit });
        const belied = met.length !== span.records.length || met.some(({ at, conn, time }, i) => {
          const entry = span.records[i]!;
          return entry.offset !== at || entry.conn !== conn || entry.time.sec !== time.sec || entry.time.nsec !== time.nsec;
        });
        if (belied || part.problem != undefined || part.undefinedConnections > 0) {
          return undefined;
        }
        for (const m of part.messages) {
          messages.push(m);
        }
      }
      return { messages, problem: undefined, undefinedConnections: 0, firsts: new Map() };
    } catch {
      return undefined;
    }
  }

  /**
   * The decompressed data of a chunk record: its stored bytes bounded by `maxChunkBytes`, what they
   * decompress into by the decompressors' limit.
   */
  async #chunkData(record: RecordHeader, pos: number): Promise<Uint8Array> {
    const compression = chunkCompression(record);
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
    // A scan reads record headers one by one (a chunk's, its index data records', the next
    // chunk's): served from blocks, they cost a read per block instead of one each.
    const source = new SmallReadCache(this.#source);
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
    // Decided by the first chunk record met, as an indexed read decides by its first chunk.
    let chunksAhead: ScanPrefetch<Uint8Array | undefined> | undefined;
    let chunksAheadDecided = false;
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
        if (!chunksAheadDecided) {
          chunksAheadDecided = true;
          chunksAhead = bagScanPrefetch(this.#source, this.#chunkWorker, this.#maxChunkBytes, chunkCompression(record), source);
        }
        const sparse = resume == undefined && after?.header?.op === OP_INDEX_DATA ? await this.#sparseScanChunk(source, record, pos, after.header, state) : undefined;
        // Only a chunk read as its header says is the one the worker read.
        const prepared = resume == undefined && sparse == undefined ? await chunksAhead?.take(pos, record.end) : undefined;
        let result = sparse ?? (await this.#readChunk(resume == undefined ? record : endingAt(record, resume), pos, state, prepared));
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
   * A scan's sparse read of the uncompressed chunk `record` at `pos` (`#sparseChunk`), planned
   * from the index data records that follow it (`first` is the first of them), which a writer
   * leaves after each chunk even when the bag gets no index. Undefined (the chunk is then read
   * whole) when `#sparseChunk` gives up, or the index data names a connection no connection
   * record defined so far (the chunk's own connection records are not read), or the first index
   * data record's first entry does not name a message record of its connection at its receive
   * time inside the chunk: that entry is what `chunkEndBorneOut` checks a chunk's length by, so
   * the result carries it as the connection's first record. `source`: the scan's.
   */
  async #sparseScanChunk(source: ByteSource, record: RecordHeader, pos: number, first: RecordHeader, state: ScanState): Promise<ChunkRecords | undefined> {
    if (this.#chunkReads.whole === true || chunkCompression(record) !== "none") {
      return undefined;
    }
    const connections: { conn: number; count: number }[] = [];
    let next = record.end;
    try {
      let header: RecordHeader | undefined = first;
      while (header?.op === OP_INDEX_DATA) {
        const conn = u32(header.fields.get("conn"), "conn", next);
        if (!state.defined.has(conn)) {
          return undefined;
        }
        connections.push({ conn, count: u32(header.fields.get("count"), "count", next) });
        next = header.end;
        header = next < source.size ? await readRecordHeader(source, next) : undefined;
      }
      // The index data must end where the next chunk, the index or the file starts: damage that
      // ended it early could hide a connection (and its connection record in this chunk).
      const nextIsChunk = header?.op === OP_CHUNK && header.fields.has("compression") && header.fields.has("size");
      if (!nextIsChunk && next !== source.size && next !== this.#indexPos) {
        return undefined;
      }
    } catch {
      return undefined;
    }
    const wantedHere = connections.filter((c) => state.connections.has(c.conn)).length;
    if (wantedHere === connections.length || !sparseReadWorthTrying(record.dataLength, this.#chunkReads.spans)) {
      return undefined;
    }
    const firstConn = connections[0]!.conn;
    const entry = await firstIndexEntry(source, first);
    const message = entry != undefined && entry.offset < record.dataLength ? await readRecordHeader(source, record.dataOffset + entry.offset).catch(() => undefined) : undefined;
    if (entry == undefined || message == undefined || !isMessageRecord(message) || message.end > record.end || u32(message.fields.get("conn"), "conn", 0) !== firstConn) {
      return undefined;
    }
    const time = recordTimeAt(message.fields.get("time")!);
    if (time.sec !== entry.time.sec || time.nsec !== entry.time.nsec) {
      return undefined;
    }
    const result = await this.#sparseChunk(record, pos, { connections }, next, { wanted: state.connections, topics: state.topics, defined: state.defined }, source);
    return result && { ...result, firsts: new Map([[firstConn, entry]]) };
  }

  /**
   * The messages of the chunk record `record` at `pos` a scan wants, learning its connection
   * records; a chunk that cannot be read is an empty result whose `problem` says why. `prepared`:
   * its data already decompressed (by `bagScanPrefetch`).
   */
  async #readChunk(record: RecordHeader, pos: number, state: ScanState, prepared?: Uint8Array): Promise<ChunkRecords> {
    const { connections, topics, defined } = state;
    try {
      const data = prepared ?? (await this.#chunkData(record, pos));
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

/** What a sequential scan keeps of the connections it met. */
interface ScanState {
  readonly connections: Map<number, ChannelEntry>;
  readonly topics: Set<string> | undefined;
  /** Every connection id a connection record defined so far, wanted or not. */
  readonly defined: Set<number>;
  /** Whether the index's connection records were read for messages whose own ones were lost. */
  indexLearned: boolean;
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
    publishTimes: false,
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
/** What the records of one chunk hold for a read (see `parseChunkRecords`). */
export interface ChunkRecords {
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

/** A walk of part of a chunk's data: where the part starts in it, and who sees each message record. */
interface ChunkWalk {
  /** Where `data` starts in the decompressed chunk: offsets named and visited are the chunk's. */
  readonly start: number;
  /** Called with every message record's offset in the chunk, connection and receive time. */
  readonly visit: (at: number, conn: number, time: RecordTime) => void;
}

/**
 * Parses the records inside a decompressed chunk: the wanted messages in chunk order. A corrupt
 * record ends the chunk there: what came before it is kept and `problem` says where it broke.
 * With `walk`, `data` is a part of the chunk that starts and ends at record boundaries.
 */
function parseChunkRecords(
  data: Uint8Array,
  chunkPos: number,
  connections: Map<number, ChannelEntry>,
  topics: Set<string> | undefined,
  defined: Set<number>,
  walk?: ChunkWalk,
): ChunkRecords {
  const out: RawMessage[] = [];
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const base = walk?.start ?? 0;
  let at = 0;
  let badTimes = 0;
  let undefinedConnections = 0;
  const firsts = new Map<number, { time: RecordTime; offset: number }>();
  const corrupt = (what: string): ChunkRecords => ({
    messages: out,
    problem: `chunk data is corrupt: ${what} at byte ${base + at} of the decompressed chunk (its later records are lost)`,
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
      const stamp = recordTimeAt(time);
      if (!firsts.has(conn)) {
        firsts.set(conn, { time: stamp, offset: base + at });
      }
      walk?.visit(base + at, conn, stamp);
      if (stamp.nsec >= 1_000_000_000) {
        // The record is intact but its receive time is not a time: it cannot be ordered.
        badTimes += 1;
      } else if (connections.has(conn)) {
        out.push({ conn, time: stamp, data: body.slice() });
      } else if (!defined.has(conn)) {
        undefinedConnections += 1;
      }
    } else {
      return corrupt(op == undefined ? "a record inside the chunk has no op field" : `unexpected record op ${String(op)} inside a chunk`);
    }
    at = start + dataLength;
  }
  const problem = badTimes > 0 ? `${badTimes} message records have an impossible receive time (nsec >= 1e9) and were skipped` : undefined;
  return { messages: out, problem, undefinedConnections, firsts };
}
