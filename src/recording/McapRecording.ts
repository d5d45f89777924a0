import { McapIndexedReader, Opcode, type McapTypes } from "@mcap/core";

import type { ByteSource } from "./ByteSource";
import { mergeChunks, ScanMerge } from "./ChunkMerge";
import { ChunkPrefetch } from "./ChunkPrefetch";
import { canHandOver, type ChunkWorker, type CrcResult } from "./ChunkWorker";
import { DamageLog } from "./DamageLog";
import { EagerByteSource } from "./EagerByteSource";
import { RecordingError } from "./RecordingError";
import { ScanPrefetch, type ChunkAt } from "./ScanPrefetch";
import { SmallReadCache } from "./SmallReadCache";
import { UndefinedChannelTally } from "./UndefinedChannelTally";
import { crc32 } from "./crc32";
import { DEFAULT_MAX_CHUNK_BYTES, ReadLimitError, checkStoredSize, toMcapHandlers, type Decompressors } from "./decompress";
import {
  checkChunkCrc,
  chunkRecordHeader,
  decompressChunkRecord,
  HeldChunks,
  isWholeChunkRecord,
  mcapRecordName,
  MESSAGE_INDEX_HEAD,
  messageIndexHead,
  OP_CHUNK,
  OP_MESSAGE_INDEX,
  placeByTime,
  RECORD_PREFIX,
  timeOf,
  walkRecords,
  type McapMessage,
  type RecordContents,
  type TimeRange,
} from "./mcapChunk";
import { fewerMessagesReason, mcapReason, notAChunkReason, outsideRangeReason, statisticsShortfallReason } from "./mcapErrorText";
import { KnownChannels, readRecords } from "./mcapRecords";
import { reportProgress, toRecordedMessage, unindexedInfo, type ChannelEntry } from "./recordedMessage";
import type { ReadOptions, RecordedMessage, RecordTime, Recording, RecordingChannel, RecordingInfo } from "./types";

/** Bytes examined at a time when looking for the next record after damage. */
const RESYNC_BLOCK = 1 << 20;
/**
 * How far from where an unreadable record's length field says it ends the next record is looked
 * for first (bytes lost or added inside it), before every byte after the damage is tried.
 */
const RESYNC_NEAR = 4096;
const NS = 1_000_000_000n;
/** MCAP opcodes, as @mcap/core names them (plain numbers: compared with bytes of the file). */
const OP_HEADER: number = Opcode.HEADER;
const OP_FOOTER: number = Opcode.FOOTER;
const OP_SCHEMA: number = Opcode.SCHEMA;
const OP_CHANNEL: number = Opcode.CHANNEL;
const OP_DATA_END: number = Opcode.DATA_END;
/** The records a read uses; the others (attachments, metadata, indexes) it only passes over. */
const NEEDED_OPS: ReadonlySet<number> = new Set([Opcode.SCHEMA, Opcode.CHANNEL, Opcode.MESSAGE, Opcode.CHUNK]);
/** A footer record (opcode, length, summary start, summary offset start, CRC) and the closing magic. */
const FOOTER_AND_MAGIC = 1 + 8 + 8 + 8 + 4 + 8;
/**
 * Records smaller than this are decompressed and CRC-checked on the reading thread: handing them
 * over costs more than the work (about 0.3 ms a MiB for Node's native CRC).
 */
const MIN_HANDED_OVER = 256 * 1024;
/**
 * The most bytes read at once for the heads of a chunk's message indexes (their entries lie
 * between them); beyond it each head is read on its own.
 */
const MAX_INDEX_SPAN = 64 * 1024;

/** A range of the file's bytes. */
interface ByteRange {
  readonly offset: number;
  readonly length: number;
}

/**
 * A chunk read ahead: its raw bytes, or its records decompressed and CRC-checked (and where they
 * start in the chunk record when it stores them uncompressed).
 */
type PreparedChunk =
  | { readonly raw: Uint8Array; readonly records?: undefined }
  | { readonly records: Uint8Array; readonly storedAt: number | undefined };

/** A chunk a scan's prefetch prepared, and what its own header says (if it reads). */
interface ScanChunk {
  readonly prepared: PreparedChunk;
  readonly facts: ChunkFacts | undefined;
}

/** What a chunk record's header says: where its records end in the file, the log times its messages span. */
interface ChunkFacts {
  readonly recordsEnd: number;
  readonly range: TimeRange;
}

/** What a writer puts between two chunks of an MCAP's data section. */
const BETWEEN_CHUNKS: ReadonlySet<number> = new Set([
  Opcode.CHUNK,
  Opcode.MESSAGE_INDEX,
  Opcode.SCHEMA,
  Opcode.CHANNEL,
  Opcode.MESSAGE,
  Opcode.ATTACHMENT,
  Opcode.METADATA,
]);

/** How an MCAP file is read, beyond its decompressors. */
export interface McapReadOptions {
  /**
   * Where the next chunk is decompressed and its CRC checked while this one is walked: whole
   * chunks when the source's reads are its own (`ByteSource.readsAreOwned`), else (indexed reads
   * only) only the CRC; default: on the reading thread, as part of reading each chunk.
   */
  readonly chunkWorker?: ChunkWorker;
  /**
   * The bound the decompressors were loaded with (`OpenOptions.maxChunkBytes`, default
   * `DEFAULT_MAX_CHUNK_BYTES`): a chunk declaring more is never handed to the worker, and the
   * reading thread's decompressor refuses it with the reason. No record, summary or index longer
   * than it is read either.
   */
  readonly maxChunkBytes?: number;
}

function channelOf(channel: McapTypes.Channel, schema: McapTypes.Schema | undefined): RecordingChannel {
  return {
    topic: channel.topic,
    schemaName: schema?.name ?? "",
    schemaEncoding: schema?.encoding ?? "",
    schemaData: schema?.data ?? new Uint8Array(),
    messageEncoding: channel.messageEncoding,
    metadata: channel.metadata,
  };
}

function profileOf(profile: string, channels: Iterable<RecordingChannel>): "ros1" | "ros2" | undefined {
  if (profile === "ros1" || profile === "ros2") {
    return profile;
  }
  for (const c of channels) {
    if (c.messageEncoding === "ros1") {
      return "ros1";
    }
    if (c.messageEncoding === "cdr") {
      return "ros2";
    }
  }
  return undefined;
}

/**
 * Adds the schemas and channels of `contents` to `known`, in record order; each new channel gets
 * an entry when `wanted` accepts it.
 */
function learn(
  known: KnownChannels,
  contents: RecordContents,
  entries: Map<number, ChannelEntry>,
  wanted: (channel: McapTypes.Channel) => boolean,
): boolean {
  let added = false;
  for (const r of contents.definitions) {
    if (r.type === "Schema") {
      added ||= !known.schemas.has(r.id);
      known.addSchema(r);
    } else if (!known.channels.has(r.id)) {
      added = true;
      known.addChannel(r);
      if (wanted(r)) {
        entries.set(r.id, { channel: channelOf(r, known.schemas.get(r.schemaId)) });
      }
    }
  }
  return added;
}

/**
 * An MCAP file (chunks uncompressed, lz4 or zstd; ros1, cdr and json message encodings). Files
 * with a summary section are read chunk by chunk from the chunk indexes and merged by log time,
 * ties in file order (`mergeChunks`); files without one (interrupted or truncated, or written
 * without chunk index) are read record by record in file order and delivered in the same order
 * as far as chunks start in time order (`ScanMerge`). An indexed read works ahead
 * (`ChunkPrefetch`): while it walks one chunk, the next is read (with a ChunkWorker the next
 * `parallelism`, also decompressed and CRC-checked on its threads where they can) and the one
 * after those read, so at most `parallelism + 1` chunks are held beyond what the merge holds. A damaged chunk or record never ends the read: it
 * is skipped (with what the message indexes say it held, when they are readable) and reading
 * goes on with the next chunk of the index or, without one, the next position where a
 * well-formed record starts. No record longer than `maxChunkBytes` is read: it is damage, skipped
 * like any other; a summary longer than it is not used.
 *
 * A chunk that reads but holds fewer messages on the channels read than its message indexes count
 * (its records cut short or zeroed; or, for chunks written without them, fewer than the Statistics
 * record counts in all), or another record where the index puts a chunk, is damage naming what
 * is missing per topic. Messages whose log times lie outside the range their chunk states (its
 * index's, or its header's in a scan) are one damage per chunk, and are delivered in log-time
 * order where the merge can place them (`placeByTime`), else skipped and counted: the output never
 * goes backwards because of them, and the chunks they hold stay within `maxChunkBytes`.
 */
export class McapRecording implements Recording {
  public readonly info: RecordingInfo;
  readonly #source: ByteSource;
  readonly #reader: McapIndexedReader | undefined;
  readonly #handlers: McapTypes.DecompressHandlers;
  readonly #chunkWorker: ChunkWorker | undefined;
  readonly #maxChunkBytes: number;
  /** Where bytes that are not MCAP start after the closing magic (undefined: the file ends there). */
  readonly #appendedAt: number | undefined;
  /**
   * Why the summary a closed file names could not be used, and where that summary starts: damage
   * a sequential read reports when its data section reads clean (see `#scan`).
   */
  readonly #summaryDamage: { readonly offset: number; readonly reason: string } | undefined;

  private constructor(
    source: ByteSource,
    decompressors: Decompressors,
    info: RecordingInfo,
    reader: McapIndexedReader | undefined,
    options: McapReadOptions & {
      readonly appendedAt?: number | undefined;
      readonly summaryDamage?: { readonly offset: number; readonly reason: string } | undefined;
    },
  ) {
    this.#source = source;
    this.#appendedAt = options.appendedAt;
    this.#summaryDamage = options.summaryDamage;
    this.#chunkWorker = options.chunkWorker;
    this.#maxChunkBytes = options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
    this.#handlers = toMcapHandlers(decompressors);
    this.info = info;
    this.#reader = reader;
  }

  /**
   * Opens an MCAP file. Throws RecordingError when the magic is wrong; an unusable summary is not
   * an error here (see `info.indexed`). Bytes after the closing magic (found within the last
   * MiB) are left out, so the summary before them is used; every read names them as damage.
   */
  public static async open(given: ByteSource, decompressors: Decompressors, options: McapReadOptions = {}): Promise<McapRecording> {
    // A scan (a file without a usable summary: a recorder killed) reads each record's prefix,
    // opcode and body: read synchronously where the host can, each costs its bytes, not a
    // thread-pool round trip.
    const source = new EagerByteSource(given);
    const limit = options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
    const readable = {
      size: async () => BigInt(source.size),
      read: async (offset: bigint, length: bigint) => {
        // @mcap/core reads the Header record and the whole summary section at once, by the
        // lengths the file gives.
        checkStoredSize(offset === 8n ? "the Header record" : `the summary section at byte ${offset}`, offset === 8n ? "record" : "summary", length, limit);
        return await source.read(Number(offset), Number(length));
      },
    };
    let reader: McapIndexedReader | undefined;
    let problem: string | undefined;
    /** Where a summary that is there but unusable starts (a chunk index outside the file, too). */
    let summaryStart: number | undefined;
    const closing = await closingMagicEnd(source);
    const appended = closing != undefined && closing < source.size ? closing : undefined;
    if (appended != undefined) {
      // The reader looks for the footer at the end: it is given the file as the MCAP ends.
      readable.size = async () => BigInt(appended);
    }
    try {
      reader = await McapIndexedReader.Initialize({ readable, decompressHandlers: toMcapHandlers(decompressors) });
      if (reader.chunkIndexes.length === 0 && (reader.statistics?.messageCount ?? 1n) > 0n) {
        problem = "the file has no chunk index (written without chunks or without a chunk index)";
        reader = undefined;
      } else {
        for (const c of reader.chunkIndexes) {
          if (c.chunkStartOffset < 8n || c.chunkStartOffset + c.chunkLength > BigInt(source.size)) {
            problem = `a chunk index points to bytes ${c.chunkStartOffset}–${c.chunkStartOffset + c.chunkLength}, outside the file`;
            summaryStart = await namedSummaryStart(source, appended ?? source.size);
            reader = undefined;
            break;
          }
        }
      }
    } catch (err) {
      problem = `the summary section is unusable: ${mcapReason(err)}`;
      // Too large to read is no sign of damage; anything else wrong with a summary the footer of
      // a closed file names is.
      summaryStart = err instanceof ReadLimitError ? undefined : await namedSummaryStart(source, appended ?? source.size);
    }
    if (reader) {
      return new McapRecording(source, decompressors, indexedInfo(reader, source.size), reader, { ...options, appendedAt: appended });
    }
    const magic = source.size >= 8 ? await source.read(0, 8) : new Uint8Array();
    if (!startsWithMagic(magic)) {
      throw new RecordingError(0, "not an MCAP file (the magic bytes \\x89MCAP are missing)");
    }
    const info = unindexedInfo("mcap", undefined, problem, source.size);
    const summaryDamage = summaryStart == undefined ? undefined : { offset: summaryStart, reason: `${problem!}; the file was read sequentially instead` };
    return new McapRecording(source, decompressors, info, undefined, { ...options, appendedAt: appended, summaryDamage });
  }

  public messages(options: ReadOptions = {}): AsyncIterableIterator<RecordedMessage> {
    return this.#reader ? this.#indexed(this.#reader, options) : this.#scan(options);
  }

  async *#indexed(reader: McapIndexedReader, options: ReadOptions): AsyncIterableIterator<RecordedMessage> {
    const decode = options.decode === false ? "raw" : "decode";
    const topics = options.topics ? new Set(options.topics) : undefined;
    const wanted = (channel: McapTypes.Channel): boolean => !topics || topics.has(channel.topic);
    const known = new KnownChannels();
    for (const s of reader.schemasById.values()) {
      known.addSchema(s);
    }
    const entries = new Map<number, ChannelEntry>();
    for (const channel of reader.channelsById.values()) {
      known.addChannel(channel);
      if (!topics || topics.has(channel.topic)) {
        entries.set(channel.id, { channel: channelOf(channel, reader.schemasById.get(channel.schemaId)) });
      }
    }
    const chunks = reader.chunkIndexes
      .filter((c) => [...c.messageIndexOffsets.keys()].some((id) => entries.has(id)) || c.messageIndexOffsets.size === 0)
      .map((index) => ({ startTime: timeOf(index.messageStartTime), offset: Number(index.chunkStartOffset), index }));
    const total = this.#source.size;
    const damage = new DamageLog(options.onDamage);
    const undefinedChannels = new UndefinedChannelTally();
    let bytesRead = 0;
    type Chunk = (typeof chunks)[number];
    // The next chunks are prepared (with a ChunkWorker: decompressed and CRC-checked, as many as
    // it works on at once) and the one after them read while this one is walked and its
    // messages delivered.
    const rangeOf = (chunk: Chunk): ByteRange => ({ offset: chunk.offset, length: Number(chunk.index.chunkLength) });
    const prefetch = new ChunkPrefetch<Chunk, PreparedChunk>(
      async (chunk) => {
        const { offset, length } = rangeOf(chunk);
        checkStoredSize("the chunk record here", "chunk", length, this.#maxChunkBytes);
        return await this.#source.read(offset, length);
      },
      async (chunk, bytes) => await this.#prepare(rangeOf(chunk), bytes),
      this.#chunkWorker?.parallelism ?? 1,
    );
    const held = new HeldChunks(this.#maxChunkBytes);
    /** The log time of the last message delivered: no message given to the merge may be earlier. */
    let delivered: RecordTime | undefined;
    // Chunks written without message indexes are checked as a whole, against the Statistics
    // record's counts: per wanted channel, what the other chunks' message indexes count plus what
    // those chunks held (not `usable` once a message index is unreadable: nothing to add up).
    const whole = { counted: new Map<number, number>(), usable: true, firstUnindexed: undefined as number | undefined };
    const count = (id: number, n: number): void => {
      whole.counted.set(id, (whole.counted.get(id) ?? 0) + n);
    };
    const load = async (chunk: Chunk, upcoming: readonly Chunk[]): Promise<McapMessage[]> => {
      const { index, offset } = chunk;
      const prepared = prefetch.take(chunk, upcoming);
      let contents: RecordContents | undefined;
      let problem: string | undefined;
      try {
        const ready = await prepared;
        // Another record where the index puts a chunk would be read as the records it is (one
        // of an unknown opcode passed over without a word), and the chunk's messages lost.
        if (ready.records == undefined && ready.raw[0] !== OP_CHUNK) {
          throw new Error(notAChunkReason(ready.raw[0]));
        }
        contents =
          ready.records == undefined
            ? readRecords(known, ready.raw, this.#handlers, wanted)
            : walkRecords(ready.records, { channels: known.channels, wants: wanted }, ready.storedAt);
        learn(known, contents, entries, wanted);
        undefinedChannels.add(contents, offset);
      } catch (err) {
        problem = `the chunk is unreadable: ${mcapReason(err)}`;
      }
      const indexed = index.messageIndexOffsets.size > 0;
      const counts = indexed ? await this.#indexCounts(index, entries) : undefined;
      if (problem != undefined) {
        damage.add(offset, problem, topicCounts(counts, entries));
      }
      bytesRead = Math.max(bytesRead, offset + Number(index.chunkLength) + Number(index.messageIndexLength));
      reportProgress(options, Math.min(bytesRead, total), total);
      if (!indexed) {
        whole.firstUnindexed ??= offset;
        for (const m of contents?.messages ?? []) {
          count(m.channelId, 1);
        }
      } else if (counts == undefined) {
        whole.usable = false;
      } else {
        // What is missing from this chunk is named with it (below, or as it is unreadable).
        for (const [id, n] of counts) {
          count(id, n);
        }
      }
      if (contents == undefined) {
        return [];
      }
      const range = { start: chunk.startTime, end: timeOf(index.messageEndTime) };
      const { messages, outside } = placeByTime(contents.messages, range, delivered, held);
      if (outside) {
        damage.add(offset, outsideRangeReason("the chunk index", range, outside), topicCounts(outside.skipped, entries));
      }
      if (counts) {
        checkCount(damage, offset, counts, contents, entries);
      }
      return messages;
    };
    for await (const { item, chunk } of mergeChunks(chunks, load, prefetch.lookahead)) {
      delivered = item.time;
      yield toMessage(item, entries.get(item.channelId)!, decode, chunk.offset);
    }
    reportProgress(options, total, total);
    undefinedChannels.report(damage);
    if (whole.firstUnindexed != undefined && whole.usable && reader.statistics) {
      checkStatistics(damage, whole.firstUnindexed, reader.statistics, whole.counted, entries);
    }
    this.#reportAppended(damage);
    damage.finish();
  }

  /**
   * Prepares the chunk read from `range` for `load`. With a ChunkWorker, a whole chunk record is
   * decompressed and its CRC checked on the worker's thread when the worker can take it (memory
   * the source gave away, a compression the worker knows, a declared size within the bound), else
   * decompressed here and its CRC checked there; either way the reasons `readChunkRecord` gives
   * are thrown. If the worker fails, the bytes are read again for `readRecords`, which gives the
   * reason on this thread. Without a worker the raw bytes are returned.
   */
  async #prepare(range: ByteRange, bytes: Uint8Array): Promise<PreparedChunk> {
    const worker = this.#chunkWorker;
    if (worker == undefined || !isWholeChunkRecord(bytes)) {
      return { raw: bytes };
    }
    const header = chunkRecordHeader(bytes);
    const size = Number(header.uncompressedSize);
    if (
      this.#source.readsAreOwned === true &&
      worker.compressions.has(header.compression) &&
      header.recordsLength > 0 &&
      size >= MIN_HANDED_OVER &&
      size <= this.#maxChunkBytes &&
      canHandOver(bytes)
    ) {
      let done: CrcResult;
      try {
        done = await worker.decompress(bytes, {
          compression: header.compression,
          offset: header.recordsOffset,
          length: header.recordsLength,
          uncompressedSize: size,
        });
      } catch {
        return await this.#readAgain(range);
      }
      checkChunkCrc(done.crc, header.declaredCrc);
      return { records: done.bytes, storedAt: undefined };
    }
    const { records, declaredCrc, storedAt } = decompressChunkRecord(bytes, this.#handlers);
    if (declaredCrc === 0) {
      return { records, storedAt };
    }
    if (records.byteLength < MIN_HANDED_OVER || !canHandOver(records)) {
      checkChunkCrc(crc32(records), declaredCrc);
      return { records, storedAt };
    }
    let checked: CrcResult;
    try {
      checked = await worker.crc32(records);
    } catch {
      return await this.#readAgain(range);
    }
    checkChunkCrc(checked.crc, declaredCrc);
    return { records: checked.bytes, storedAt };
  }

  /**
   * With a ChunkWorker (and a source whose reads it can take), what works ahead of a scan: the
   * next chunks found by the records after the one taken (`ScanPrefetch`, whose walk reads through
   * `headers`, the scan's block reads), read and prepared as an indexed read prepares them
   * (`#prepare`), with where each one's records end by its header, taken before its bytes are
   * handed over. Undefined otherwise: a scan without one prepares nothing ahead.
   */
  #scanPrefetch(headers: ByteSource): ScanPrefetch<ScanChunk> | undefined {
    const worker = this.#chunkWorker;
    if (worker == undefined || this.#source.readsAreOwned !== true) {
      return undefined;
    }
    const prefetch = new ChunkPrefetch<ChunkAt, ScanChunk>(
      async ({ offset, end }) => {
        checkStoredSize("the chunk record here", "chunk", end - offset, this.#maxChunkBytes);
        return await this.#source.read(offset, end - offset);
      },
      async ({ offset, end }, bytes) => {
        const facts = chunkFacts(bytes, offset);
        return { prepared: await this.#prepare({ offset, length: end - offset }, bytes), facts };
      },
      worker.parallelism,
    );
    const recordAt = async (at: number): Promise<{ end: number; chunk: boolean } | undefined> => {
      const record = await recordPrefix(headers, at);
      return record && BETWEEN_CHUNKS.has(record.op) ? { end: at + record.length, chunk: record.op === OP_CHUNK } : undefined;
    };
    return new ScanPrefetch(prefetch, recordAt, this.#source.size);
  }

  /**
   * The chunk read again, raw, for `readRecords` on this thread: after a worker failed, the memory
   * it was handed is lost, and this thread gives the reason if the chunk is damaged.
   */
  async #readAgain(range: ByteRange): Promise<PreparedChunk> {
    return { raw: await this.#source.read(range.offset, range.length) };
  }

  /**
   * How many messages a chunk's message indexes count per wanted channel (those `entries`
   * has), read from their records' length fields alone; undefined when one is not where the chunk
   * index puts it, or not readable. An empty map when the chunk holds no wanted channel.
   */
  async #indexCounts(index: McapTypes.ChunkIndex, entries: ReadonlyMap<number, ChannelEntry>): Promise<Map<number, number> | undefined> {
    const places = [...index.messageIndexOffsets].filter(([id]) => entries.has(id)).map(([id, at]) => [id, Number(at)] as const);
    const counts = new Map<number, number>();
    if (places.length === 0) {
      return counts;
    }
    const size = this.#source.size;
    const from = Math.min(...places.map(([, at]) => at));
    const to = Math.max(...places.map(([, at]) => at)) + MESSAGE_INDEX_HEAD;
    if (!Number.isSafeInteger(to) || to > size) {
      return undefined;
    }
    try {
      // The records sit together after the chunk, their entries (16 bytes a message) between
      // their heads: read at once when that is small, else head by head.
      const span = to - from <= Math.min(MAX_INDEX_SPAN, this.#maxChunkBytes) ? await this.#source.read(from, to - from) : undefined;
      for (const [id, at] of places) {
        const head = span ? messageIndexHead(span, at - from) : messageIndexHead(await this.#source.read(at, MESSAGE_INDEX_HEAD), 0);
        if (head?.channelId !== id) {
          return undefined;
        }
        counts.set(id, head.count);
      }
    } catch {
      return undefined;
    }
    return counts;
  }

  async *#scan(options: ReadOptions): AsyncIterableIterator<RecordedMessage> {
    // A scan reads each record's opcode and length, then the record: the small ones (the message
    // indexes after each chunk, schemas, channels) are served from page blocks.
    const source = new SmallReadCache(this.#source);
    const total = source.size;
    const topics = options.topics ? new Set(options.topics) : undefined;
    const wanted = (channel: McapTypes.Channel): boolean => !topics || topics.has(channel.topic);
    const decode = options.decode === false ? "raw" : "decode";
    const known = new KnownChannels();
    const entries = new Map<number, ChannelEntry>();
    // The summary's copies of the schemas and channels, learned only when a record names one the
    // data section has not defined (its record was lost with a damaged chunk): the data section's
    // own records come first.
    let summaryLearned = false;
    const damage = new DamageLog(options.onDamage);
    const undefinedChannels = new UndefinedChannelTally();
    const merge = new ScanMerge<McapMessage>();
    const chunksAhead = this.#scanPrefetch(source);
    const held = new HeldChunks(this.#maxChunkBytes);
    /** The log time of the last message delivered: no message given to the merge may be earlier. */
    let delivered: RecordTime | undefined;
    /**
     * The chunk read last, until the MessageIndex records a writer puts after it are added up (per
     * wanted channel); `broken` when one of them could not be read.
     */
    let pending: { offset: number; contents: RecordContents; counts: Map<number, number>; broken: boolean } | undefined;
    const settle = (): void => {
      if (pending && !pending.broken && pending.counts.size > 0) {
        checkCount(damage, pending.offset, pending.counts, pending.contents, entries);
      }
      pending = undefined;
    };
    let pos = 8;
    /** Whether the data section ended with its closing record (Data End or Footer). */
    let closed = false;
    while (pos < total) {
      const prefix = await recordPrefix(source, pos);
      if (prefix?.op !== OP_MESSAGE_INDEX) {
        settle();
      }
      if (prefix == undefined) {
        const resume = await this.#findNextRecord(known, pos + 1);
        const opcodeThere = (await opcodeAt(source, pos)) != undefined;
        const reason =
          resume == undefined && (pos + RECORD_PREFIX > total || opcodeThere)
            ? `the file is truncated: the record starting here is incomplete (the file ends at byte ${total})`
            : `the record header here is corrupt (${opcodeThere ? "its length runs past the end of the file" : "unknown opcode"}); ${resume == undefined ? "no readable record follows it" : `reading resumed at the next record, byte ${resume}`}`;
        damage.add(pos, reason);
        if (resume == undefined) {
          break;
        }
        pos = resume;
        continue;
      }
      const { op, length } = prefix;
      if (op === OP_FOOTER || op === OP_DATA_END) {
        // The data section is over; the (unusable) summary follows. A file that does not end
        // with the closing magic was cut short after its data, or has bytes after the magic, or
        // something else where the magic should be.
        const tail = total >= 16 ? await source.read(total - 8, 8) : new Uint8Array();
        const appendedAt = this.#appendedAt ?? (startsWithMagic(tail) ? undefined : await closingMagicAfter(source, pos));
        if (appendedAt != undefined) {
          this.#reportAppended(damage, appendedAt);
        } else if (!startsWithMagic(tail)) {
          const footer = await footerBeforeEnd(source);
          damage.add(
            total,
            footer == undefined
              ? `the file is truncated after its data section (at byte ${pos}): every message was read, its summary is lost`
              : `the file does not end with the MCAP closing magic: its last 8 bytes, after its footer at byte ${footer}, are ${hex(tail)}; every message was read, its summary was not used`,
          );
        }
        closed = true;
        break;
      }
      if (length > this.#maxChunkBytes && !NEEDED_OPS.has(op) && (await this.#recordStartsAtPos(known, pos + length))) {
        // An attachment or metadata record too large to read, which the read does not need
        // anyway: its length is borne out by the record after it, so it is passed over whole.
        if (pending && op === OP_MESSAGE_INDEX) {
          pending.broken = true;
        }
        pos += length;
        continue;
      }
      let contents: RecordContents;
      /** What a chunk's own header says (undefined: not a chunk, or unreadable). */
      let facts: ChunkFacts | undefined;
      /** What a MessageIndex record says (undefined: not one). */
      let indexHead: ReturnType<typeof messageIndexHead>;
      try {
        if (length > this.#maxChunkBytes) {
          const name = op === OP_CHUNK ? "chunk" : (mcapRecordName(op) ?? `opcode ${op}`);
          checkStoredSize(`the ${name} record here`, op === OP_CHUNK ? "chunk" : "record", length, this.#maxChunkBytes);
        }
        const ready = op === OP_CHUNK ? await chunksAhead?.take(pos, pos + length) : undefined;
        if (ready != undefined) {
          const { prepared } = ready;
          contents =
            prepared.records == undefined
              ? readRecords(known, prepared.raw, this.#handlers, wanted)
              : walkRecords(prepared.records, { channels: known.channels, wants: wanted }, prepared.storedAt);
          facts = ready.facts;
        } else {
          const recordBytes = await source.read(pos, length);
          contents = readRecords(known, recordBytes, this.#handlers, wanted);
          facts = op === OP_CHUNK ? chunkFacts(recordBytes, pos) : undefined;
          indexHead = op === OP_MESSAGE_INDEX ? messageIndexHead(recordBytes, 0) : undefined;
        }
        if (contents.undefinedChannels.size > 0 && !summaryLearned) {
          summaryLearned = true;
          const summary = await this.#summaryDefinitions(known);
          if (summary != undefined && learn(known, summary, entries, wanted)) {
            contents = readRecords(known, await source.read(pos, length), this.#handlers, wanted);
          }
        }
      } catch (err) {
        // Its length field read right but its contents did not (a byte lost, added or flipped
        // inside): the next record most likely starts where that length says, give or take the
        // bytes lost or added. Scanning every byte after the damage instead would find records
        // inside an uncompressed chunk, and lose the channels defined before the damage.
        if (pending && op === OP_MESSAGE_INDEX) {
          pending.broken = true;
        }
        const resume = (await this.#findRecordNear(known, pos + length, pos + 1)) ?? (await this.#findNextRecord(known, pos + 1));
        const reason = `the ${op === OP_CHUNK ? "chunk" : "record"} here is unreadable: ${mcapReason(err)}`;
        damage.add(pos, resume == undefined ? reason : `${reason}; reading resumed at the next record, byte ${resume}`);
        if (resume == undefined) {
          break;
        }
        pos = resume;
        continue;
      }
      learn(known, contents, entries, wanted);
      undefinedChannels.add(contents, pos);
      let messages = contents.messages;
      if (op === OP_CHUNK) {
        pending = { offset: pos, contents, counts: new Map(), broken: false };
        if (facts) {
          const placed = placeByTime(messages, facts.range, delivered, held);
          messages = placed.messages;
          if (placed.outside) {
            damage.add(pos, outsideRangeReason("the chunk record", facts.range, placed.outside), topicCounts(placed.outside.skipped, entries));
          }
        }
      } else if (pending && op === OP_MESSAGE_INDEX) {
        if (indexHead == undefined) {
          pending.broken = true;
        } else if (entries.has(indexHead.channelId)) {
          pending.counts.set(indexHead.channelId, (pending.counts.get(indexHead.channelId) ?? 0) + indexHead.count);
        }
      }
      for (const { item, offset } of merge.add(messages, pos)) {
        delivered = item.time;
        yield toMessage(item, entries.get(item.channelId)!, decode, offset);
      }
      const ownEnd = facts == undefined ? undefined : await this.#chunkEndWhereLengthLies(known, pos, length, facts.recordsEnd);
      if (ownEnd != undefined) {
        damage.add(
          pos,
          `the chunk record's length is damaged: it says the record ends at byte ${pos + length}, but the chunk's own fields end it at byte ${ownEnd}, where the next record starts; reading resumed there`,
        );
      }
      pos = ownEnd ?? pos + length;
      reportProgress(options, pos, total);
    }
    if (!closed && pos >= total) {
      // Cut right after a complete record: nothing looks damaged, but an MCAP closes with its
      // data end, summary and footer.
      damage.add(total, `the file is truncated: it ends at byte ${total}, after a complete record but before the data end and footer an MCAP closes with (what followed is lost; every record before was read)`);
    }
    settle();
    for (const { item, offset } of merge.finish()) {
      yield toMessage(item, entries.get(item.channelId)!, decode, offset);
    }
    undefinedChannels.report(damage);
    // Damage in the data section (bytes lost or added shift what the footer points to, a broken
    // Header record stops the summary's reader) explains an unusable summary; a data section that
    // reads clean does not, so then the summary itself is damaged.
    if (this.#summaryDamage && damage.count === 0) {
      damage.add(this.#summaryDamage.offset, this.#summaryDamage.reason);
    }
    damage.finish();
  }

  /** Names the bytes after the closing magic (ending at `at`), when the file has any. */
  #reportAppended(damage: DamageLog, at = this.#appendedAt): void {
    if (at != undefined) {
      const n = this.#source.size - at;
      damage.add(at, `${n} bytes after the MCAP's closing magic at byte ${at - 8} are not MCAP (appended data?); they were ignored`);
    }
  }

  /**
   * After damage at `from - 1`: the first position at or after `from` where a complete,
   * well-formed record starts (one that parses, CRCs included), or undefined.
   */
  async #findNextRecord(known: KnownChannels, from: number): Promise<number | undefined> {
    const source = this.#source;
    const size = source.size;
    for (let start = from; start < size; start += RESYNC_BLOCK) {
      const bytes = (await source.read(start, Math.min(RESYNC_BLOCK + RECORD_PREFIX, size - start))).slice();
      for (let i = 0; i < Math.min(RESYNC_BLOCK, bytes.length); i++) {
        if (await this.#recordStartsAt(known, start + i, bytes, i)) {
          return start + i;
        }
      }
    }
    return undefined;
  }

  /**
   * The Schema and Channel records that open the summary section, found from the footer (at the
   * summary start it names, or as near it as bytes lost or added before it moved it), or
   * undefined when the footer or those records are not there. Read for a sequential scan, whose
   * file is damaged or has no index. A summary that fails its CRC is used only as it parses at the
   * summary start the footer names: the caller learns from it only channels that no record of
   * the data section defines, whose messages are lost without it.
   */
  async #summaryDefinitions(known: KnownChannels): Promise<RecordContents | undefined> {
    const source = this.#source;
    const size = source.size;
    if (size < 8 + FOOTER_AND_MAGIC) {
      return undefined;
    }
    const tail = await source.read(size - FOOTER_AND_MAGIC, FOOTER_AND_MAGIC);
    const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
    if (tail[0] !== OP_FOOTER || !startsWithMagic(tail.subarray(FOOTER_AND_MAGIC - 8))) {
      return undefined;
    }
    const start = Number(view.getBigUint64(9, true));
    const declaredCrc = view.getUint32(25, true);
    const footer = size - FOOTER_AND_MAGIC;
    if (start <= 8 || !Number.isSafeInteger(start) || start >= size) {
      return undefined;
    }
    let unverified: RecordContents | undefined;
    for (const at of nearestFirst(start, RESYNC_NEAR)) {
      const contents = await this.#definitionsAt(known, at, footer);
      // The summary's CRC runs from its start through the footer's summary offset field: a
      // summary elsewhere that does not match it is not trusted (a record flipped in it would
      // misname, and near the named start a run of records may parse by chance).
      // A summary longer than the limit is not read to check its CRC: it is used only unverified.
      const summaryLength = footer + 25 - at;
      if (contents != undefined && (declaredCrc === 0 || (summaryLength <= this.#maxChunkBytes && crc32(await source.read(at, summaryLength)) === declaredCrc))) {
        return contents;
      }
      if (at === start) {
        unverified = contents;
      }
    }
    return unverified;
  }

  /** The run of Schema and Channel records starting at `at` (before `end`), if one parses there. */
  async #definitionsAt(known: KnownChannels, at: number, end: number): Promise<RecordContents | undefined> {
    let p = at;
    while (p + RECORD_PREFIX <= end) {
      const head = await this.#source.read(p, RECORD_PREFIX);
      if (head[0] !== OP_SCHEMA && head[0] !== OP_CHANNEL) {
        break;
      }
      const length = prefixLength(head, 0);
      if (!Number.isSafeInteger(length) || p + length > end) {
        return undefined;
      }
      p += length;
    }
    if (p === at || p - at > this.#maxChunkBytes) {
      return undefined;
    }
    try {
      return readRecords(known, await this.#source.read(at, p - at), this.#handlers, () => false);
    } catch {
      return undefined;
    }
  }

  /**
   * The position nearest to `expected` (within RESYNC_NEAR, not before `from`) where a complete,
   * well-formed record starts, or undefined.
   */
  async #findRecordNear(known: KnownChannels, expected: number, from: number): Promise<number | undefined> {
    const source = this.#source;
    const lo = Math.max(from, expected - RESYNC_NEAR);
    const hi = Math.min(source.size, expected + RESYNC_NEAR);
    if (lo >= hi) {
      return undefined;
    }
    const bytes = (await source.read(lo, Math.min(hi - lo + RECORD_PREFIX, source.size - lo))).slice();
    for (const pos of nearestFirst(expected, RESYNC_NEAR)) {
      if (pos >= lo && pos < hi && (await this.#recordStartsAt(known, pos, bytes, pos - lo))) {
        return pos;
      }
    }
    return undefined;
  }

  /**
   * Where a chunk record read whole at `pos` really ends when its length field lies: its own
   * fields (the records' length) end it before `pos + length`, and a complete, well-formed record
   * starts there. Undefined otherwise (a record that fills its length, or trailing bytes that are
   * not followed by a record: perhaps fields of a later MCAP version). Without this a length too
   * large would pass over the records after the chunk. `ownEnd`: where its records end by its
   * header (`chunkFacts`).
   */
  async #chunkEndWhereLengthLies(known: KnownChannels, pos: number, length: number, ownEnd: number): Promise<number | undefined> {
    if (ownEnd >= pos + length || ownEnd + RECORD_PREFIX > this.#source.size) {
      return undefined;
    }
    return (await this.#recordStartsAtPos(known, ownEnd)) ? ownEnd : undefined;
  }

  /** Whether a complete, well-formed record starts at byte `pos` of the file. */
  async #recordStartsAtPos(known: KnownChannels, pos: number): Promise<boolean> {
    if (pos + RECORD_PREFIX > this.#source.size) {
      return false;
    }
    return await this.#recordStartsAt(known, pos, await this.#source.read(pos, RECORD_PREFIX), 0);
  }

  /**
   * Whether a complete, well-formed record starts at `pos`, whose bytes begin at `bytes[i]` (the
   * prefix must be in `bytes`; the rest is read when it looks like a record).
   */
  async #recordStartsAt(known: KnownChannels, pos: number, bytes: Uint8Array, i: number): Promise<boolean> {
    const op = bytes[i]!;
    if (op < OP_SCHEMA || op > OP_DATA_END || i + RECORD_PREFIX > bytes.length) {
      return false;
    }
    const length = prefixLength(bytes, i);
    // A record longer than the limit is never read, so never found either.
    if (!Number.isSafeInteger(length) || pos + length > this.#source.size || length > this.#maxChunkBytes) {
      return false;
    }
    if (op === OP_FOOTER || op === OP_DATA_END) {
      return true;
    }
    try {
      // A message on a channel nothing defines is no evidence of a record start.
      return readRecords(known, await this.#source.read(pos, length), this.#handlers, () => false).undefinedChannels.size === 0;
    } catch {
      return false; // not a record start
    }
  }
}

/**
 * Where the file's MCAP ends when bytes follow it: the end of the last Footer record followed by
 * the closing magic within the file's last RESYNC_BLOCK bytes (bounded: bytes appended beyond
 * that are not looked through), or undefined when the file ends with its magic or none is found.
 */
async function closingMagicEnd(source: ByteSource): Promise<number | undefined> {
  const size = source.size;
  if (size < 8 + FOOTER_AND_MAGIC || startsWithMagic(await source.read(size - 8, 8))) {
    return undefined;
  }
  const from = Math.max(8, size - RESYNC_BLOCK);
  const bytes = await source.read(from, size - from);
  for (let i = bytes.length - FOOTER_AND_MAGIC; i >= 0; i--) {
    if (isClosing(bytes, i)) {
      return from + i + FOOTER_AND_MAGIC;
    }
  }
  return undefined;
}

/**
 * Where the MCAP ends (after its closing magic) when the records from `from` on (the data section's
 * end, then the summary) lead to a Footer record followed by the magic before the file ends:
 * found by walking their length fields, so bytes appended after the magic are found however many
 * there are. Undefined when the walk meets anything else first.
 */
async function closingMagicAfter(source: ByteSource, from: number): Promise<number | undefined> {
  let pos = from;
  for (;;) {
    const length = (await recordPrefix(source, pos))?.length;
    if (length == undefined) {
      return undefined;
    }
    if (isFooterPrefix(await source.read(pos, RECORD_PREFIX), 0)) {
      const end = pos + FOOTER_AND_MAGIC;
      return end < source.size && isClosing(await source.read(pos, FOOTER_AND_MAGIC), 0) ? end : undefined;
    }
    pos += length;
  }
}

/**
 * Where the summary starts that the footer before the closing magic ending at `end` names, or
 * undefined when the MCAP does not end with a footer and the magic (cut short: a read reports
 * that) or its footer names no summary (written without one).
 */
async function namedSummaryStart(source: ByteSource, end: number): Promise<number | undefined> {
  const footer = end - FOOTER_AND_MAGIC;
  if (footer < 8) {
    return undefined;
  }
  const tail = await source.read(footer, FOOTER_AND_MAGIC);
  if (!isClosing(tail, 0)) {
    return undefined;
  }
  const start = new DataView(tail.buffer, tail.byteOffset).getBigUint64(RECORD_PREFIX, true);
  return start === 0n ? undefined : start < BigInt(footer) ? Number(start) : footer;
}

/** Where a Footer record is when it is followed by exactly 8 bytes, the file's last (not the magic). */
async function footerBeforeEnd(source: ByteSource): Promise<number | undefined> {
  const at = source.size - FOOTER_AND_MAGIC;
  return at >= 8 && isFooterPrefix(await source.read(at, RECORD_PREFIX), 0) ? at : undefined;
}

/** Whether a Footer record followed by the closing magic starts at `bytes[i]`. */
function isClosing(bytes: Uint8Array, i: number): boolean {
  return isFooterPrefix(bytes, i) && i + FOOTER_AND_MAGIC <= bytes.length && startsWithMagic(bytes.subarray(i + FOOTER_AND_MAGIC - 8));
}

/** Whether a Footer record's prefix (opcode 0x02, length 20) starts at `bytes[i]`. */
function isFooterPrefix(bytes: Uint8Array, i: number): boolean {
  return bytes[i] === OP_FOOTER && i + RECORD_PREFIX <= bytes.length && prefixLength(bytes, i) === FOOTER_AND_MAGIC - 8;
}

/** Bytes as hexadecimal pairs ("58 58 …"). */
function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(" ");
}

/** The opcode at `pos` when it is a known one and a record prefix fits in the file. */
async function opcodeAt(source: ByteSource, pos: number): Promise<number | undefined> {
  if (pos + RECORD_PREFIX > source.size) {
    return undefined;
  }
  const op = (await source.read(pos, 1))[0]!;
  return isKnownOpcode(op) ? op : undefined;
}

/** Whether `op` is the opcode of a record this MCAP version defines (Header to Data End). */
function isKnownOpcode(op: number): boolean {
  return op >= OP_HEADER && op <= OP_DATA_END;
}

/** What the header of the chunk record `bytes` (read whole at `pos`) says, if it reads. */
function chunkFacts(bytes: Uint8Array, pos: number): ChunkFacts | undefined {
  try {
    const header = chunkRecordHeader(bytes);
    return { recordsEnd: pos + header.recordsOffset + header.recordsLength, range: header.range };
  } catch {
    return undefined;
  }
}

/**
 * The opcode and length (prefix included) of the record at `pos`, read from its prefix at once, if
 * its opcode is known and it fits in the file.
 */
async function recordPrefix(source: ByteSource, pos: number): Promise<{ op: number; length: number } | undefined> {
  if (pos + RECORD_PREFIX > source.size) {
    return undefined;
  }
  const prefix = await source.read(pos, RECORD_PREFIX);
  const op = prefix[0]!;
  const length = prefixLength(prefix, 0);
  return isKnownOpcode(op) && Number.isSafeInteger(length) && pos + length <= source.size ? { op, length } : undefined;
}

/** The length, prefix included, of the record whose prefix (opcode, u64 length) starts at `bytes[i]`. */
function prefixLength(bytes: Uint8Array, i: number): number {
  return RECORD_PREFIX + Number(new DataView(bytes.buffer, bytes.byteOffset + i + 1, 8).getBigUint64(0, true));
}

/** Whether `bytes` starts with the MCAP magic ("\x89MCAP"; the version byte after it is not checked). */
function startsWithMagic(bytes: Uint8Array): boolean {
  return bytes[0] === 0x89 && bytes[1] === 0x4d && bytes[2] === 0x43 && bytes[3] === 0x41 && bytes[4] === 0x50;
}

/** `center`, then the positions 1, 2, … `radius` away from it, the lower one first. */
function* nearestFirst(center: number, radius: number): Generator<number> {
  yield center;
  for (let d = 1; d <= radius; d++) {
    yield center - d;
    yield center + d;
  }
}
/** Per-channel counts (`undefined`: none known) as counts per topic of the read's channels, zeros left out. */
function topicCounts(counts: ReadonlyMap<number, number> | undefined, entries: ReadonlyMap<number, ChannelEntry>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, n] of counts ?? []) {
    const topic = entries.get(id)?.channel.topic;
    if (topic != undefined && n > 0) {
      out.set(topic, (out.get(topic) ?? 0) + n);
    }
  }
  return out;
}

/**
 * Adds damage at the chunk at `offset` when its message indexes (`counts`, per wanted channel)
 * count more messages than `contents` holds: what a chunk cut short or damaged inside lost without
 * a parse error. Messages left out for naming no defined channel are named on their own (and
 * may be what is missing), so only a shortfall beyond them is. Counted per channel only then.
 */
function checkCount(
  damage: DamageLog,
  offset: number,
  counts: ReadonlyMap<number, number>,
  contents: RecordContents,
  entries: ReadonlyMap<number, ChannelEntry>,
): void {
  let indexed = 0;
  for (const n of counts.values()) {
    indexed += n;
  }
  let undefinedCount = 0;
  for (const u of contents.undefinedChannels.values()) {
    undefinedCount += u.count;
  }
  if (indexed <= contents.messages.length + undefinedCount) {
    return;
  }
  const missing = new Map(counts);
  for (const m of contents.messages) {
    const n = missing.get(m.channelId);
    if (n != undefined) {
      missing.set(m.channelId, n - 1);
    }
  }
  const lost = topicCounts(missing, entries);
  const total = [...lost.values()].reduce((a, b) => a + b, 0);
  if (total > 0) {
    damage.add(offset, fewerMessagesReason(total), lost);
  }
}

/**
 * The whole-file check for chunks written without message indexes (nothing counts their messages
 * one by one): adds damage at the first of them (`at`) when the Statistics record counts more
 * messages on a wanted channel than the read accounted for (`counted`: the message indexes'
 * counts of the other chunks plus what these held).
 */
function checkStatistics(
  damage: DamageLog,
  at: number,
  statistics: McapTypes.Statistics,
  counted: ReadonlyMap<number, number>,
  entries: ReadonlyMap<number, ChannelEntry>,
): void {
  const missing = new Map<number, number>();
  for (const [id, n] of statistics.channelMessageCounts) {
    if (entries.has(id)) {
      missing.set(id, Number(n) - (counted.get(id) ?? 0));
    }
  }
  const lost = topicCounts(missing, entries);
  const total = [...lost.values()].reduce((a, b) => a + b, 0);
  if (total > 0) {
    damage.add(at, statisticsShortfallReason(total), lost);
  }
}

function toMessage(m: McapMessage, entry: ChannelEntry, decode: "raw" | "decode", offset: number): RecordedMessage {
  return toRecordedMessage(entry, m.data, m.time, decode, offset, m, describeMessage, m.publishTime);
}

function describeMessage(m: McapMessage): string {
  return `(log time ${BigInt(m.time.sec) * NS + BigInt(m.time.nsec)})`;
}

function indexedInfo(reader: McapIndexedReader, size: number): RecordingInfo {
  const channels: RecordingChannel[] = [];
  const seen = new Set<string>();
  for (const channel of reader.channelsById.values()) {
    if (!seen.has(channel.topic)) {
      seen.add(channel.topic);
      channels.push(channelOf(channel, reader.schemasById.get(channel.schemaId)));
    }
  }
  let counts: Map<string, number> | undefined;
  const stats = reader.statistics;
  if (stats) {
    counts = new Map(channels.map((c) => [c.topic, 0]));
    for (const [id, n] of stats.channelMessageCounts) {
      const topic = reader.channelsById.get(id)?.topic;
      if (topic != undefined) {
        counts.set(topic, (counts.get(topic) ?? 0) + Number(n));
      }
    }
  }
  return {
    format: "mcap",
    profile: profileOf(reader.header.profile, channels),
    publishTimes: true,
    channels,
    messageCounts: counts,
    startTime: stats ? timeOf(stats.messageStartTime) : undefined,
    endTime: stats ? timeOf(stats.messageEndTime) : undefined,
    indexed: true,
    indexProblem: undefined,
    sizeInBytes: size,
  };
}
