import { McapRecordBuilder, McapStreamReader, Opcode, type McapTypes } from "@mcap/core";

import { isWholeChunkRecord, OPCODE_ZERO, RECORD_PREFIX, readChunkRecord, timeOf, type ChannelLookup, type RecordContents } from "./mcapChunk";

/** As @mcap/core names it (a plain number: compared with a byte of the file). */
const OP_MESSAGE: number = Opcode.MESSAGE;

/**
 * The schemas and channels known so far, and their records as bytes: records read on their own
 * are parsed after them, because a chunk's messages may use channels whose records are in another
 * chunk (writers record each channel once).
 */
export class KnownChannels {
  readonly schemas = new Map<number, McapTypes.Schema>();
  readonly channels = new Map<number, McapTypes.Channel>();
  #prefix: Uint8Array | undefined;

  /** Adds a schema unless its id is known (the first record of an id counts). */
  public addSchema(schema: McapTypes.Schema): void {
    if (!this.schemas.has(schema.id)) {
      this.schemas.set(schema.id, schema);
      this.#prefix = undefined;
    }
  }

  /** Adds a channel unless its id is known (the first record of an id counts). */
  public addChannel(channel: McapTypes.Channel): void {
    if (!this.channels.has(channel.id)) {
      this.channels.set(channel.id, channel);
      this.#prefix = undefined;
    }
  }

  /** The known schema and channel records, serialized (built again only after an addition). */
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
 * The complete top-level record(s) in `bytes` (a chunk yields the records it holds), for a read
 * that wants the messages of the channels `wants` accepts: those messages and the schemas and
 * channels, known ones included (`known` is not changed). A whole chunk record is read in place
 * (`readChunkRecord`); anything else goes through @mcap/core's stream reader after the known
 * records. Records of unknown opcodes are skipped. Messages on a channel no Channel record
 * defines are left out and counted (`undefinedChannels`), in a chunk and as a record of their own.
 * Throws when the records are corrupt (CRC, decompression, size limit, opcode 0) or cut off.
 */
export function readRecords(
  known: KnownChannels,
  bytes: Uint8Array,
  handlers: McapTypes.DecompressHandlers,
  wants: (channel: McapTypes.Channel) => boolean,
): RecordContents {
  const lookup: ChannelLookup = { channels: known.channels, wants };
  if (isWholeChunkRecord(bytes)) {
    return readChunkRecord(bytes, lookup, handlers);
  }
  const channelId = undefinedChannelOf(known, bytes);
  if (channelId != undefined) {
    return { messages: [], definitions: [], undefinedChannels: new Map([[channelId, { count: 1, offset: 0, inRecords: undefined }]]) };
  }
  return streamRecords(known, bytes, handlers, lookup);
}

/**
 * The channel id of the one Message record `bytes` is, when no known Channel record defines it
 * (the stream reader would refuse the record for it, not just drop the message).
 */
function undefinedChannelOf(known: KnownChannels, bytes: Uint8Array): number | undefined {
  if (bytes[0] !== OP_MESSAGE || bytes.byteLength < RECORD_PREFIX + 2) {
    return undefined;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getBigUint64(1, true) !== BigInt(bytes.byteLength - RECORD_PREFIX)) {
    return undefined;
  }
  const channelId = view.getUint16(RECORD_PREFIX, true);
  return known.channels.has(channelId) ? undefined : channelId;
}

function streamRecords(known: KnownChannels, bytes: Uint8Array, handlers: McapTypes.DecompressHandlers, lookup: ChannelLookup): RecordContents {
  const out: RecordContents = { messages: [], definitions: [], undefinedChannels: new Map() };
  const local = new Map<number, McapTypes.Channel>();
  for (const r of parseRecords(known, bytes, handlers)) {
    if (r.type === "Message") {
      // The stream reader has checked that the channel is known.
      const channel = local.get(r.channelId) ?? lookup.channels.get(r.channelId)!;
      if (lookup.wants(channel)) {
        out.messages.push({ channelId: r.channelId, time: timeOf(r.logTime), publishTime: timeOf(r.publishTime), data: r.data });
      }
    } else if (r.type === "Schema") {
      out.definitions.push(r);
    } else if (r.type === "Channel") {
      local.set(r.id, r);
      out.definitions.push(r);
    }
  }
  return out;
}

/**
 * The records @mcap/core's stream reader parses from `bytes` after the records of `known` (which
 * it does not return), leaving out records of unknown opcodes. Throws when they are corrupt
 * (CRC, decompression, size limit, opcode 0) or cut off.
 */
function parseRecords(known: KnownChannels, bytes: Uint8Array, handlers: McapTypes.DecompressHandlers): McapTypes.TypedMcapRecord[] {
  const stream = new McapStreamReader({ noMagicPrefix: true, validateCrcs: true, decompressHandlers: handlers });
  stream.append(known.prefix);
  for (let i = known.schemas.size + known.channels.size; i > 0; i--) {
    stream.nextRecord();
  }
  stream.append(bytes);
  const out: McapTypes.TypedMcapRecord[] = [];
  for (let r = stream.nextRecord(); r; r = stream.nextRecord()) {
    if (r.type !== "Unknown") {
      out.push(r);
    } else if (r.opcode === 0) {
      throw new Error(OPCODE_ZERO);
    }
    // Records of other unknown opcodes (custom or newer records) are skipped, not kept.
  }
  if (stream.bytesRemaining() > 0) {
    throw new Error(`the record is cut off (${stream.bytesRemaining()} bytes do not form a complete record)`);
  }
  return out;
}
