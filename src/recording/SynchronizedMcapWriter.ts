import zstd from "@foxglove/wasm-zstd";
import { McapWriter, type IWritable } from "@mcap/core";

import type { RecordTime, RecordingChannel } from "./types";

/** One message of a synchronized set, as the writer needs it. */
export interface TupleMessage {
  readonly channel: RecordingChannel;
  readonly receiveTime: RecordTime;
  readonly data: Uint8Array;
}

/** Options of a SynchronizedMcapWriter. */
export interface SynchronizedMcapWriterOptions {
  /** Topic prefix, e.g. "/lockstep" → "/lockstep/imu/data". Default "/lockstep". */
  readonly namespace?: string;
  /** MCAP header profile ("ros1", "ros2" or ""). Default "". */
  readonly profile?: string;
  /** Chunk size threshold in bytes. Default 1 MiB. */
  readonly chunkSize?: number;
  /**
   * Chunk compression: "zstd" (default; Foxglove, Lichtblick and the mcap tools read it, and the
   * JSON result channels shrink about tenfold) or "none".
   */
  readonly compression?: "zstd" | "none";
}

/** zstd level for chunks: the library's default balance of speed and size. */
const ZSTD_LEVEL = 3;

const NS = 1_000_000_000n;

function toNs(t: RecordTime): bigint {
  return BigInt(t.sec) * NS + BigInt(t.nsec);
}

/** The published topic of `topic` under `namespace` ("/lockstep" + "imu" → "/lockstep/imu"). */
export function namespacedTopic(namespace: string, topic: string): string {
  const ns = namespace.endsWith("/") ? namespace.slice(0, -1) : namespace;
  return `${ns}${topic.startsWith("/") ? topic : `/${topic}`}`;
}

/**
 * Writes synchronized sets to an MCAP file that Foxglove opens: each message of a set goes to its
 * topic under the namespace, with its original schema (name, encoding, definition) and message
 * encoding (ros1 data stays `ros1` / `ros1msg`), unchanged bytes. Every message of set i has
 * `sequence = i` and `logTime` = the receive time of the newest message of the set (when the set
 * was complete, so sets appear together on the timeline); `publishTime` keeps its own receive time.
 * Channel metadata `lockstep.sourceTopic` names the original topic. Chunks are zstd-compressed by
 * default. Calls must be awaited in order.
 *
 * ```ts
 * const w = new SynchronizedMcapWriter(writable, { namespace: "/lockstep", profile: "ros1" });
 * await w.start(); await w.addTuple(0, messages); await w.end();
 * ```
 */
export class SynchronizedMcapWriter {
  readonly #writer: McapWriter;
  readonly #namespace: string;
  readonly #profile: string;
  readonly #schemas = new Map<string, number>();
  readonly #channels = new Map<RecordingChannel, number>();
  readonly #jsonChannels = new Map<string, { id: number; sequence: number }>();
  #jsonDeclared = false;
  #started = false;
  #tuples = 0;
  readonly #compressed: boolean;

  public constructor(writable: IWritable, options: SynchronizedMcapWriterOptions = {}) {
    this.#compressed = (options.compression ?? "zstd") === "zstd";
    this.#writer = new McapWriter({
      writable,
      chunkSize: options.chunkSize ?? 1 << 20,
      // Called only after `start` awaited the WebAssembly module.
      compressChunk: this.#compressed ? (data) => ({ compression: "zstd", compressedData: new Uint8Array(zstd.compress(data, ZSTD_LEVEL)) }) : undefined,
    });
    this.#namespace = options.namespace ?? "/lockstep";
    this.#profile = options.profile ?? "";
  }

  /** Sets written so far. */
  public get tuples(): number {
    return this.#tuples;
  }

  /**
   * Declares that JSON channels (`addJson`) will be written beside the republished ones: the file
   * then gets no header profile, because MCAP's ros1 and ros2 profiles require every channel to
   * use the profile's encoding (readers still tell the ROS version from the channels). Call before
   * `start`. Returns this.
   */
  public useJsonChannels(): this {
    if (this.#started) {
      throw new Error("SynchronizedMcapWriter.useJsonChannels must be called before start");
    }
    this.#jsonDeclared = true;
    return this;
  }

  /** Writes the header. */
  public async start(): Promise<void> {
    this.#started = true;
    if (this.#compressed) {
      await zstd.isLoaded;
    }
    await this.#writer.start({ profile: this.#jsonDeclared ? "" : this.#profile, library: "lockstep" });
  }

  /**
   * Writes one JSON-encoded message on `topic` (taken as is, no namespace added), whose channel
   * has the JSON schema `schema` (registered on first use; a topic keeps its first schema).
   * `logTime` and `publishTime` are `logTime` (ns); `sequence` counts per topic from 0. Needs
   * `useJsonChannels` before `start`.
   */
  public async addJson(topic: string, schema: { readonly name: string; readonly jsonSchema: unknown }, logTime: bigint, message: unknown): Promise<void> {
    if (!this.#jsonDeclared) {
      throw new Error("SynchronizedMcapWriter.addJson needs useJsonChannels() before start");
    }
    let channel = this.#jsonChannels.get(topic);
    if (channel == undefined) {
      const schemaId = await this.#writer.registerSchema({
        name: schema.name,
        encoding: "jsonschema",
        data: new TextEncoder().encode(JSON.stringify(schema.jsonSchema)),
      });
      const id = await this.#writer.registerChannel({ topic, schemaId, messageEncoding: "json", metadata: new Map() });
      channel = { id, sequence: 0 };
      this.#jsonChannels.set(topic, channel);
    }
    const data = new TextEncoder().encode(JSON.stringify(message));
    await this.#writer.addMessage({ channelId: channel.id, sequence: channel.sequence++, logTime, publishTime: logTime, data });
  }

  /** Writes one set (its messages in slot order). */
  public async addTuple(index: number, messages: readonly TupleMessage[]): Promise<void> {
    let logTime = 0n;
    for (const m of messages) {
      const t = toNs(m.receiveTime);
      if (t > logTime) {
        logTime = t;
      }
    }
    for (const m of messages) {
      const channelId = await this.#channelFor(m.channel);
      await this.#writer.addMessage({ channelId, sequence: index, logTime, publishTime: toNs(m.receiveTime), data: m.data });
    }
    this.#tuples++;
  }

  /** Finishes the file (summary section, footer). */
  public async end(): Promise<void> {
    await this.#writer.end();
  }

  async #channelFor(channel: RecordingChannel): Promise<number> {
    const known = this.#channels.get(channel);
    if (known != undefined) {
      return known;
    }
    const schemaKey = `${channel.schemaEncoding}\u0000${channel.schemaName}\u0000${new TextDecoder().decode(channel.schemaData)}`;
    let schemaId = this.#schemas.get(schemaKey);
    if (schemaId == undefined) {
      schemaId = await this.#writer.registerSchema({ name: channel.schemaName, encoding: channel.schemaEncoding, data: channel.schemaData });
      this.#schemas.set(schemaKey, schemaId);
    }
    const metadata = new Map(channel.metadata);
    metadata.set("lockstep.sourceTopic", channel.topic);
    const id = await this.#writer.registerChannel({
      topic: namespacedTopic(this.#namespace, channel.topic),
      schemaId,
      messageEncoding: channel.messageEncoding,
      metadata,
    });
    this.#channels.set(channel, id);
    return id;
  }
}
