import { McapIndexedReader, McapWriter, TempBuffer } from "@mcap/core";
import { readFile } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";

import { ArrayByteSource } from "./ByteSource";
import type { ChunkWorker } from "./ChunkWorker";
import { RecordingError, type RecordingDamage } from "./RecordingError";
import { ThreadChunkWorker } from "./ThreadChunkWorker";
import { crc32 } from "./crc32";
import { openRecording } from "./openRecording";
import { OwnedReads } from "./testing/ownedReads";
import { HAS_SHARED_DATA, sharedRecording } from "./testing/paths";

// Chunks that read but lose messages, or hold messages outside the log times their index states:
// each is named once, with its offset, and what it lost per topic (the product's promise: nothing
// vanishes without a word). Offsets and counts come from the file's bytes and @mcap/core, not from
// the reader under test.

const T0 = 1_700_000_000_000_000_000n;
const TOP = 2n ** 63n;
/** A footer record and the closing magic. */
const FOOTER_AND_MAGIC = 37;

interface Message {
  readonly topic: string;
  readonly time: bigint;
}

/** A message record inside a chunk: where it starts in the file, its topic and log time. */
interface InChunk extends Message {
  readonly at: number;
}

/** A chunk as the file lays it out (offsets in the file). */
interface Chunk {
  readonly offset: number;
  readonly recordsAt: number;
  readonly recordsLength: number;
  readonly start: bigint;
  readonly end: bigint;
  readonly messages: readonly InChunk[];
}

/**
 * `n` messages on /a and /b (every third one on /b), 10 ms apart, `size` bytes each, in
 * uncompressed chunks of about `chunkSize` bytes.
 */
async function fixture(options: { n?: number; size?: number; chunkSize?: number; messageIndex?: boolean } = {}): Promise<{ bytes: Uint8Array; messages: Message[] }> {
  const { n = 90, size = 20, chunkSize = 400, messageIndex = true } = options;
  const buffer = new TempBuffer();
  const writer = new McapWriter({ writable: buffer, chunkSize, useMessageIndex: messageIndex });
  await writer.start({ profile: "ros2", library: "lockstep test" });
  const schemaId = await writer.registerSchema({ name: "test_msgs/msg/Blob", encoding: "ros2msg", data: new TextEncoder().encode("uint8[] data") });
  const ids = [await writer.registerChannel({ topic: "/a", schemaId, messageEncoding: "cdr", metadata: new Map() })];
  ids.push(await writer.registerChannel({ topic: "/b", schemaId, messageEncoding: "cdr", metadata: new Map() }));
  const messages: Message[] = [];
  for (let i = 0; i < n; i++) {
    const onB = i % 3 === 2;
    const time = T0 + BigInt(i) * 10_000_000n;
    await writer.addMessage({ channelId: ids[onB ? 1 : 0]!, sequence: i, logTime: time, publishTime: time, data: new Uint8Array(size).fill(i) });
    messages.push({ topic: onB ? "/b" : "/a", time });
  }
  await writer.end();
  return { bytes: buffer.get(), messages };
}

/** The chunks of `bytes` (an MCAP with uncompressed chunks), in file order, from @mcap/core's index and their own fields. */
async function chunksOf(bytes: Uint8Array): Promise<Chunk[]> {
  const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return reader.chunkIndexes.map((index) => {
    const offset = Number(index.chunkStartOffset);
    const nameLength = view.getUint32(offset + 9 + 28, true);
    const recordsAt = offset + 9 + 32 + nameLength + 8;
    const recordsLength = Number(view.getBigUint64(recordsAt - 8, true));
    const messages: InChunk[] = [];
    for (let at = recordsAt; at < recordsAt + recordsLength; at += 9 + Number(view.getBigUint64(at + 1, true))) {
      if (bytes[at] === 5) {
        const topic = reader.channelsById.get(view.getUint16(at + 9, true))!.topic;
        messages.push({ at, topic, time: view.getBigUint64(at + 9 + 6, true) });
      }
    }
    return { offset, recordsAt, recordsLength, start: index.messageStartTime, end: index.messageEndTime, messages };
  });
}

/** Per topic, how many of `messages` are on it. */
function perTopic(messages: readonly Message[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of messages) {
    out.set(m.topic, (out.get(m.topic) ?? 0) + 1);
  }
  return out;
}

/** A log time as the reader writes it in a reason ("1700000000.010000000"). */
function text(ns: bigint): string {
  return `${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, "0")}`;
}

/** A copy of `bytes` with the log time of the message record at `at` set to `time`, its chunk's CRC made right. */
function withLogTime(bytes: Uint8Array, chunk: Chunk, at: number, time: bigint): Uint8Array {
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  view.setBigUint64(at + 9 + 6, time, true);
  fixCrc(out, chunk);
  return out;
}

function fixCrc(bytes: Uint8Array, chunk: Chunk): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(chunk.offset + 9 + 24, true) !== 0) {
    view.setUint32(chunk.offset + 9 + 24, crc32(bytes.subarray(chunk.recordsAt, chunk.recordsAt + chunk.recordsLength)), true);
  }
}

/** A copy of `bytes` whose chunk record at `chunk` has every byte after its prefix zeroed (fields, records and all). */
function withZeroedBody(bytes: Uint8Array, chunk: Chunk): Uint8Array {
  const out = bytes.slice();
  const length = Number(new DataView(out.buffer).getBigUint64(chunk.offset + 1, true));
  out.fill(0, chunk.offset + 9, chunk.offset + 9 + length);
  return out;
}

/** A copy whose footer names no summary: the file is read sequentially (and is otherwise whole). */
function withoutSummary(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setBigUint64(out.length - FOOTER_AND_MAGIC + 9, 0n, true);
  return out;
}

interface Read {
  readonly indexed: boolean;
  readonly got: Message[];
  readonly damages: RecordingDamage[];
}

/**
 * Reads every message (undecoded) through `openRecording`; the damages are those `onDamage`
 * heard, checked to be exactly those of the RecordingError that ends the read (none: no error).
 */
async function read(
  bytes: Uint8Array,
  options: { topics?: string[]; chunkWorker?: ChunkWorker; maxChunkBytes?: number } = {},
): Promise<Read> {
  const source = options.chunkWorker ? new OwnedReads(bytes) : new ArrayByteSource(bytes);
  const recording = await openRecording(source, { chunkWorker: options.chunkWorker, maxChunkBytes: options.maxChunkBytes });
  const got: Message[] = [];
  const damages: RecordingDamage[] = [];
  let error: unknown;
  try {
    for await (const m of recording.messages({ topics: options.topics, decode: false, onDamage: (d) => damages.push(d) })) {
      got.push({ topic: m.topic, time: BigInt(m.receiveTime.sec) * 1_000_000_000n + BigInt(m.receiveTime.nsec) });
    }
  } catch (err) {
    error = err;
  }
  if (damages.length === 0) {
    expect(error).toBeUndefined();
  } else {
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).damages).toEqual(damages);
  }
  return { indexed: recording.info.indexed, got, damages };
}

/** Whether the times of `messages` never go backwards. */
function sorted(messages: readonly Message[]): boolean {
  return messages.every((m, i) => i === 0 || m.time >= messages[i - 1]!.time);
}

const fewer = (n: number): string =>
  `the chunk's message indexes count ${n} more message${n === 1 ? "" : "s"} on the topics read than the chunk holds: its records are cut short or damaged`;

const thread = new ThreadChunkWorker();
afterAll(async () => {
  await thread.close();
});

describe("MCAP chunks that lose messages without a parse error", () => {
  for (const [how, sequential, worker] of [
    ["indexed", false, false],
    ["indexed, with a chunk worker", false, true],
    ["sequential", true, false],
    ["sequential, with a chunk worker", true, true],
  ] as const) {
    it(`${how}: a clean file is no damage, and every message is delivered in log-time order`, async () => {
      const { bytes, messages } = await fixture();
      expect((await chunksOf(bytes)).length).toBeGreaterThan(4);
      const r = await read(sequential ? withoutSummary(bytes) : bytes, { chunkWorker: worker ? thread : undefined });
      expect(r.indexed).toBe(!sequential);
      expect(r.damages).toEqual([]);
      expect(r.got).toEqual(messages);
    });

    it(`${how}: a chunk whose body is zeroed (it parses as an empty chunk) is one damage naming what its message indexes count`, async () => {
      const { bytes, messages } = await fixture();
      const chunk = (await chunksOf(bytes))[2]!;
      const bad = withZeroedBody(bytes, chunk);
      const r = await read(sequential ? withoutSummary(bad) : bad, { chunkWorker: worker ? thread : undefined });
      expect(r.indexed).toBe(!sequential);
      expect(r.damages).toEqual([{ offset: chunk.offset, reason: fewer(chunk.messages.length), lost: perTopic(chunk.messages) }]);
      expect(r.got).toEqual(messages.filter((m) => !chunk.messages.some((c) => c.time === m.time)));
    });
  }

  it("indexed: a chunk whose records length is 0 (and CRC 0) is one damage; a read of one topic names only that topic's loss", async () => {
    const { bytes, messages } = await fixture();
    const chunk = (await chunksOf(bytes))[1]!;
    const bad = bytes.slice();
    const view = new DataView(bad.buffer);
    view.setBigUint64(chunk.recordsAt - 8, 0n, true);
    view.setUint32(chunk.offset + 9 + 24, 0, true);
    const all = await read(bad);
    expect(all.damages).toEqual([{ offset: chunk.offset, reason: fewer(chunk.messages.length), lost: perTopic(chunk.messages) }]);
    expect(all.got).toEqual(messages.filter((m) => !chunk.messages.some((c) => c.time === m.time)));
    const onB = chunk.messages.filter((m) => m.topic === "/b");
    expect(onB.length).toBeGreaterThan(0);
    const b = await read(bad, { topics: ["/b"] });
    expect(b.damages).toEqual([{ offset: chunk.offset, reason: fewer(onB.length), lost: new Map([["/b", onB.length]]) }]);
    expect(b.got).toEqual(messages.filter((m) => m.topic === "/b" && !onB.some((c) => c.time === m.time)));
  });

  for (const [op, found] of [
    [0x80, "the record there has opcode 0x80, which no MCAP record has"],
    [0x05, "a Message record is there"],
  ] as const) {
    it(`indexed: a chunk whose opcode is 0x${op.toString(16).padStart(2, "0")} is not read as records: it is unreadable, with what its message indexes count`, async () => {
      const { bytes, messages } = await fixture();
      const chunk = (await chunksOf(bytes))[3]!;
      const bad = bytes.slice();
      bad[chunk.offset] = op;
      const r = await read(bad);
      expect(r.damages).toEqual([
        { offset: chunk.offset, reason: `the chunk is unreadable: the chunk index points to a Chunk record here, but ${found}`, lost: perTopic(chunk.messages) },
      ]);
      expect(r.got).toEqual(messages.filter((m) => !chunk.messages.some((c) => c.time === m.time)));
    });
  }

  it("indexed, written without message indexes: a chunk that loses its messages is named against the Statistics record's counts", async () => {
    const { bytes, messages } = await fixture({ messageIndex: false });
    const chunks = await chunksOf(bytes);
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    expect(reader.chunkIndexes.every((c) => c.messageIndexOffsets.size === 0)).toBe(true);
    const chunk = chunks[2]!;
    const r = await read(withZeroedBody(bytes, chunk));
    const n = chunk.messages.length;
    expect(r.damages).toEqual([
      {
        offset: chunks[0]!.offset,
        reason: `the Statistics record counts ${n} more messages on the topics read than the chunks hold: the records of a chunk written without message indexes (this is the first; nothing counts their messages one by one) are cut short or damaged`,
        lost: perTopic(chunk.messages),
      },
    ]);
    expect(r.got).toEqual(messages.filter((m) => !chunk.messages.some((c) => c.time === m.time)));
    expect((await read(bytes)).damages).toEqual([]);
  });
});

describe("MCAP messages whose log times lie outside their chunk's stated range", () => {
  const outside = (by: string, chunk: Chunk, rest: string): string =>
    `${by} says the chunk spans log times ${text(chunk.start)} to ${text(chunk.end)}, but ${rest}`;

  for (const sequential of [false, true]) {
    const how = sequential ? "sequential" : "indexed";
    const by = sequential ? "the chunk record" : "the chunk index";
    const suspect = sequential ? "the chunk's header" : "the index";

    it(`${how}: a message at 2^63 ns in a middle chunk is named once and delivered last, in log-time order`, async () => {
      const { bytes, messages } = await fixture();
      const chunk = (await chunksOf(bytes))[2]!;
      const hit = chunk.messages[1]!;
      const bad = withLogTime(bytes, chunk, hit.at, TOP);
      const r = await read(sequential ? withoutSummary(bad) : bad);
      expect(r.damages).toEqual([
        {
          offset: chunk.offset,
          reason: outside(by, chunk, `1 of its messages lies outside that range (at ${text(TOP)}): ${suspect} or its log time is damaged; it was delivered in log-time order`),
          lost: undefined,
        },
      ]);
      expect(r.got).toEqual([...messages.filter((m) => m.time !== hit.time), { topic: hit.topic, time: TOP }]);
    });

    it(`${how}: a message earlier than messages already delivered is named and skipped, so the output stays in log-time order`, async () => {
      const { bytes, messages } = await fixture();
      const chunk = (await chunksOf(bytes))[3]!;
      const hits = [chunk.messages[0]!, chunk.messages[2]!];
      let bad = withLogTime(bytes, chunk, hits[0]!.at, 8965n);
      bad = withLogTime(bad, chunk, hits[1]!.at, T0 + 1n);
      const r = await read(sequential ? withoutSummary(bad) : bad);
      expect(r.damages).toEqual([
        {
          offset: chunk.offset,
          reason: outside(
            by,
            chunk,
            `2 of its messages lie outside that range (the first at ${text(8965n)}): ${suspect} or their log times are damaged; 2 are earlier than messages already delivered and were skipped (delivering them would break log-time order)`,
          ),
          lost: perTopic(hits),
        },
      ]);
      expect(r.got).toEqual(messages.filter((m) => !hits.some((h) => h.time === m.time)));
      expect(sorted(r.got)).toBe(true);
    });

    it(`${how}: a message earlier than its range in the first chunk, before anything was delivered, is named and delivered first`, async () => {
      const { bytes, messages } = await fixture();
      const chunk = (await chunksOf(bytes))[0]!;
      const hit = chunk.messages[3]!;
      const bad = withLogTime(bytes, chunk, hit.at, 8965n);
      const r = await read(sequential ? withoutSummary(bad) : bad);
      expect(r.damages).toEqual([
        {
          offset: chunk.offset,
          reason: outside(by, chunk, `1 of its messages lies outside that range (at ${text(8965n)}): ${suspect} or its log time is damaged; it was delivered in log-time order`),
          lost: undefined,
        },
      ]);
      expect(r.got).toEqual([{ topic: hit.topic, time: 8965n }, ...messages.filter((m) => m.time !== hit.time)]);
    });
  }

  it("indexed: chunks held open by late messages stay within the memory bound; the late messages of chunks beyond it are skipped and counted", async () => {
    // 200-byte messages, about 10 to a chunk: the bound holds a few chunks' messages, not all.
    const { bytes, messages } = await fixture({ n: 80, size: 200, chunkSize: 2000 });
    const chunks = await chunksOf(bytes);
    expect(chunks.length).toBeGreaterThan(6);
    const limit = 8000;
    let bad = bytes;
    const hits = chunks.map((chunk, k) => {
      const hit = chunk.messages.at(-1)!;
      bad = withLogTime(bad, chunk, hit.at, TOP + BigInt(k));
      return { topic: hit.topic, time: TOP + BigInt(k), was: hit.time };
    });
    // Each chunk holds its messages' 200 bytes each; none is released before the end.
    let heldBytes = 0;
    const admitted = chunks.map((chunk) => {
      heldBytes += chunk.messages.length * 200;
      return heldBytes <= limit;
    });
    expect(admitted).toContain(true);
    expect(admitted).toContain(false);
    const r = await read(bad, { maxChunkBytes: limit });
    expect(r.indexed).toBe(true);
    expect(r.damages).toEqual(
      chunks.map((chunk, k) => ({
        offset: chunk.offset,
        reason: outside(
          "the chunk index",
          chunk,
          `1 of its messages lies outside that range (at ${text(TOP + BigInt(k))}): the index or its log time is damaged; ` +
            (admitted[k] === true ? "it was delivered in log-time order" : "it is later than the chunk's end and was skipped (holding the chunk until then would pass the memory bound)"),
        ),
        lost: admitted[k] === true ? undefined : new Map([[hits[k]!.topic, 1]]),
      })),
    );
    const kept = hits.filter((_, k) => admitted[k] === true).map(({ topic, time }) => ({ topic, time }));
    expect(r.got).toEqual([...messages.filter((m) => !hits.some((h) => h.was === m.time)), ...kept]);
  });

  it("indexed: a chunk held by a late message is released once it went out, so late messages in every chunk fit a bound of under three chunks", async () => {
    const { bytes, messages } = await fixture({ n: 80, size: 200, chunkSize: 2000 });
    const chunks = await chunksOf(bytes);
    expect(chunks.length).toBeGreaterThan(6);
    const largest = Math.max(...chunks.map((c) => c.messages.length * 200));
    let bad = bytes;
    // Each chunk's last message moved just after the next chunk's start: held one chunk longer.
    const moved = new Map<bigint, bigint>();
    for (const [k, chunk] of chunks.slice(0, -1).entries()) {
      const hit = chunk.messages.at(-1)!;
      moved.set(hit.time, chunks[k + 1]!.start + 1n);
      bad = withLogTime(bad, chunk, hit.at, chunks[k + 1]!.start + 1n);
    }
    const r = await read(bad, { maxChunkBytes: Math.floor(largest * 2.5) });
    expect(r.indexed).toBe(true);
    expect(r.damages).toEqual(
      chunks.slice(0, -1).map((chunk, k) => ({
        offset: chunk.offset,
        reason: outside(
          "the chunk index",
          chunk,
          `1 of its messages lies outside that range (at ${text(chunks[k + 1]!.start + 1n)}): the index or its log time is damaged; it was delivered in log-time order`,
        ),
        lost: undefined,
      })),
    );
    const expected = messages.map((m) => ({ topic: m.topic, time: moved.get(m.time) ?? m.time })).sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
    expect(r.got).toEqual(expected);
  });
});

describe.skipIf(!HAS_SHARED_DATA)("rosbag2's cdr_test_0.mcap, damaged as the fuzzing found (one uncompressed chunk at byte 42, CRC 0)", () => {
  const CHUNK = 42;
  const START = 1586406456763032325n;
  const END = 1586406456914169506n;
  const LOST = new Map([
    ["/test_topic", 3],
    ["/array_topic", 4],
  ]);
  const original = async (): Promise<Uint8Array> => new Uint8Array(await readFile(sharedRecording("rosbag2-upstream/mcap-cdr_test/cdr_test_0.mcap")));
  /** Where the chunk's records start: after its 9-byte prefix, 32 bytes of fields, no compression name and the records' length. */
  const RECORDS = CHUNK + 9 + 32 + 8;

  it("as written: 7 messages, no damage", async () => {
    const r = await read(await original());
    expect(r.damages).toEqual([]);
    expect(perTopic(r.got)).toEqual(LOST);
    expect(sorted(r.got)).toBe(true);
  });

  it("records length 0 (mc_9), chunk opcode 0x80 (mc_67), chunk body zeroed (mc_109): each is one damage losing the 7 messages", async () => {
    const bytes = await original();
    const mc9 = bytes.slice();
    new DataView(mc9.buffer).setBigUint64(RECORDS - 8, 0n, true);
    const mc67 = bytes.slice();
    mc67[CHUNK] = 0x80;
    const mc109 = bytes.slice();
    mc109.fill(0, CHUNK + 9, CHUNK + 9 + 6654);
    for (const [bad, reason] of [
      [mc9, fewer(7)],
      [mc67, "the chunk is unreadable: the chunk index points to a Chunk record here, but the record there has opcode 0x80, which no MCAP record has"],
      [mc109, fewer(7)],
    ] as const) {
      const r = await read(bad);
      expect(r.got).toEqual([]);
      expect(r.damages).toEqual([{ offset: CHUNK, reason, lost: LOST }]);
    }
  });

  it("one log time set to 8965 ns (mc_769), a Schema record's opcode made a Message's (mc_637): named, with the time outside the range", async () => {
    const bytes = await original();
    const mc769 = bytes.slice();
    const view = new DataView(mc769.buffer);
    // The first message record (after a Schema and a Channel record) is at byte 710.
    expect(mc769[710]).toBe(5);
    view.setBigUint64(710 + 9 + 6, 8965n, true);
    const mc637 = bytes.slice();
    expect(mc637[RECORDS]).toBe(3);
    mc637[RECORDS] = 5;
    const bogus = new DataView(mc637.buffer).getBigUint64(RECORDS + 9 + 6, true);
    expect(bogus > END).toBe(true);
    const range = `the chunk index says the chunk spans log times ${text(START)} to ${text(END)}, but 1 of its messages lies outside that range`;
    const r769 = await read(mc769);
    expect(r769.damages).toEqual([{ offset: CHUNK, reason: `${range} (at 0.000008965): the index or its log time is damaged; it was delivered in log-time order`, lost: undefined }]);
    expect(r769.got.length).toBe(7);
    expect(r769.got[0]!.time).toBe(8965n);
    const r637 = await read(mc637);
    expect(r637.damages).toEqual([{ offset: CHUNK, reason: `${range} (at ${text(bogus)}): the index or its log time is damaged; it was delivered in log-time order`, lost: undefined }]);
    expect(r637.got.length).toBe(8);
    expect(r637.got.at(-1)!.time).toBe(bogus);
  });
});
