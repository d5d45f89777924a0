import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ArrayByteSource } from "./ByteSource";
import { RecordingError } from "./RecordingError";
import { openRecording } from "./openRecording";
import { recordingFacts } from "./recordingFacts";
import {
  bagDataLengthAt,
  bagFieldAt,
  bagRecordsFrom,
  writeBag,
  type BagFixtureConnection,
  type BagFixtureMessage,
} from "./testing/bagFixtures";
import { lz4StoredFrame } from "./testing/lz4Frame";
import { ReadSizeProbe } from "./testing/readSizeProbe";
import type { RecordedMessage, Recording } from "./types";

const CONNECTIONS: BagFixtureConnection[] = [
  { topic: "/a", type: "test_msgs/Value", definition: "uint32 value" },
  { topic: "/b", type: "test_msgs/Value", definition: "uint32 value" },
];
/** 200 messages, alternating topics, 10 ms apart: 4 chunks of 50. */
const MESSAGES: BagFixtureMessage[] = [...Array(200).keys()].map((i) => ({
  conn: i % 2,
  sec: 100 + Math.floor(i / 100),
  nsec: (i % 100) * 10_000_000,
  data: Uint8Array.of(i & 0xff, 0, 0, 0),
}));

/** Reads everything (undecoded); returns what was delivered and the error that ended the read. */
async function drain(
  recording: Recording,
): Promise<{ messages: RecordedMessage[]; error?: RecordingError }> {
  const messages: RecordedMessage[] = [];
  try {
    for await (const m of recording.messages({ decode: false })) {
      messages.push(m);
    }
  } catch (error) {
    expect(error).toBeInstanceOf(RecordingError);
    return { messages, error: error as RecordingError };
  }
  return { messages };
}

function ns(m: RecordedMessage): bigint {
  return BigInt(m.receiveTime.sec) * 1_000_000_000n + BigInt(m.receiveTime.nsec);
}

function setU32(bytes: Uint8Array, at: number, value: number): void {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(at, value, true);
}

describe("an lz4 bag with a damaged chunk", () => {
  it("only that chunk is lost: the lz4 chunks after it decompress", async () => {
    // The second chunk's stored block is declared 64 bytes longer than it is: its frame runs on
    // into the next record, and the decompressor fails in the middle of it.
    const compress = (data: Uint8Array): { compression: string; data: Uint8Array } => ({ compression: "lz4", data: lz4StoredFrame(data) });
    const bag = writeBag(CONNECTIONS, MESSAGES, { compress });
    const bytes = bag.bytes.slice();
    const chunk = bag.chunks[1]!;
    const frameAt = bagDataLengthAt(bytes, chunk.offset) + 4;
    const view = new DataView(bytes.buffer);
    view.setUint32(frameAt + 7, (view.getUint32(frameAt + 7, true) + 64) >>> 0, true);
    const recording = await openRecording(new ArrayByteSource(bytes));
    expect(recording.info.indexed).toBe(true);
    const { messages, error } = await drain(recording);
    expect(error?.damages.map((d) => d.offset)).toEqual([chunk.offset]);
    expect(messages.length).toBe(MESSAGES.length - chunk.messages.length);
  });
});

describe("a bag chunk that parses but holds fewer messages than its chunk info counts", () => {
  const bag = writeBag(CONNECTIONS, MESSAGES);
  const chunk = bag.chunks[1]!;
  const lostText = (n: number): string =>
    `the index counts ${n} more message${n === 1 ? "" : "s"} on the topics read than the chunk holds: its data is cut short or damaged`;

  it("a data length of 0: the chunk's messages are one damage at its offset with the index's counts", async () => {
    const bad = bag.bytes.slice();
    setU32(bad, bagDataLengthAt(bad, chunk.offset), 0);
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.readPast).toBe(true);
    expect(error?.damages.map((d) => [d.offset, d.reason, Object.fromEntries(d.lost ?? [])])).toEqual([
      [chunk.offset, lostText(50), { "/a": 25, "/b": 25 }],
    ]);
    expect(messages.length).toBe(MESSAGES.length - 50);
  });

  it("a message record whose op was damaged into a connection record's: that message is named as lost", async () => {
    const bad = bag.bytes.slice();
    const dataStart = bagDataLengthAt(bad, chunk.offset) + 4;
    const records = bagRecordsFrom(bad, dataStart).filter((at) => at < chunk.end);
    const messageRecords = records.filter((at) => bad[bagFieldAt(bad, at, "op")] === 2);
    expect(messageRecords.length).toBe(50);
    // The third message of the chunk, on /a (the chunk's messages alternate /a, /b from /a).
    bad[bagFieldAt(bad, messageRecords[2]!, "op")] = 7;
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => [d.offset, d.reason, Object.fromEntries(d.lost ?? [])])).toEqual([
      [chunk.offset, lostText(1), { [CONNECTIONS[MESSAGES[chunk.messages[2]!]!.conn]!.topic]: 1 }],
    ]);
    expect(messages.length).toBe(MESSAGES.length - 1);
  });

  it("a record inside the chunk without an op field is named so (not as op undefined)", async () => {
    const bad = bag.bytes.slice();
    const dataStart = bagDataLengthAt(bad, chunk.offset) + 4;
    const record = bagRecordsFrom(bad, dataStart).filter((at) => at < chunk.end && bad[bagFieldAt(bad, at, "op")] === 2)[2]!;
    bad[bagFieldAt(bad, record, "op") - 2] = "q".charCodeAt(0); // "op=" becomes "oq="
    const { error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages).toHaveLength(1);
    expect(error?.damages[0]!.reason).toMatch(/^chunk data is corrupt: a record inside the chunk has no op field at byte \d+ of the decompressed chunk/);
  });

  it("a bag header record that is unreadable is damage at byte 13: cut off after the magic, or its op damaged", async () => {
    const magicOnly = bag.bytes.slice(0, 13);
    const cut = await drain(await openRecording(new ArrayByteSource(magicOnly)));
    expect(cut.messages).toEqual([]);
    expect(cut.error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [13, "the bag header record at byte 13 is unreadable (the file is truncated: a record starts here but the file ends at byte 13); the file was read sequentially instead"],
    ]);
    const badOp = bag.bytes.slice();
    badOp[bagFieldAt(badOp, 13, "op")] = 9;
    const scanned = await drain(await openRecording(new ArrayByteSource(badOp)));
    // Every message is read by the scan, which names the record it skipped there (once).
    expect(scanned.messages.length).toBe(MESSAGES.length);
    expect(scanned.error?.damages.map((d) => d.offset)).toEqual([13]);
    expect(scanned.error?.damages[0]!.reason).toBe("a record of op 9 stands where a bag has chunks, index data and connections; it was skipped");
  });

  it("an undamaged bag reports nothing", async () => {
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bag.bytes)));
    expect(error).toBeUndefined();
    expect(messages.length).toBe(MESSAGES.length);
  });
});

describe("a bag followed by bytes that are not part of it", () => {
  const bag = writeBag(CONNECTIONS, MESSAGES);

  it("the index is used, every message read, and the bytes after the index are named and ignored", async () => {
    for (const tail of [new Uint8Array(64).fill(0xff), bag.bytes]) {
      const bytes = new Uint8Array(bag.bytes.length + tail.length);
      bytes.set(bag.bytes);
      bytes.set(tail, bag.bytes.length);
      const recording = await openRecording(new ArrayByteSource(bytes));
      expect(recording.info.indexed).toBe(true);
      const { messages, error } = await drain(recording);
      expect(messages.map(ns)).toEqual((await drain(await openRecording(new ArrayByteSource(bag.bytes)))).messages.map(ns));
      expect(error?.readPast).toBe(true);
      expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
        [bag.bytes.length, `${tail.length} bytes after the bag's index, which ends at byte ${bag.bytes.length}, are not part of the bag (appended data?); they were ignored`],
      ]);
    }
  });

  it("a bag that ends with its index is no damage", async () => {
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bag.bytes)));
    expect(error).toBeUndefined();
    expect(messages.length).toBe(MESSAGES.length);
  });
});

describe("a bag whose length fields are 0xFFFFFFFF", () => {
  const bag = writeBag(CONNECTIONS, MESSAGES);
  const chunk = bag.chunks[1]!;

  it("names a chunk's header length as the unsigned 4294967295 and what the file holds after it", async () => {
    const bad = bag.bytes.slice();
    setU32(bad, chunk.offset, 0xffffffff);
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [
        chunk.offset,
        `the chunk is unreadable: record header length 4294967295 is impossible: it says 4294967295 bytes but the file has ${bad.length - chunk.offset - 4} after it (corrupt data)`,
      ],
    ]);
    expect(messages.length).toBe(MESSAGES.length - chunk.messages.length);
  });

  it("names a chunk's data length as 4294967295 and the bytes before the index, not a truncation", async () => {
    const bad = bag.bytes.slice();
    const at = bagDataLengthAt(bad, chunk.offset);
    setU32(bad, at, 0xffffffff);
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [
        chunk.offset,
        `the chunk is unreadable: record data length 4294967295 is impossible: the record here (op 5) says its data is 4294967295 bytes but only ${bag.indexPos - at - 4} lie between its header and the index at byte ${bag.indexPos} (corrupt data)`,
      ],
    ]);
    expect(messages.length).toBe(MESSAGES.length - chunk.messages.length);
  });

  it("names the data length of a record read without an index as 4294967295 and where the file ends; the chunk is read to the record after it", async () => {
    const unindexed = writeBag(CONNECTIONS, MESSAGES, { noIndex: true });
    const last = unindexed.chunks.at(-1)!;
    const bad = unindexed.bytes.slice();
    const at = bagDataLengthAt(bad, last.offset);
    setU32(bad, at, 0xffffffff);
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [
        last.offset,
        `the chunk's data length 4294967295 is damaged: it says the record ends at byte ${at + 4 + 0xffffffff}, but the file ends at byte ${bad.length}; the next record starts at byte ${last.end}; ` +
          "its data up to there read whole, so no message was lost, and reading resumed there",
      ],
    ]);
    expect(messages.length).toBe(MESSAGES.length);
  });

  it("a record cut off by the end of the file, nothing readable after it, is named as a truncation or a corrupt length", async () => {
    const unindexed = writeBag(CONNECTIONS, MESSAGES, { noIndex: true });
    const last = unindexed.chunks.at(-1)!;
    const cut = unindexed.bytes.slice(0, last.end - 10);
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(cut)));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [
        last.offset,
        `the file is truncated or this record's length is corrupt: the record here (op 5) says its data is ${last.end - bagDataLengthAt(cut, last.offset) - 4} bytes but the file has ${cut.length - bagDataLengthAt(cut, last.offset) - 4} after its header`,
      ],
    ]);
    expect(messages.length).toBe(MESSAGES.length - last.messages.length);
  });

  it("names the bag header's length as 4294967295 in the index problem", async () => {
    const bad = bag.bytes.slice();
    setU32(bad, 13, 0xffffffff);
    const recording = await openRecording(new ArrayByteSource(bad));
    expect(recording.info.indexProblem).toContain("record header length 4294967295 is impossible");
    const { messages, error } = await drain(recording);
    expect(error?.damages.map((d) => d.reason)).toEqual([
      expect.stringContaining("record header length 4294967295 is impossible"),
    ]);
    expect(messages.length).toBe(MESSAGES.length);
  });

  it("names the header and data lengths of a record inside a chunk as unsigned", async () => {
    const dataStart = bagDataLengthAt(bag.bytes, chunk.offset) + 4;
    // The chunk's first record is a message (its connections were defined by the first chunk).
    for (const [at, what] of [
      [dataStart, "record header length 4294967295"],
      [bagDataLengthAt(bag.bytes, dataStart), "record data length 4294967295"],
    ] as const) {
      const bad = bag.bytes.slice();
      setU32(bad, at, 0xffffffff);
      const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
      expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
        [chunk.offset, expect.stringContaining(`chunk data is corrupt: ${what} (`)],
      ]);
      expect(error?.message).not.toContain("-1");
      expect(messages.length).toBe(MESSAGES.length - chunk.messages.length);
    }
  });
});

describe("a bag whose index lies", () => {
  const bag = writeBag(CONNECTIONS, MESSAGES);
  const index = bagRecordsFrom(bag.bytes, bag.indexPos);
  const connectionRecords = index.slice(0, CONNECTIONS.length);
  const chunkInfos = index.slice(CONNECTIONS.length);

  it("a connection count of 0xFFFFFFFF is named with the count the index holds; every message is read, and the damage is reported", async () => {
    const bad = bag.bytes.slice();
    setU32(bad, bagFieldAt(bad, 13, "conn_count"), 0xffffffff);
    const recording = await openRecording(new ArrayByteSource(bad));
    const problem = `the index at byte ${bag.indexPos} is unreadable: the bag header says 4294967295 connections but the index holds 2; a chunk info record (op 6) follows them at byte ${chunkInfos[0]!}`;
    expect(recording.info.indexed).toBe(false);
    expect(recording.info.indexProblem).toBe(problem);
    const { messages, error } = await drain(recording);
    expect(messages.length).toBe(MESSAGES.length);
    expect(error?.readPast).toBe(true);
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [13, `${problem}; the file was read sequentially instead`],
    ]);
    const facts = await recordingFacts(await openRecording(new ArrayByteSource(bad)));
    expect(facts.messages).toBe(MESSAGES.length);
    expect(facts.damages.map((d) => d.offset)).toEqual([13]);
  });

  const cases: [string, (bad: Uint8Array) => void, number, string][] = [
    [
      "a chunk count of 0xFFFFFFFF",
      (bad) => { setU32(bad, bagFieldAt(bad, 13, "chunk_count"), 0xffffffff); },
      13,
      "the bag header says 4294967295 chunks but the index holds 4",
    ],
    [
      "a chunk count of 0",
      (bad) => { setU32(bad, bagFieldAt(bad, 13, "chunk_count"), 0); },
      13,
      `the bag header says 0 chunks but the index holds more (another at byte ${chunkInfos[0]!})`,
    ],
    [
      "a chunk info's connection count of 0xFFFFFFFF",
      (bad) => {
        setU32(bad, bagFieldAt(bad, chunkInfos[1]!, "count"), 0xffffffff);
      },
      chunkInfos[1]!,
      `the chunk info record at byte ${chunkInfos[1]!} says it lists 4294967295 connections (34359738360 bytes) but holds 16 bytes`,
    ],
    [
      "a chunk info's data length of 0",
      (bad) => {
        setU32(bad, bagDataLengthAt(bad, chunkInfos[1]!), 0);
      },
      chunkInfos[1]!,
      `the chunk info record at byte ${chunkInfos[1]!} says it lists 2 connections (16 bytes) but holds 0 bytes`,
    ],
    [
      "a chunk position of 2^63",
      (bad) => {
        new DataView(bad.buffer).setBigUint64(
          bagFieldAt(bad, chunkInfos[1]!, "chunk_pos"),
          2n ** 63n,
          true,
        );
      },
      chunkInfos[1]!,
      `the chunk info record at byte ${chunkInfos[1]!} points to byte 9223372036854775808, past the end of the file`,
    ],
    [
      "a connection record with no data",
      (bad) => {
        bad.fill(0, bagDataLengthAt(bad, connectionRecords[1]!) + 4, chunkInfos[0]);
      },
      connectionRecords[1]!,
      `the data of the connection record at byte ${connectionRecords[1]!} is unreadable: `,
    ],
  ];
  for (const [what, damage, offset, reason] of cases) {
    it(`${what} is named in Lockstep's words at its record; every message is read sequentially`, async () => {
      const bad = bag.bytes.slice();
      damage(bad);
      const recording = await openRecording(new ArrayByteSource(bad));
      expect(recording.info.indexProblem).toContain(
        `the index at byte ${bag.indexPos} is unreadable: ${reason}`,
      );
      const { messages, error } = await drain(recording);
      expect(messages.length).toBe(MESSAGES.length);
      expect(error?.damages.map((d) => d.offset)).toContain(offset);
    });
  }

  it("a chunk info whose start time is all 0xFF is index damage: the file is read sequentially, in receive-time order", async () => {
    const bad = bag.bytes.slice();
    bad.fill(0xff, bagFieldAt(bad, chunkInfos[0]!, "start_time"), bagFieldAt(bad, chunkInfos[0]!, "start_time") + 8);
    const recording = await openRecording(new ArrayByteSource(bad));
    expect(recording.info.indexed).toBe(false);
    expect(recording.info.indexProblem).toBe(
      `the index at byte ${bag.indexPos} is unreadable: the chunk info of the chunk at byte ${bag.chunks[0]!.offset} says it spans receive times 4294967295.4294967295 to 100.490000000, which is not a time range`,
    );
    const { messages, error } = await drain(recording);
    expect(messages.length).toBe(MESSAGES.length);
    expect(messages.every((m, i) => i === 0 || ns(m) >= ns(messages[i - 1]!))).toBe(true);
    expect(error?.damages.map((d) => d.offset)).toEqual([chunkInfos[0]]);
  });

  it("a chunk info whose start time is later than its chunk's first message: the chunk is named and every message delivered", async () => {
    const bad = bag.bytes.slice();
    // The first chunk claims to start at its last message (100.49 s): 49 of its messages lie before.
    const start = bagFieldAt(bad, chunkInfos[0]!, "start_time");
    bad.copyWithin(start, bagFieldAt(bad, chunkInfos[0]!, "end_time"), bagFieldAt(bad, chunkInfos[0]!, "end_time") + 8);
    const recording = await openRecording(new ArrayByteSource(bad));
    expect(recording.info.indexed).toBe(true);
    const { messages, error } = await drain(recording);
    expect(messages.length).toBe(MESSAGES.length);
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [
        bag.chunks[0]!.offset,
        "the index says the chunk spans receive times 100.490000000 to 100.490000000, but 49 of its messages lie outside that range (the first at 100.000000000): " +
          "the index is damaged, so these messages may have been delivered out of receive-time order (rosbag reindex rebuilds the index)",
      ],
    ]);
  });
});

describe("a bag record larger than the read limit", () => {
  /** The second chunk's messages are larger: it alone exceeds a limit just under its size. */
  const messages: BagFixtureMessage[] = MESSAGES.map((m, i) =>
    i >= 50 && i < 100 ? { ...m, data: new Uint8Array(200).fill(i) } : m,
  );
  /** Receive time and first byte of each message delivered, in order. */
  const delivered = (got: readonly RecordedMessage[]): string[] => got.map((m) => `${m.receiveTime.sec}.${m.receiveTime.nsec}:${m.data[0]!}`);
  /** The same for the messages written outside chunk `skipped`. */
  const written = (skipped: { messages: number[] }): string[] =>
    messages.filter((_, i) => !skipped.messages.includes(i)).map((m) => `${m.sec}.${m.nsec}:${m.data[0]!}`);
  /** The bytes a read may ask for beyond the limit: a record header, a block of the index. */
  const SLACK = 8192;
  const dataLength = (bytes: Uint8Array, pos: number): number =>
    new DataView(bytes.buffer, bytes.byteOffset).getUint32(bagDataLengthAt(bytes, pos), true);
  const tooLarge = (n: number, limit: number): string =>
    `the chunk is unreadable: the chunk record here holds ${n} bytes, more than the limit of ${limit} (a damaged length or an unusually large chunk; raise the limit with --max-chunk-size if the recording is genuine)`;

  for (const [compression, compress] of [
    ["uncompressed", undefined],
    ["lz4", (data: Uint8Array) => ({ compression: "lz4", data: lz4StoredFrame(data) })],
  ] as const) {
    it(`${compression}, indexed: the chunk is never read; it is one damage at its offset with the index's counts, every other chunk is delivered in order`, async () => {
      const bag = writeBag(CONNECTIONS, messages, { compress });
      const big = bag.chunks[1]!;
      const stored = dataLength(bag.bytes, big.offset);
      const limit = stored - 1;
      expect(bag.chunks.filter((c) => dataLength(bag.bytes, c.offset) > limit)).toEqual([big]);
      const source = new ReadSizeProbe(bag.bytes);
      const recording = await openRecording(source, { maxChunkBytes: limit });
      expect(recording.info.indexed).toBe(true);
      const { messages: got, error } = await drain(recording);
      expect(error?.damages).toEqual([{ offset: big.offset, reason: tooLarge(stored, limit), lost: new Map([["/a", 25], ["/b", 25]]) }]);
      expect(delivered(got)).toEqual(written(big));
      expect(source.largestRead).toBeLessThanOrEqual(limit + SLACK);
    });
  }

  it("read sequentially: the chunk is never read; it is one damage at its offset, and the chunks after it are delivered", async () => {
    const bag = writeBag(CONNECTIONS, messages, { noIndex: true });
    const big = bag.chunks[1]!;
    const stored = dataLength(bag.bytes, big.offset);
    const source = new ReadSizeProbe(bag.bytes);
    const { messages: got, error } = await drain(await openRecording(source, { maxChunkBytes: stored - 1 }));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([[big.offset, tooLarge(stored, stored - 1)]]);
    expect(delivered(got)).toEqual(written(big));
    expect(source.largestRead).toBeLessThanOrEqual(stored - 1 + SLACK);
  });

  it("a connection record of the index larger than the limit is not read: the index is named, in the same words", async () => {
    const bag = writeBag(CONNECTIONS, MESSAGES);
    const connection = bagRecordsFrom(bag.bytes, bag.indexPos)[0]!;
    const stored = dataLength(bag.bytes, connection);
    const source = new ReadSizeProbe(bag.bytes);
    const recording = await openRecording(source, { maxChunkBytes: stored - 1 });
    expect(recording.info.indexProblem).toBe(
      `the index at byte ${bag.indexPos} is unreadable: the data of the connection record at byte ${connection} is unreadable: the connection record here holds ${stored} bytes, more than the limit of ${stored - 1} (a damaged length or an unusually large record; raise the limit with --max-chunk-size if the recording is genuine)`,
    );
    expect(source.largestRead).toBeLessThanOrEqual(stored - 1 + SLACK);
  });

  it("an index larger than the limit is not read: the index is named, and the file read sequentially", async () => {
    const bag = writeBag(CONNECTIONS, MESSAGES);
    const limit = dataLength(bag.bytes, bag.chunks[0]!.offset);
    const indexBytes = bag.bytes.length - bag.indexPos;
    // Zeros after the chunk infos: the index section, which is read whole, exceeds the limit.
    const grown = new Uint8Array(bag.bytes.length + limit);
    grown.set(bag.bytes);
    const source = new ReadSizeProbe(grown);
    const recording = await openRecording(source, { maxChunkBytes: limit });
    expect(recording.info.indexed).toBe(false);
    expect(recording.info.indexProblem).toBe(
      `the index section at byte ${bag.indexPos} holds ${indexBytes + limit} bytes, more than the limit of ${limit} (a damaged length or an unusually large index; raise the limit with --max-chunk-size if the recording is genuine)`,
    );
    expect(source.largestRead).toBeLessThanOrEqual(limit + SLACK);
  });

  it("a chunk data length of 0xFFFFFFFF in a 5 GiB file, before its index: refused unread, the other chunks delivered", async () => {
    const bag = writeBag(CONNECTIONS, MESSAGES);
    const chunk = bag.chunks[1]!;
    // The bag as a 5 GiB file: its chunks, zeros, then its index.
    const indexAt = 5 * 2 ** 30;
    const head = bag.bytes.slice(0, bag.indexPos);
    new DataView(head.buffer).setBigUint64(bagFieldAt(head, 13, "index_pos"), BigInt(indexAt), true);
    setU32(head, bagDataLengthAt(head, chunk.offset), 0xffffffff);
    const source = new ReadSizeProbe(
      [{ at: 0, bytes: head }, { at: indexAt, bytes: bag.bytes.subarray(bag.indexPos) }],
      indexAt + bag.bytes.length - bag.indexPos,
    );
    const recording = await openRecording(source);
    expect(recording.info.indexed).toBe(true);
    const { messages: got, error } = await drain(recording);
    expect(error?.damages).toEqual([
      { offset: chunk.offset, reason: tooLarge(0xffffffff, 64 * 1024 * 1024), lost: new Map([["/a", 25], ["/b", 25]]) },
    ]);
    expect(got.length).toBe(MESSAGES.length - chunk.messages.length);
    expect(source.largestRead).toBeLessThanOrEqual(SLACK);
  });
});

describe("a bag read without an index whose chunk's data length is damaged", () => {
  /** 200 messages, 25 to a chunk: 8 chunks. */
  const PER_CHUNK = 25;
  const dataLength = (bytes: Uint8Array, pos: number): number =>
    new DataView(bytes.buffer, bytes.byteOffset).getUint32(bagDataLengthAt(bytes, pos), true);
  /** Receive time and first byte of each message, in order. */
  const delivered = (got: readonly RecordedMessage[]): string[] => got.map((m) => `${m.receiveTime.sec}.${m.receiveTime.nsec}:${m.data[0]!}`);
  const written = (indices: readonly number[]): string[] =>
    indices.map((i) => MESSAGES[i]!).map((m) => `${m.sec}.${m.nsec}:${m.data[0]!}`);
  const compressions = [
    ["uncompressed", undefined],
    ["lz4", (data: Uint8Array) => ({ compression: "lz4", data: lz4StoredFrame(data) })],
  ] as const;

  for (const [compression, compress] of compressions) {
    const bag = writeBag(CONNECTIONS, MESSAGES, { noIndex: true, perChunk: PER_CHUNK, compress });
    const chunk = bag.chunks[1]!;
    const stored = dataLength(bag.bytes, chunk.offset);
    const fourth = bag.chunks[3]!;
    /** Each damaged length, and where the record after the chunk really starts relative to where it says. */
    const cases: [string, number][] = [
      ["a few bytes too large", stored + 3],
      ["a few KiB too large", stored + 3000],
      ["pointing into the middle of the fourth chunk", Math.floor((fourth.offset + fourth.end) / 2) - (bagDataLengthAt(bag.bytes, chunk.offset) + 4)],
      ["pointing at the start of the fourth chunk", fourth.offset - (bagDataLengthAt(bag.bytes, chunk.offset) + 4)],
      ["pointing at the third chunk's index data", bag.chunks[2]!.end - (bagDataLengthAt(bag.bytes, chunk.offset) + 4)],
      ["too small", stored - 10],
    ];
    for (const [what, length] of cases) {
      it(`${compression}, ${what}: every message is delivered in order, the chunk is one damage naming where reading resumed`, async () => {
        expect(bag.chunks.length).toBe(8);
        const bad = bag.bytes.slice();
        setU32(bad, bagDataLengthAt(bad, chunk.offset), length);
        const claimed = bagDataLengthAt(bad, chunk.offset) + 4 + length;
        const { messages: got, error } = await drain(await openRecording(new ArrayByteSource(bad)));
        expect(delivered(got)).toEqual(written(MESSAGES.map((_, i) => i)));
        const off = claimed > chunk.end ? `${claimed - chunk.end} bytes before` : `${chunk.end - claimed} bytes after`;
        const there = claimed > chunk.end && bag.chunks.some((c) => c.offset === claimed || c.end === claimed) ? "a later record" : "no record";
        expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
          [
            chunk.offset,
            `the chunk's data length ${length} is damaged: it says the record ends at byte ${claimed}, where ${there} starts; the next record starts at byte ${chunk.end}, ${off} that; ` +
              "its data up to there read whole, so no message was lost, and reading resumed there",
          ],
        ]);
      });
    }

    it(`${compression}: a length damaged by any amount loses no message of another chunk, and is one damage at the chunk`, async () => {
      const tenChunks = writeBag(CONNECTIONS, MESSAGES, { noIndex: true, perChunk: 20, compress });
      const { bytes, chunks } = tenChunks;
      /** Where records start: a damaged length pointing exactly there is the hard case. */
      const starts = chunks.flatMap((c) => [c.offset, c.end]);
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: chunks.length - 1 }),
          fc.oneof(
            fc.integer({ min: -64, max: 64 }).map((delta) => ({ delta })),
            fc.integer({ min: -bytes.length, max: bytes.length }).map((delta) => ({ delta })),
            fc.constantFrom(...starts).map((pointAt) => ({ pointAt })),
          ),
          async (k, change) => {
            const damaged = chunks[k]!;
            const at = bagDataLengthAt(bytes, damaged.offset);
            const original = dataLength(bytes, damaged.offset);
            const length = "pointAt" in change ? change.pointAt - (at + 4) : original + change.delta;
            fc.pre(length >= 0 && length !== original && at + 4 + length <= 0xffffffff);
            const bad = bytes.slice();
            setU32(bad, at, length);
            const { messages: got, error } = await drain(await openRecording(new ArrayByteSource(bad)));
            const others = chunks.flatMap((c, i) => (i === k ? [] : c.messages));
            const ofOthers = new Set(written(others));
            expect(delivered(got).filter((m) => ofOthers.has(m))).toEqual(written(others));
            expect(delivered(got).filter((m) => !ofOthers.has(m))).toEqual(written(damaged.messages).slice(0, got.length - others.length));
            expect(error?.damages.map((d) => d.offset)).toEqual([damaged.offset]);
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  it("a chunk damaged inside but whose length is right is one damage; reading goes on after it", async () => {
    const bag = writeBag(CONNECTIONS, MESSAGES, { noIndex: true, perChunk: PER_CHUNK });
    const chunk = bag.chunks[1]!;
    const bad = bag.bytes.slice();
    // The header length of the chunk's 10th record: its records from there on do not parse.
    let record = bagDataLengthAt(bad, chunk.offset) + 4;
    for (let i = 0; i < 9; i++) {
      record = bagDataLengthAt(bad, record) + 4 + new DataView(bad.buffer).getUint32(bagDataLengthAt(bad, record), true);
    }
    setU32(bad, record, 0xfffffff0);
    const { messages: got, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [chunk.offset, expect.stringMatching(/^chunk data is corrupt: record header length 4294967280 \(\d+ bytes remain\) at byte \d+ of the decompressed chunk \(its later records are lost\)$/)],
    ]);
    expect(delivered(got)).toEqual(written(MESSAGES.map((_, i) => i).filter((i) => !chunk.messages.slice(9).includes(i))));
  });

  it("a chunk whose header is unreadable is one damage saying where reading resumed and how many bytes were skipped", async () => {
    const bag = writeBag(CONNECTIONS, MESSAGES, { noIndex: true, perChunk: PER_CHUNK });
    const chunk = bag.chunks[1]!;
    const bad = bag.bytes.slice();
    setU32(bad, chunk.offset, 0);
    const { messages: got, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [
        chunk.offset,
        `record header length 0 is impossible: a header holds at least its "op" field (corrupt data); reading resumed at the next record, byte ${chunk.end} (${chunk.end - chunk.offset} bytes skipped)`,
      ],
    ]);
    expect(delivered(got)).toEqual(written(MESSAGES.map((_, i) => i).filter((i) => !chunk.messages.includes(i))));
  });

  it("an index data record whose header is unreadable is named itself, not as a damaged length of the chunk before it", async () => {
    const bag = writeBag(CONNECTIONS, MESSAGES, { noIndex: true, perChunk: PER_CHUNK });
    const indexData = bag.chunks[1]!.end;
    const next = bagDataLengthAt(bag.bytes, indexData) + 4 + dataLength(bag.bytes, indexData);
    const bad = bag.bytes.slice();
    setU32(bad, indexData, 0);
    const { messages: got, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [
        indexData,
        `record header length 0 is impossible: a header holds at least its "op" field (corrupt data); reading resumed at the next record, byte ${next} (${next - indexData} bytes skipped)`,
      ],
    ]);
    expect(delivered(got)).toEqual(written(MESSAGES.map((_, i) => i)));
  });

  it("an uncompressed chunk whose length points at one of its own connection records: reading resumes after the chunk, not inside it", async () => {
    const bag = writeBag(CONNECTIONS, MESSAGES, { noIndex: true, perChunk: PER_CHUNK });
    // The first chunk opens with the connection records of /a and /b, then messages.
    const chunk = bag.chunks[0]!;
    const dataStart = bagDataLengthAt(bag.bytes, chunk.offset) + 4;
    const secondConnection = bagDataLengthAt(bag.bytes, dataStart) + 4 + new DataView(bag.bytes.buffer).getUint32(bagDataLengthAt(bag.bytes, dataStart), true);
    const bad = bag.bytes.slice();
    setU32(bad, bagDataLengthAt(bad, chunk.offset), secondConnection - dataStart);
    const { messages: got, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => d.offset)).toEqual([chunk.offset]);
    expect(error?.damages[0]!.reason).toContain(`the next record starts at byte ${chunk.end}`);
    expect(delivered(got)).toEqual(written(MESSAGES.map((_, i) => i)));
  });
});

describe("reading a bag's chunks", () => {
  it("costs two reads a chunk: its record header (one read holds it) and its data", async () => {
    const { bytes, chunks } = writeBag(CONNECTIONS, MESSAGES);
    const file = new ArrayByteSource(bytes);
    let reads = 0;
    const counted = {
      size: file.size,
      read: async (offset: number, length: number): Promise<Uint8Array> => {
        reads++;
        return await file.read(offset, length);
      },
    };
    const recording = await openRecording(counted);
    reads = 0;
    const { messages, error } = await drain(recording);
    expect(error).toBeUndefined();
    expect(messages).toHaveLength(MESSAGES.length);
    expect(chunks.length).toBe(4);
    expect(reads).toBe(2 * chunks.length);
  });
});
