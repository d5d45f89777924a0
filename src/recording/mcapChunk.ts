import { McapStreamReader, Opcode, type McapTypes } from "@mcap/core";

import { timeLess } from "./ChunkMerge";
import { crc32 } from "./crc32";
import type { RecordTime } from "./types";

/** Opcode, then a little-endian uint64 length. */
export const RECORD_PREFIX = 9;
/** MCAP opcodes, as @mcap/core names them (plain numbers: compared with bytes of the file). */
export const OP_CHUNK: number = Opcode.CHUNK;
const OP_SCHEMA: number = Opcode.SCHEMA;
const OP_CHANNEL: number = Opcode.CHANNEL;
const OP_MESSAGE: number = Opcode.MESSAGE;
/** As @mcap/core names it (a plain number: compared with a byte of the file). */
export const OP_MESSAGE_INDEX: number = Opcode.MESSAGE_INDEX;
/** A MessageIndex record's prefix, channel id (uint16) and its entries' byte length (uint32). */
export const MESSAGE_INDEX_HEAD = RECORD_PREFIX + 2 + 4;
/** The opcodes of the specification; above them are custom or newer records, which are skipped. */
const LAST_KNOWN_OPCODE: number = Opcode.MAX;
/** Channel id (uint16), sequence (uint32), log time and publish time (uint64) before a message's data. */
const MESSAGE_FIELDS = 22;
/** Start and end time, uncompressed size (uint64), uncompressed CRC (uint32) before the compression name. */
const CHUNK_FIELDS = 28;
/** The specification's name of each record that a chunk may not hold, by opcode. */
const RECORD_NAMES = [
  "",
  "Header",
  "Footer",
  "Schema",
  "Channel",
  "Message",
  "Chunk",
  "MessageIndex",
  "ChunkIndex",
  "Attachment",
  "AttachmentIndex",
  "Statistics",
  "Metadata",
  "MetadataIndex",
  "SummaryOffset",
  "DataEnd",
];
const NS = 1_000_000_000n;

/** The specification's name of a known record opcode ("Attachment"); undefined for any other. */
export function mcapRecordName(op: number): string | undefined {
  return op > 0 && op <= LAST_KNOWN_OPCODE ? RECORD_NAMES[op] : undefined;
}
/** The largest high word of a uint64 that is still a safe integer (2^53 - 1 has 2^21 - 1). */
const MAX_SAFE_HIGH_WORD = 0x1f_ffff;
/**
 * Why records holding opcode 0 are refused: it is no record but zeros (a zero-filled region, or a
 * bomb of them, nine bytes per "record", which would otherwise be kept by the million).
 */
export const OPCODE_ZERO = "it holds a record with opcode 0x00, which is not a record (zero bytes where records should be)";
const textDecoder = new TextDecoder();

/** A log or publish time (uint64 nanoseconds) as seconds and nanoseconds. */
export function timeOf(ns: bigint): RecordTime {
  return { sec: Number(ns / NS), nsec: Number(ns % NS) };
}

/**
 * The little-endian uint64 nanosecond time at `at` in `view` as seconds and nanoseconds, exactly
 * as `timeOf` gives it, without BigInt (every message a read wants passes through here).
 */
export function timeAt(view: DataView, at: number): RecordTime {
  const high = view.getUint32(at + 4, true);
  const low = view.getUint32(at, true);
  // Long division by 1e9, one 16-bit digit at a time: a remainder below 1e9 times 2^16 plus a
  // digit stays below 2^53, and so does the quotient (below 2^64 / 1e9).
  let part = high >>> 16;
  let q = Math.floor(part / 1e9);
  let sec = q;
  part = (part - q * 1e9) * 65_536 + (high & 0xffff);
  q = Math.floor(part / 1e9);
  sec = sec * 65_536 + q;
  part = (part - q * 1e9) * 65_536 + (low >>> 16);
  q = Math.floor(part / 1e9);
  sec = sec * 65_536 + q;
  part = (part - q * 1e9) * 65_536 + (low & 0xffff);
  q = Math.floor(part / 1e9);
  sec = sec * 65_536 + q;
  return { sec, nsec: part - q * 1e9 };
}

/** A message a read wants, with its own copy of its bytes (it keeps no chunk alive). */
export interface McapMessage {
  readonly channelId: number;
  /** Log time: the receive time. */
  readonly time: RecordTime;
  readonly publishTime: RecordTime;
  readonly data: Uint8Array;
}

/** The channels a chunk's messages may use, and which of them a read wants. */
export interface ChannelLookup {
  /** Every channel known before the records (from the summary or earlier records). */
  readonly channels: ReadonlyMap<number, McapTypes.Channel>;
  /** Whether the read wants the messages of `channel`. */
  wants(channel: McapTypes.Channel): boolean;
}

/** A schema or channel record, as @mcap/core types it. */
export type DefinitionRecord = McapTypes.TypedMcapRecords["Schema"] | McapTypes.TypedMcapRecords["Channel"];

/**
 * The messages some records hold on one channel that no Channel record defines (neither a known
 * one nor one among the records): they cannot be delivered (no topic, no schema), and the other
 * records around them are unaffected.
 */
export interface UndefinedChannelMessages {
  count: number;
  /**
   * The first one's byte offset from the start of the bytes read (a chunk record or a record of
   * its own), when its bytes are stored there as they are; undefined inside a compressed chunk.
   */
  readonly offset: number | undefined;
  /** The first one's byte offset in the chunk's (decompressed) records; undefined outside a chunk. */
  readonly inRecords: number | undefined;
}

/**
 * What some records hold for a read: the wanted messages in file order, the schemas and channels
 * in record order (the caller adds them to what it knows; nothing is added on failure), and the
 * messages left out because no Channel record defines theirs, by channel id.
 */
export interface RecordContents {
  readonly messages: McapMessage[];
  readonly definitions: DefinitionRecord[];
  readonly undefinedChannels: ReadonlyMap<number, UndefinedChannelMessages>;
}

/** Whether `bytes` is exactly one record and that record is a chunk. */
export function isWholeChunkRecord(bytes: Uint8Array): boolean {
  if (bytes.byteLength < RECORD_PREFIX || bytes[0] !== OP_CHUNK) {
    return false;
  }
  const length = new DataView(bytes.buffer, bytes.byteOffset, RECORD_PREFIX).getBigUint64(1, true);
  return length === BigInt(bytes.byteLength - RECORD_PREFIX);
}

/** A chunk's records, decompressed, and the CRC-32 the chunk declares for them (0: none). */
export interface ChunkRecords {
  readonly records: Uint8Array;
  readonly declaredCrc: number;
  /**
   * Where the records start in the chunk record's bytes when it stores them uncompressed (so a
   * position in them is one in the file); undefined when they were decompressed.
   */
  readonly storedAt: number | undefined;
}

/** What a chunk record's header says about its records. */
export interface ChunkRecordHeader {
  /** The compression's MCAP name ("" for none). */
  readonly compression: string;
  /** The uncompressed size the chunk declares. */
  readonly uncompressedSize: bigint;
  /** The CRC-32 the chunk declares for its uncompressed records (0: none). */
  readonly declaredCrc: number;
  /** Where the (compressed) records start in the chunk record's bytes. */
  readonly recordsOffset: number;
  /** Their length in bytes (within the record's bytes). */
  readonly recordsLength: number;
  /** The log times the chunk says its messages span (inclusive). */
  readonly range: TimeRange;
}

/**
 * Reads the header of one whole chunk record (`bytes`, prefix included; see
 * `isWholeChunkRecord`). Throws when a length field points outside the
 * record.
 */
export function chunkRecordHeader(bytes: Uint8Array): ChunkRecordHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const start = RECORD_PREFIX;
  const range = { start: timeAt(view, start), end: timeAt(view, start + 8) };
  const uncompressedSize = view.getBigUint64(start + 16, true);
  const declaredCrc = view.getUint32(start + 24, true);
  const nameLength = view.getUint32(start + CHUNK_FIELDS, true);
  let at = start + CHUNK_FIELDS + 4;
  if (nameLength > bytes.byteLength - at) {
    throw new Error(`the chunk's compression name declares ${nameLength} bytes, more than its record holds`);
  }
  const compression = textDecoder.decode(bytes.subarray(at, at + nameLength));
  at += nameLength;
  const declaredLength = view.getBigUint64(at, true);
  at += 8;
  if (declaredLength > BigInt(bytes.byteLength - at)) {
    throw new Error(`the chunk's records declare ${declaredLength} bytes, more than its record holds`);
  }
  return { compression, uncompressedSize, declaredCrc, recordsOffset: at, recordsLength: Number(declaredLength), range };
}

/**
 * Decompresses the records of one whole chunk record (`bytes`, prefix included; see
 * `isWholeChunkRecord`), without checking their CRC (`checkChunkCrc` does). Uncompressed records
 * are a view of `bytes`; compressed ones are read in place (never copied) and decompressed into
 * fresh memory. Throws on a bad header (`chunkRecordHeader`), an
 * unknown compression or a decompression failure.
 */
export function decompressChunkRecord(bytes: Uint8Array, handlers: McapTypes.DecompressHandlers): ChunkRecords {
  const { compression, uncompressedSize, declaredCrc, recordsOffset, recordsLength } = chunkRecordHeader(bytes);
  const stored = bytes.subarray(recordsOffset, recordsOffset + recordsLength);
  if (compression === "" || stored.byteLength === 0) {
    return { records: stored, declaredCrc, storedAt: recordsOffset };
  }
  const decompress = handlers[compression];
  if (!decompress) {
    throw new Error(`the chunk is compressed with "${compression}", which Lockstep does not decompress (it reads ${Object.keys(handlers).join(", ")} and uncompressed chunks)`);
  }
  return { records: decompress(stored, uncompressedSize), declaredCrc, storedAt: undefined };
}

/**
 * Throws, naming both CRCs, when `actualCrc` (the CRC-32 of a chunk's records) differs from the
 * one the chunk declares; a declared CRC of 0 means "not computed" and accepts anything.
 */
export function checkChunkCrc(actualCrc: number, declaredCrc: number): void {
  if (declaredCrc !== 0 && actualCrc !== declaredCrc) {
    throw new Error(`the chunk's CRC-32 is ${actualCrc} but its record says ${declaredCrc}: its bytes are damaged`);
  }
}

/**
 * Reads one whole chunk record (`bytes`, prefix included; see `isWholeChunkRecord`): decompresses
 * its records, checks the CRC of what it declares one, and walks the records (`walkRecords`). The
 * compressed bytes are read in place (never copied). Throws when the
 * chunk is corrupt: a bad header, unknown compression, a decompression failure, a CRC mismatch,
 * or what `walkRecords` refuses.
 */
export function readChunkRecord(bytes: Uint8Array, lookup: ChannelLookup, handlers: McapTypes.DecompressHandlers): RecordContents {
  const { records, declaredCrc, storedAt } = decompressChunkRecord(bytes, handlers);
  if (declaredCrc !== 0) {
    checkChunkCrc(crc32(records), declaredCrc);
  }
  return walkRecords(records, lookup, storedAt);
}

/**
 * Walks a chunk's decompressed records, parsing only the schemas, the channels and the messages
 * `lookup` wants: other messages are neither copied nor parsed beyond their channel id; wanted
 * messages get their own copy of their bytes. A message on a channel no Channel record defines is
 * left out and counted (`undefinedChannels`; offsets from `storedAt`, where the records start in
 * the bytes read when stored uncompressed); the records around it are read as usual. Throws on a
 * record a chunk may not hold (or opcode 0), a channel record that differs from an earlier one of
 * its id, a message too short for its fields, or records that do not fill the chunk exactly.
 */
export function walkRecords(records: Uint8Array, lookup: ChannelLookup, storedAt?: number): RecordContents {
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  const messages: McapMessage[] = [];
  const definitions: DefinitionRecord[] = [];
  const undefinedChannels = new Map<number, UndefinedChannelMessages>();
  // Channel records met in this chunk, and per channel id whether the read wants it.
  const local = new Map<number, McapTypes.Channel>();
  const wanted = new Map<number, boolean>();
  const end = records.byteLength;
  let pos = 0;
  while (end - pos >= RECORD_PREFIX) {
    const op = records[pos]!;
    const high = view.getUint32(pos + 5, true);
    if (high > MAX_SAFE_HIGH_WORD) {
      throw new Error(`a record in the chunk declares a length of ${view.getBigUint64(pos + 1, true)} bytes, more than any file holds`);
    }
    const length = high * 2 ** 32 + view.getUint32(pos + 1, true);
    const body = pos + RECORD_PREFIX;
    if (end - body < length) {
      break;
    }
    if (op === OP_MESSAGE) {
      const channelId = view.getUint16(body, true);
      let wants = wanted.get(channelId);
      if (wants == undefined) {
        const channel = local.get(channelId) ?? lookup.channels.get(channelId);
        if (channel) {
          wants = lookup.wants(channel);
          wanted.set(channelId, wants);
        } else {
          // Not remembered: a Channel record for it may still follow in this chunk.
          const tally = undefinedChannels.get(channelId);
          if (tally) {
            tally.count++;
          } else {
            undefinedChannels.set(channelId, { count: 1, offset: storedAt == undefined ? undefined : storedAt + pos, inRecords: pos });
          }
          wants = false;
        }
      }
      if (wants) {
        if (length < MESSAGE_FIELDS) {
          throw new Error(`a message record of ${length} bytes is shorter than its ${MESSAGE_FIELDS} bytes of fields`);
        }
        messages.push({
          channelId,
          time: timeAt(view, body + 6),
          publishTime: timeAt(view, body + 14),
          data: records.slice(body + MESSAGE_FIELDS, body + length),
        });
      }
    } else if (op === OP_SCHEMA || op === OP_CHANNEL) {
      const record = parseDefinition(records.subarray(pos, body + length));
      if (record.type === "Channel") {
        const earlier = local.get(record.id) ?? lookup.channels.get(record.id);
        if (earlier && !sameChannel(earlier, record)) {
          throw new Error(`the Channel record for id ${record.id} (topic ${record.topic}) differs from an earlier one of the same id`);
        }
        local.set(record.id, record);
      }
      definitions.push(record);
    } else if (op === 0) {
      throw new Error(OPCODE_ZERO);
    } else if (op <= LAST_KNOWN_OPCODE) {
      const name = RECORD_NAMES[op]!;
      throw new Error(`it holds ${/^[AEIOU]/.test(name) ? "an" : "a"} ${name} record, which a chunk may not hold`);
    }
    pos = body + length;
  }
  if (pos !== end) {
    throw new Error(`its last ${end - pos} bytes do not form a complete record`);
  }
  return { messages, definitions, undefinedChannels };
}

/** One Schema or Channel record (`bytes`, prefix included), parsed by @mcap/core. */
function parseDefinition(bytes: Uint8Array): DefinitionRecord {
  const stream = new McapStreamReader({ noMagicPrefix: true });
  stream.append(bytes);
  const record = stream.nextRecord();
  if (record?.type !== "Schema" && record?.type !== "Channel") {
    throw new Error(`a ${bytes[0] === OP_SCHEMA ? "schema" : "channel"} record does not parse`);
  }
  return record;
}

function sameChannel(a: McapTypes.Channel, b: McapTypes.Channel): boolean {
  if (a.messageEncoding !== b.messageEncoding || a.schemaId !== b.schemaId || a.topic !== b.topic || a.metadata.size !== b.metadata.size) {
    return false;
  }
  for (const [key, value] of a.metadata) {
    if (b.metadata.get(key) !== value) {
      return false;
    }
  }
  return true;
}

/** The log times a chunk states for its messages (its chunk index's or its own record's), inclusive. */
export interface TimeRange {
  readonly start: RecordTime;
  readonly end: RecordTime;
}

/** The messages of one chunk whose log times lie outside the range it states, and what became of them. */
export interface OutsideRange {
  /** How many lie outside the range. */
  readonly count: number;
  /** The earliest of them. */
  readonly first: RecordTime;
  /** How many of them were skipped for being earlier than a message already delivered. */
  readonly early: number;
  /** How many of them were skipped because holding their chunk until their time would pass the memory bound. */
  readonly late: number;
  /** The skipped ones, per channel id. */
  readonly skipped: ReadonlyMap<number, number>;
}

/**
 * The chunks a read holds only because some of their messages lie after the range they state:
 * the merge keeps a chunk's messages (delivered ones too) until its last one goes out, so a
 * message at 2^63 ns would hold its chunk to the end of the read, and one in every chunk would
 * hold the whole file. Their message bytes together stay within `limit`.
 */
export class HeldChunks {
  readonly #limit: number;
  #held: { readonly until: RecordTime; readonly bytes: number }[] = [];

  public constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * Whether a chunk of `bytes` may be held until `until`, given that every message before
   * `delivered` has gone out (so chunks held until before it are released); if so, it is counted.
   */
  public admit(until: RecordTime, bytes: number, delivered: RecordTime | undefined): boolean {
    if (delivered) {
      this.#held = this.#held.filter((h) => !timeLess(h.until, delivered));
    }
    const total = this.#held.reduce((sum, h) => sum + h.bytes, bytes);
    if (total > this.#limit) {
      return false;
    }
    this.#held.push({ until, bytes });
    return true;
  }
}

/**
 * Checks the log times of one chunk's `messages` (in file order) against the range the chunk
 * states, once per chunk (the messages are walked again only when one lies outside). Returns the
 * messages to deliver and, when some lie outside, what became of them.
 *
 * The merges (`mergeChunks`, `ScanMerge`) deliver in log-time order as long as no message they are
 * given is earlier than one they delivered already (`delivered`: the last one's time), so:
 * - a message earlier than the range is kept only if it is not earlier than `delivered`: the
 *   merge opened the chunk at its stated start, after everything before that start went out, so
 *   an earlier one may belong before messages delivered already; delivering it there would
 *   break the order every consumer relies on, so it is skipped (and counted);
 * - a message later than the range is kept: the merge holds it until its time like any other,
 *   and with it its chunk, which `held` admits only within its memory bound (else skipped).
 */
export function placeByTime(
  messages: McapMessage[],
  range: TimeRange,
  delivered: RecordTime | undefined,
  held: HeldChunks,
): { readonly messages: McapMessage[]; readonly outside: OutsideRange | undefined } {
  const { start, end } = range;
  let count = 0;
  let first: RecordTime | undefined;
  let last: RecordTime | undefined;
  for (const m of messages) {
    const t = m.time;
    if (timeLess(t, start) || timeLess(end, t)) {
      count++;
      if (first == undefined || timeLess(t, first)) {
        first = t;
      }
      if (timeLess(end, t) && (last == undefined || timeLess(last, t))) {
        last = t;
      }
    }
  }
  if (first == undefined) {
    return { messages, outside: undefined };
  }
  const skipped = new Map<number, number>();
  const skip = (m: McapMessage): void => {
    skipped.set(m.channelId, (skipped.get(m.channelId) ?? 0) + 1);
  };
  let early = 0;
  let kept = messages.filter((m) => {
    if (delivered != undefined && timeLess(m.time, start) && timeLess(m.time, delivered)) {
      early++;
      skip(m);
      return false;
    }
    return true;
  });
  let late = 0;
  if (last != undefined && !held.admit(last, kept.reduce((sum, m) => sum + m.data.byteLength, 0), delivered)) {
    kept = kept.filter((m) => {
      if (timeLess(end, m.time)) {
        late++;
        skip(m);
        return false;
      }
      return true;
    });
  }
  return { messages: kept, outside: { count, first, early, late, skipped } };
}

/**
 * The channel of the MessageIndex record at `bytes[at]` and how many messages it lists, read from
 * its length fields alone (16 bytes an entry, never parsed); undefined when the bytes there are
 * not such a record.
 */
export function messageIndexHead(bytes: Uint8Array, at: number): { readonly channelId: number; readonly count: number } | undefined {
  if (at < 0 || at + MESSAGE_INDEX_HEAD > bytes.byteLength || bytes[at] !== OP_MESSAGE_INDEX) {
    return undefined;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, MESSAGE_INDEX_HEAD);
  const length = view.getBigUint64(1, true);
  const entriesLength = view.getUint32(RECORD_PREFIX + 2, true);
  if (entriesLength % 16 !== 0 || length !== BigInt(6 + entriesLength)) {
    return undefined;
  }
  return { channelId: view.getUint16(RECORD_PREFIX, true), count: entriesLength / 16 };
}
