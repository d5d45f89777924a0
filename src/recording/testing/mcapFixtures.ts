import { McapWriter, TempBuffer } from "@mcap/core";

/** One message to write: topic index into `channels`, log time (ns), serialized bytes. */
export interface FixtureMessage {
  channel: number;
  logTime: bigint;
  data: Uint8Array;
}

/** A channel of a fixture file. */
export interface FixtureChannel {
  topic: string;
  schemaName: string;
  schemaEncoding: string;
  schema: string;
  messageEncoding: string;
}

/**
 * Test helper: writes an MCAP file in memory with @mcap/core's writer. `compress` (optional)
 * compresses each chunk; `chunkSize` is the writer's chunk threshold in bytes.
 */
export async function writeMcap(
  channels: readonly FixtureChannel[],
  messages: readonly FixtureMessage[],
  options: {
    profile?: string;
    chunkSize?: number;
    compress?: (data: Uint8Array) => { compression: string; compressedData: Uint8Array };
    /** Binary schema data per channel (e.g. a protobuf FileDescriptorSet), instead of `schema` text. */
    schemaBytes?: readonly (Uint8Array | undefined)[];
  } = {},
): Promise<Uint8Array> {
  const buffer = new TempBuffer();
  const writer = new McapWriter({
    writable: buffer,
    chunkSize: options.chunkSize ?? 4096,
    compressChunk: options.compress,
  });
  await writer.start({ profile: options.profile ?? "", library: "lockstep-test" });
  const ids: number[] = [];
  for (const [i, c] of channels.entries()) {
    const schemaId = await writer.registerSchema({
      name: c.schemaName,
      encoding: c.schemaEncoding,
      data: options.schemaBytes?.[i] ?? new TextEncoder().encode(c.schema),
    });
    ids.push(
      await writer.registerChannel({
        topic: c.topic,
        schemaId,
        messageEncoding: c.messageEncoding,
        metadata: new Map(),
      }),
    );
  }
  let sequence = 0;
  for (const m of messages) {
    await writer.addMessage({
      channelId: ids[m.channel]!,
      sequence: sequence++,
      logTime: m.logTime,
      publishTime: m.logTime,
      data: m.data,
    });
  }
  await writer.end();
  return buffer.get();
}
