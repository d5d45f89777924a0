import { McapIndexedReader, McapRecordBuilder, McapStreamReader, type McapTypes } from "@mcap/core";

import type { ByteSource } from "./ByteSource";
import { mergeChunks, ScanMerge } from "./ChunkMerge";
import { DamageLog } from "./DamageLog";
import { RecordingError, errorText, reasonOf } from "./RecordingError";
import { toMcapHandlers, type Decompressors } from "./decompress";
import { reportProgress, toRecordedMessage, unindexedInfo, type ChannelEntry } from "./recordedMessage";
import type {
  ReadOptions,
  RecordTime,
  RecordedMessage,
  Recording,
  RecordingChannel,
  RecordingInfo,
} from "./types";

/** Bytes examined at a time when looking for the next record after damage. */
const RESYNC_BLOCK = 1 << 20;
const NS = 1_000_000_000n;
/** Opcode, then a little-endian uint64 length. */
const RECORD_PREFIX = 9;
/** MCAP opcodes (the specification's numbers). */
const OP_HEADER = 0x01;
const OP_FOOTER = 0x02;
const OP_SCHEMA = 0x03;
const OP_CHUNK = 0x06;
const OP_DATA_END = 0x0f;

function timeOf(ns: bigint): RecordTime {
  return { sec: Number(ns / NS), nsec: Number(ns % NS) };
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
 * The schemas and channels known so far, and their records as bytes: a chunk read on its own is
 * parsed after them, because a chunk's messages may use channels whose records are in another
 * chunk (writers record each channel once).
 */
class KnownChannels {
  readonly schemas = new Map<number, McapTypes.Schema>();
  readonly channels = new Map<number, McapTypes.Channel>();
  #prefix: Uint8Array | undefined;

  public addSchema(schema: McapTypes.Schema): void {
    if (!this.schemas.has(schema.id)) {
      this.schemas.set(schema.id, schema);
      this.#prefix = undefined;
    }
  }

  public addChannel(channel: McapTypes.Channel): void {
    if (!this.channels.has(channel.id)) {
      this.channels.set(channel.id, channel);
      this.#prefix = undefined;
    }
  }

  public get prefix(): Uint8Array {
    if (!this.#prefix) {
      const builder = new McapRecordBuilder();
      for (const s of this.schemas.values()) {
        builder.writeSchema(s);
      }
      for (const c of this.channels.values()) {
        builder.writeChannel(c);
      }
      this.#prefix = builder.buffer.slice();
    }
    return this.#prefix;
  }
}

/**
 * Parses the complete top-level record(s) in `bytes` (a chunk yields the records it holds),
 * leaving out records of unknown opcodes. Throws when they are corrupt (CRC, decompression, size
 * limit, opcode 0) or cut off.
 */
function parseRecords(known: KnownChannels, bytes: Uint8Array, handlers: McapTypes.DecompressHandlers): McapTypes.TypedMcapRecord[] {
  const stream = new McapStreamReader({ noMagicPrefix: true, validateCrcs: true, decompressHandlers: handlers });
  stream.append(known.prefix);
  stream.append(bytes);
  const out: McapTypes.TypedMcapRecord[] = [];
  for (let r = stream.nextRecord(); r; r = stream.nextRecord()) {
    if (r.type !== "Unknown") {
      out.push(r);
    } else if (r.opcode === 0) {
      // Opcode 0 is no record: zeros (a zero-filled region, or a bomb of them, nine bytes per
      // "record", which would otherwise be kept by the million).
      throw new Error("it holds a record with opcode 0x00, which is not a record (zero bytes where records should be)");
    }
    // Records of other unknown opcodes (custom or newer records) are skipped, not kept.
  }
  if (stream.bytesRemaining() > 0) {
    throw new Error(`the record is cut off (${stream.bytesRemaining()} bytes do not form a complete record)`);
  }
  return out;
}

/** A message of a chunk, with its receive time for the merge. */
interface TimedMessage {
  readonly time: RecordTime;
  readonly message: McapTypes.Message;
}

/**
 * An MCAP file (chunks uncompressed, lz4 or zstd; ros1, cdr and json message encodings). Files
 * with a summary section are read chunk by chunk from the chunk indexes and merged by log time,
 * ties in file order (`mergeChunks`); files without one (interrupted or truncated, or written
 * without chunk index) are read record by record in file order and delivered in the same order
 * as far as chunks start in time order (`ScanMerge`). A damaged chunk or record never ends the read: it is skipped (with what the message
 * indexes say it held, when they are readable) and reading goes on with the next chunk of the
 * index or, without one, the next position where a well-formed record starts.
 */
export class McapRecording implements Recording {
  public readonly info: RecordingInfo;
  readonly #source: ByteSource;
  readonly #reader: McapIndexedReader | undefined;
  readonly #handlers: McapTypes.DecompressHandlers;

  private constructor(source: ByteSource, decompressors: Decompressors, info: RecordingInfo, reader: McapIndexedReader | undefined) {
    this.#source = source;
    this.#handlers = toMcapHandlers(decompressors);
    this.info = info;
    this.#reader = reader;
  }

  /**
   * Opens an MCAP file. Throws RecordingError when the magic is wrong; an unusable summary is not
   * an error here (see `info.indexed`).
   */
  public static async open(source: ByteSource, decompressors: Decompressors): Promise<McapRecording> {
    const readable = {
      size: async () => BigInt(source.size),
      read: async (offset: bigint, length: bigint) => await source.read(Number(offset), Number(length)),
    };
    let reader: McapIndexedReader | undefined;
    let problem: string | undefined;
    try {
      reader = await McapIndexedReader.Initialize({ readable, decompressHandlers: toMcapHandlers(decompressors) });
      if (reader.chunkIndexes.length === 0 && (reader.statistics?.messageCount ?? 1n) > 0n) {
        problem = "the file has no chunk index (written without chunks or without a chunk index)";
        reader = undefined;
      } else {
        for (const c of reader.chunkIndexes) {
          if (c.chunkStartOffset < 8n || c.chunkStartOffset + c.chunkLength > BigInt(source.size)) {
            problem = `a chunk index points to bytes ${c.chunkStartOffset}–${c.chunkStartOffset + c.chunkLength}, outside the file`;
            reader = undefined;
            break;
          }
        }
      }
    } catch (err) {
      problem = `the summary section is unusable: ${errorText(err)}`;
    }
    if (reader) {
      return new McapRecording(source, decompressors, indexedInfo(reader, source.size), reader);
    }
    const magic = source.size >= 8 ? await source.read(0, 8) : new Uint8Array();
    if (!(magic[0] === 0x89 && magic[1] === 0x4d && magic[2] === 0x43 && magic[3] === 0x41 && magic[4] === 0x50)) {
      throw new RecordingError(0, "not an MCAP file (the magic bytes \\x89MCAP are missing)");
    }
    const info = unindexedInfo("mcap", undefined, problem, source.size);
    return new McapRecording(source, decompressors, info, undefined);
  }

  public messages(options: ReadOptions = {}): AsyncIterableIterator<RecordedMessage> {
    return this.#reader ? this.#indexed(this.#reader, options) : this.#scan(options);
  }

  async *#indexed(reader: McapIndexedReader, options: ReadOptions): AsyncIterableIterator<RecordedMessage> {
    const decode = options.decode === false ? "raw" : "decode";
    const topics = options.topics ? new Set(options.topics) : undefined;
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
    let bytesRead = 0;
    const load = async (chunk: (typeof chunks)[number]): Promise<TimedMessage[]> => {
      const { index, offset } = chunk;
      const out: TimedMessage[] = [];
      try {
        const bytes = await this.#source.read(offset, Number(index.chunkLength));
        for (const r of parseRecords(known, bytes, this.#handlers)) {
          if (r.type === "Message") {
            if (entries.has(r.channelId)) {
              out.push({ time: timeOf(r.logTime), message: r });
            }
          } else if (r.type === "Channel" && !known.channels.has(r.id)) {
            known.addChannel(r);
            if (!topics || topics.has(r.topic)) {
              entries.set(r.id, { channel: channelOf(r, known.schemas.get(r.schemaId)) });
            }
          } else if (r.type === "Schema") {
            known.addSchema(r);
          }
        }
      } catch (err) {
        out.length = 0;
        damage.add(offset, `the chunk is unreadable: ${reasonOf(err)}`, await this.#lostIn(index, entries));
      }
      bytesRead = Math.max(bytesRead, offset + Number(index.chunkLength) + Number(index.messageIndexLength));
      reportProgress(options, Math.min(bytesRead, total), total);
      return out;
    };
    for await (const { item, chunk } of mergeChunks(chunks, load)) {
      yield toMessage(item.message, entries.get(item.message.channelId)!, decode, chunk.offset);
    }
    reportProgress(options, total, total);
    damage.finish();
  }

  /** What a chunk's message indexes say it holds, per wanted topic (empty when they are unreadable). */
  async #lostIn(index: McapTypes.ChunkIndex, entries: ReadonlyMap<number, ChannelEntry>): Promise<Map<string, number>> {
    const lost = new Map<string, number>();
    try {
      const offsets = [...index.messageIndexOffsets.values()];
      if (offsets.length === 0) {
        return lost;
      }
      const start = offsets.reduce((a, b) => (a < b ? a : b));
      const bytes = await this.#source.read(Number(start), Number(index.messageIndexLength));
      for (const r of parseRecords(new KnownChannels(), bytes, this.#handlers)) {
        const topic = r.type === "MessageIndex" ? entries.get(r.channelId)?.channel.topic : undefined;
        if (r.type === "MessageIndex" && topic != undefined) {
          lost.set(topic, (lost.get(topic) ?? 0) + r.records.length);
        }
      }
    } catch {
      lost.clear();
    }
    return lost;
  }

  async *#scan(options: ReadOptions): AsyncIterableIterator<RecordedMessage> {
    const source = this.#source;
    const total = source.size;
    const topics = options.topics ? new Set(options.topics) : undefined;
    const decode = options.decode === false ? "raw" : "decode";
    const known = new KnownChannels();
    const entries = new Map<number, ChannelEntry>();
    const damage = new DamageLog(options.onDamage);
    const merge = new ScanMerge<TimedMessage>();
    let pos = 8;
    while (pos < total) {
      const length = await recordLength(source, pos);
      if (length == undefined) {
        const resume = await this.#findNextRecord(known, pos + 1);
        const opcodeThere = (await opcodeAt(source, pos)) != undefined;
        const reason =
          resume == undefined && (pos + RECORD_PREFIX > total || opcodeThere)
            ? `the file is truncated: the record starting here is incomplete (the file ends at byte ${total})`
            : `the record header here is corrupt (${opcodeThere ? "its length runs past the end of the file" : "unknown opcode"}); reading resumed at the next record, byte ${String(resume)}`;
        damage.add(pos, reason);
        if (resume == undefined) {
          break;
        }
        pos = resume;
        continue;
      }
      const op = (await source.read(pos, 1))[0]!;
      if (op === OP_FOOTER || op === OP_DATA_END) {
        // The data section is over; the (unusable) summary follows. A file that does not end
        // with the closing magic was cut short after its data.
        const tail = total >= 16 ? await source.read(total - 8, 8) : new Uint8Array();
        if (!(tail[0] === 0x89 && tail[1] === 0x4d && tail[2] === 0x43 && tail[3] === 0x41 && tail[4] === 0x50)) {
          damage.add(total, `the file is truncated after its data section (at byte ${pos}): every message was read, its summary is lost`);
        }
        break;
      }
      let records: McapTypes.TypedMcapRecord[];
      try {
        records = parseRecords(known, await source.read(pos, length), this.#handlers);
      } catch (err) {
        const resume = await this.#findNextRecord(known, pos + 1);
        const reason = `the ${op === OP_CHUNK ? "chunk" : "record"} here is unreadable: ${reasonOf(err)}`;
        damage.add(pos, resume == undefined ? reason : `${reason}; reading resumed at the next record, byte ${resume}`);
        if (resume == undefined) {
          break;
        }
        pos = resume;
        continue;
      }
      const messages: TimedMessage[] = [];
      for (const r of records) {
        if (r.type === "Schema") {
          known.addSchema(r);
        } else if (r.type === "Channel") {
          if (!known.channels.has(r.id)) {
            known.addChannel(r);
            entries.set(r.id, { channel: channelOf(r, known.schemas.get(r.schemaId)) });
          }
        } else if (r.type === "Message") {
          const entry = entries.get(r.channelId);
          if (entry && (!topics || topics.has(entry.channel.topic))) {
            messages.push({ time: timeOf(r.logTime), message: r });
          }
        }
      }
      for (const { item, offset } of merge.add(messages, pos)) {
        yield toMessage(item.message, entries.get(item.message.channelId)!, decode, offset);
      }
      pos += length;
      reportProgress(options, pos, total);
    }
    for (const { item, offset } of merge.finish()) {
      yield toMessage(item.message, entries.get(item.message.channelId)!, decode, offset);
    }
    damage.finish();
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
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (let i = 0; i < Math.min(RESYNC_BLOCK, bytes.length); i++) {
        const op = bytes[i]!;
        if (op < OP_SCHEMA || op > OP_DATA_END || i + RECORD_PREFIX > bytes.length) {
          continue;
        }
        const pos = start + i;
        const length = RECORD_PREFIX + Number(view.getBigUint64(i + 1, true));
        if (!Number.isSafeInteger(length) || pos + length > size) {
          continue;
        }
        if (op === OP_FOOTER || op === OP_DATA_END) {
          return pos;
        }
        try {
          parseRecords(known, await source.read(pos, length), this.#handlers);
          return pos;
        } catch {
          // not a record start
        }
      }
    }
    return undefined;
  }
}

/** The opcode at `pos` when it is a known one and a record prefix fits in the file. */
async function opcodeAt(source: ByteSource, pos: number): Promise<number | undefined> {
  if (pos + RECORD_PREFIX > source.size) {
    return undefined;
  }
  const op = (await source.read(pos, 1))[0]!;
  return op >= OP_HEADER && op <= OP_DATA_END ? op : undefined;
}

/** The length (prefix included) of the record at `pos` if its opcode is known and it fits in the file. */
async function recordLength(source: ByteSource, pos: number): Promise<number | undefined> {
  if ((await opcodeAt(source, pos)) == undefined) {
    return undefined;
  }
  const head = await source.read(pos, RECORD_PREFIX);
  const length = RECORD_PREFIX + Number(new DataView(head.buffer, head.byteOffset, RECORD_PREFIX).getBigUint64(1, true));
  return Number.isSafeInteger(length) && pos + length <= source.size ? length : undefined;
}
function toMessage(m: McapTypes.Message, entry: ChannelEntry, decode: "raw" | "decode", offset: number): RecordedMessage {
  return toRecordedMessage(entry, m.data, timeOf(m.logTime), decode, offset, m, describeMessage, timeOf(m.publishTime));
}

function describeMessage(m: McapTypes.Message): string {
  return `(log time ${m.logTime})`;
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
    channels,
    messageCounts: counts,
    startTime: stats ? timeOf(stats.messageStartTime) : undefined,
    endTime: stats ? timeOf(stats.messageEndTime) : undefined,
    indexed: true,
    indexProblem: undefined,
    sizeInBytes: size,
  };
}
