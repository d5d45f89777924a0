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
}

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
 * Channel metadata `lockstep.sourceTopic` names the original topic. Calls must be awaited in order.
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
  #tuples = 0;

  public constructor(writable: IWritable, options: SynchronizedMcapWriterOptions = {}) {
    this.#writer = new McapWriter({ writable, chunkSize: options.chunkSize ?? 1 << 20 });
    this.#namespace = options.namespace ?? "/lockstep";
    this.#profile = options.profile ?? "";
  }

  /** Sets written so far. */
  public get tuples(): number {
    return this.#tuples;
  }

  public async start(): Promise<void> {
    await this.#writer.start({ profile: this.#profile, library: "lockstep" });
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
