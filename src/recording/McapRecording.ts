import { McapIndexedReader, McapStreamReader, type McapTypes } from "@mcap/core";

import type { ByteSource } from "./ByteSource";
import { RecordingError, errorText } from "./RecordingError";
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

/** Bytes fed to the stream reader at a time in recovery mode. */
const SCAN_BLOCK = 1 << 20;
const NS = 1_000_000_000n;

/** Where the indexed reader last read (to name the region in errors) and how far it got. */
interface ReadTracker {
  last: number;
  furthest: number;
}

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
 * An MCAP file (chunks uncompressed, lz4 or zstd; ros1, cdr and json message encodings). Files
 * with a summary section are read through @mcap/core's indexed reader, merged by log time across
 * chunks; files without one (interrupted or truncated, or written without chunk index) are read
 * sequentially with the stream reader, in file order, and a truncated or corrupt tail is reported
 * after everything before it was delivered.
 */
export class McapRecording implements Recording {
  public readonly info: RecordingInfo;
  readonly #source: ByteSource;
  readonly #reader: McapIndexedReader | undefined;
  readonly #decompressors: Decompressors;
  readonly #reads: ReadTracker;

  private constructor(
    source: ByteSource,
    decompressors: Decompressors,
    info: RecordingInfo,
    reader: McapIndexedReader | undefined,
    reads: ReadTracker,
  ) {
    this.#source = source;
    this.#decompressors = decompressors;
    this.info = info;
    this.#reader = reader;
    this.#reads = reads;
  }

  /**
   * Opens an MCAP file. Throws RecordingError when the magic is wrong; an unusable summary is not
   * an error here (see `info.indexed`).
   */
  public static async open(source: ByteSource, decompressors: Decompressors): Promise<McapRecording> {
    const reads: ReadTracker = { last: 0, furthest: 0 };
    const readable = {
      size: async () => BigInt(source.size),
      read: async (offset: bigint, length: bigint) => {
        const o = Number(offset);
        const l = Number(length);
        reads.last = o;
        reads.furthest = Math.max(reads.furthest, o + l);
        return await source.read(o, l);
      },
    };
    let reader: McapIndexedReader | undefined;
    let problem: string | undefined;
    try {
      reader = await McapIndexedReader.Initialize({
        readable,
        decompressHandlers: toMcapHandlers(decompressors),
      });
      if (reader.chunkIndexes.length === 0 && (reader.statistics?.messageCount ?? 1n) > 0n) {
        problem = "the file has no chunk index (written without chunks or without a chunk index)";
        reader = undefined;
      }
    } catch (err) {
      problem = `the summary section is unusable: ${errorText(err)}`;
    }
    if (reader) {
      return new McapRecording(source, decompressors, indexedInfo(reader, source.size), reader, reads);
    }
    const magic = source.size >= 8 ? await source.read(0, 8) : new Uint8Array();
    if (!(magic[0] === 0x89 && magic[1] === 0x4d && magic[2] === 0x43 && magic[3] === 0x41 && magic[4] === 0x50)) {
      throw new RecordingError(0, "not an MCAP file (the magic bytes \\x89MCAP are missing)");
    }
    const info = unindexedInfo("mcap", undefined, problem, source.size);
    return new McapRecording(source, decompressors, info, undefined, reads);
  }

  public messages(options: ReadOptions = {}): AsyncIterableIterator<RecordedMessage> {
    return this.#reader ? this.#indexed(this.#reader, options) : this.#stream(options);
  }

  async *#indexed(reader: McapIndexedReader, options: ReadOptions): AsyncIterableIterator<RecordedMessage> {
    const decode = options.decode === false ? "raw" : "decode";
    const entries = new Map<number, ChannelEntry>();
    for (const channel of reader.channelsById.values()) {
      entries.set(channel.id, { channel: channelOf(channel, reader.schemasById.get(channel.schemaId)) });
    }
    const total = this.#source.size;
    let reported = -1;
    const iterator = reader.readMessages({ topics: options.topics, validateCrcs: true });
    for (;;) {
      let result: IteratorResult<McapTypes.Message>;
      try {
        result = await iterator.next();
      } catch (err) {
        throw new RecordingError(this.#reads.last, `the chunk or index read here is unusable: ${errorText(err)}`, { cause: err });
      }
      if (this.#reads.furthest !== reported && options.onProgress) {
        reported = this.#reads.furthest;
        options.onProgress({ bytesRead: reported, totalBytes: total, fraction: total > 0 ? Math.min(1, reported / total) : 1 });
      }
      if (result.done === true) {
        break;
      }
      const m = result.value;
      const entry = entries.get(m.channelId);
      if (!entry) {
        throw new RecordingError(this.#reads.last, `message on unknown channel id ${m.channelId}`);
      }
      yield toMessage(m, entry, decode, this.#reads.last);
    }
    reportProgress(options, total, total);
  }

  async *#stream(options: ReadOptions): AsyncIterableIterator<RecordedMessage> {
    const source = this.#source;
    const total = source.size;
    const topics = options.topics ? new Set(options.topics) : undefined;
    const decode = options.decode === false ? "raw" : "decode";
    const schemas = new Map<number, McapTypes.Schema>();
    const entries = new Map<number, ChannelEntry>();
    const stream = new McapStreamReader({ decompressHandlers: toMcapHandlers(this.#decompressors), validateCrcs: true });
    let fed = 0;
    for (;;) {
      let record: McapTypes.TypedMcapRecord | undefined;
      try {
        record = stream.nextRecord();
      } catch (err) {
        throw new RecordingError(fed - stream.bytesRemaining(), `corrupt record: ${errorText(err)}`, { cause: err });
      }
      if (record) {
        if (record.type === "Schema") {
          schemas.set(record.id, record);
        } else if (record.type === "Channel") {
          if (!entries.has(record.id)) {
            entries.set(record.id, { channel: channelOf(record, schemas.get(record.schemaId)) });
          }
        } else if (record.type === "Message") {
          const entry = entries.get(record.channelId);
          if (!entry) {
            throw new RecordingError(fed - stream.bytesRemaining(), `message on channel id ${record.channelId} before its channel record`);
          }
          if (!topics || topics.has(entry.channel.topic)) {
            yield toMessage(record, entry, decode, fed - stream.bytesRemaining());
          }
        }
        continue;
      }
      if (stream.done()) {
        break;
      }
      if (fed >= total) {
        throw new RecordingError(
          fed - stream.bytesRemaining(),
          `the file is truncated: the record starting here is incomplete (the file ends at byte ${total}); everything before it was delivered`,
        );
      }
      const length = Math.min(SCAN_BLOCK, total - fed);
      stream.append(await source.read(fed, length));
      fed += length;
      reportProgress(options, fed, total);
    }
  }
}

function toMessage(m: McapTypes.Message, entry: ChannelEntry, decode: "raw" | "decode", offset: number): RecordedMessage {
  return toRecordedMessage(entry, m.data, timeOf(m.logTime), decode, offset, m, describeMessage);
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
