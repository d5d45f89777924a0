/**
 * The synthetic robot's recording (bench/syntheticRobot.ts) as a ROS 1 bag (format 2.0), laid out
 * as `rosbag record` writes one with its defaults, for the `recording-bag-1gb` benchmark:
 * - the bag header record padded as rosbag pads it, rewritten at the end with `index_pos`,
 *   `conn_count` and `chunk_count`;
 * - chunks stored uncompressed (compression "none", rosbag record's default; the `recording-1gb`
 *   benchmark already covers compressed chunks), each closed after the message that takes its
 *   data past rosbag's chunk threshold (`ROSBAG_CHUNK_THRESHOLD`, 768 KiB);
 * - each connection's record written once, into the chunk where the connection's first message
 *   is, connection ids numbered in order of first message;
 * - after each chunk, an index data record (version 1) per connection in it, by connection id;
 * - at the end, every connection record, then a chunk info record (version 1) per chunk.
 * Messages are serialized as ROS 1 messages; md5sums are "*", which readers take as "any".
 *
 * The file is streamed to disk: the writer holds one chunk's data (at most the threshold plus one
 * message) and the index records (a few hundred bytes per chunk), never the file.
 */

import { parse as parseMessageDefinition } from "@foxglove/rosmsg";
import { MessageWriter } from "@foxglove/rosmsg-serialization";
import { open, type FileHandle } from "node:fs/promises";

import {
  spliceCloudData,
  syntheticDefinition,
  syntheticMessages,
  syntheticTopics,
  type SyntheticRobotOptions,
  type SyntheticType,
  type SyntheticWriteSummary,
} from "./syntheticRobot";
import {
  BAG_MAGIC,
  ByteParts,
  bagHeaderRecord,
  chunkFields,
  chunkInfoRecord,
  connectionRecord,
  indexDataRecord,
  messageFields,
  recordHead,
  type BagConnection,
  type BagIndexEntry,
  type BagTime,
} from "../src/recording/testing/bagRecordEncoding";

/** rosbag's default chunk threshold (`rosbag record --chunksize`, 768 KB): uncompressed chunk data bytes. */
export const ROSBAG_CHUNK_THRESHOLD = 768 * 1024;

/** Parameters of a synthetic bag (each second holds about 10.7 MB). */
export type SyntheticBagOptions = SyntheticRobotOptions;

/** What was written, and how many chunks. */
export interface SyntheticBagSummary extends SyntheticWriteSummary {
  readonly chunks: number;
}

/** Writes the bag to `path` (overwriting it), streaming it chunk by chunk. */
export async function writeSyntheticBag(path: string, options: SyntheticBagOptions): Promise<SyntheticBagSummary> {
  const topics = syntheticTopics(options);
  const writers = new Map<SyntheticType, MessageWriter>();
  for (const { type } of topics) {
    if (!writers.has(type)) {
      writers.set(type, new MessageWriter(parseMessageDefinition(syntheticDefinition(type, "ros1"))));
    }
  }
  const file = await AppendedFile.create(path);
  try {
    // A placeholder of the same length: the counts and the index position are known at the end.
    await file.append([BAG_MAGIC, bagHeaderRecord({ indexPos: 0, connCount: 0, chunkCount: 0 })]);
    const connections: BagConnection[] = [];
    const connOfTopic = new Map<number, number>();
    const chunkInfos: Uint8Array[] = [];
    const counts: Record<string, number> = {};
    let messages = 0;
    let chunk = new OpenChunk();
    for (const m of syntheticMessages(options)) {
      let data = writers.get(m.topic.type)!.writeMessage(m.message);
      if (m.cloud != undefined) {
        data = spliceCloudData(data, m.cloud);
      }
      let conn = connOfTopic.get(m.topicIndex);
      if (conn == undefined) {
        conn = connections.length;
        connOfTopic.set(m.topicIndex, conn);
        const c: BagConnection = { topic: m.topic.topic, type: m.topic.type, definition: syntheticDefinition(m.topic.type, "ros1") };
        connections.push(c);
        chunk.data.add(connectionRecord(conn, c));
      }
      chunk.add(conn, m.logNs, data);
      counts[m.topic.topic] = (counts[m.topic.topic] ?? 0) + 1;
      messages++;
      // rosbag checks after each message: a chunk ends with the message that passed the threshold.
      if (chunk.data.length > ROSBAG_CHUNK_THRESHOLD) {
        chunkInfos.push(await chunk.writeTo(file));
        chunk = new OpenChunk();
      }
    }
    if (chunk.data.length > 0) {
      chunkInfos.push(await chunk.writeTo(file));
    }
    const indexPos = file.position;
    await file.append([...connections.map((c, id) => connectionRecord(id, c)), ...chunkInfos]);
    await file.writeAt(BAG_MAGIC.byteLength, bagHeaderRecord({ indexPos, connCount: connections.length, chunkCount: chunkInfos.length }));
    return { path, bytes: file.position, messages, counts, chunks: chunkInfos.length };
  } finally {
    await file.close();
  }
}

/** The chunk being filled: its data's parts and, per connection, where its messages lie. */
class OpenChunk {
  public readonly data = new ByteParts();
  readonly #index = new Map<number, BagIndexEntry[]>();
  #startNs: bigint | undefined;
  #endNs = 0n;

  /** Appends the message record of `conn` received at `receiveNs` holding `data` (kept, not copied). */
  public add(conn: number, receiveNs: bigint, data: Uint8Array): void {
    const time = bagTime(receiveNs);
    let entries = this.#index.get(conn);
    if (entries == undefined) {
      entries = [];
      this.#index.set(conn, entries);
    }
    entries.push({ ...time, offset: this.data.length });
    this.data.add(recordHead(messageFields(conn, time), data.byteLength));
    this.data.add(data);
    if (this.#startNs == undefined || receiveNs < this.#startNs) {
      this.#startNs = receiveNs;
    }
    if (receiveNs > this.#endNs) {
      this.#endNs = receiveNs;
    }
  }

  /** Writes the chunk record and its index data records to `file`; returns its chunk info record. */
  public async writeTo(file: AppendedFile): Promise<Uint8Array> {
    const chunkPos = file.position;
    // rosbag keeps a chunk's connections in a map by id, so their records come out in id order.
    const byConn = [...this.#index].sort(([a], [b]) => a - b);
    await file.append([
      recordHead(chunkFields("none", this.data.length), this.data.length),
      ...this.data.parts,
      ...byConn.map(([conn, entries]) => indexDataRecord(conn, entries)),
    ]);
    return chunkInfoRecord({
      chunkPos,
      startTime: bagTime(this.#startNs ?? 0n),
      endTime: bagTime(this.#endNs),
      counts: byConn.map(([conn, entries]) => [conn, entries.length] as const),
    });
  }
}

function bagTime(ns: bigint): BagTime {
  return { sec: Number(ns / 1_000_000_000n), nsec: Number(ns % 1_000_000_000n) };
}

/** A file written in order with gathered writes, whose bytes can be rewritten in place. */
class AppendedFile {
  readonly #handle: FileHandle;
  /** Bytes appended so far: where the next append starts. */
  public position = 0;

  private constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  /** Creates (or truncates) `path`. */
  public static async create(path: string): Promise<AppendedFile> {
    return new AppendedFile(await open(path, "w"));
  }

  /** Appends `parts`, in order. */
  public async append(parts: readonly Uint8Array[]): Promise<void> {
    this.position = await this.#writeAll(parts, this.position);
  }

  /** Writes `bytes` over the file from `at`. */
  public async writeAt(at: number, bytes: Uint8Array): Promise<void> {
    await this.#writeAll([bytes], at);
  }

  public async close(): Promise<void> {
    await this.#handle.close();
  }

  /** Writes `parts` from `at`, however many calls it takes; returns where they end. */
  async #writeAll(parts: readonly Uint8Array[], at: number): Promise<number> {
    let pending = parts.filter((p) => p.byteLength > 0);
    let pos = at;
    while (pending.length > 0) {
      const { bytesWritten } = await this.#handle.writev(pending, pos);
      if (bytesWritten === 0) {
        throw new Error(`writing at byte ${pos}: the file system took no byte`);
      }
      pos += bytesWritten;
      // A short write (a signal, a full disk about to fail the next call): resume after it.
      let skip = bytesWritten;
      while (pending.length > 0 && skip >= pending[0]!.byteLength) {
        skip -= pending[0]!.byteLength;
        pending = pending.slice(1);
      }
      if (skip > 0) {
        pending = [pending[0]!.subarray(skip), ...pending.slice(1)];
      }
    }
    return pos;
  }
}
