import { crc32 as portableCrc32 } from "@foxglove/crc";
import zstd from "@foxglove/wasm-zstd";
import { McapRecordBuilder, McapStreamReader, type McapTypes } from "@mcap/core";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";

import { loadDecompressors, toMcapHandlers } from "./decompress";
import { isWholeChunkRecord, OPCODE_ZERO, readChunkRecord, timeAt, timeOf, type ChannelLookup } from "./mcapChunk";

// readChunkRecord reads chunks in place instead of through @mcap/core's stream reader; these
// tests hold it to the stream reader: the same messages, and each defect refused with the same
// facts (numbers, names), in Lockstep's words.

const SCHEMA: McapTypes.Schema = { id: 1, name: "test/Value", encoding: "ros1msg", data: new TextEncoder().encode("float64 value") };
const CHANNEL_A: McapTypes.Channel = { id: 1, schemaId: 1, topic: "/a", messageEncoding: "ros1", metadata: new Map() };
const CHANNEL_B: McapTypes.Channel = { id: 2, schemaId: 1, topic: "/b", messageEncoding: "ros1", metadata: new Map([["k", "v"]]) };

function message(channelId: number, i: number): McapTypes.Message {
  const logTime = 1_700_000_000_000_000_000n + BigInt(i) * 12_345_678n;
  return { channelId, sequence: i, logTime, publishTime: logTime + 7n, data: new Uint8Array([i, i + 1, i + 2, channelId]) };
}

/** Records written by @mcap/core. */
function records(write: (b: McapRecordBuilder) => void): Uint8Array {
  const builder = new McapRecordBuilder();
  write(builder);
  return builder.buffer.slice();
}

/** A chunk record of `inner` (CRC of `inner` unless given; compressed with zstd when asked). */
function chunkOf(inner: Uint8Array, options: { compression?: string; crc?: number } = {}): Uint8Array {
  const compression = options.compression ?? "";
  const builder = new McapRecordBuilder();
  builder.writeChunk({
    messageStartTime: 0n,
    messageEndTime: 0n,
    uncompressedSize: BigInt(inner.byteLength),
    uncompressedCrc: options.crc ?? portableCrc32(inner),
    compression,
    records: compression === "zstd" ? new Uint8Array(zstd.compress(inner, 3)) : inner,
  });
  return builder.buffer.slice();
}

/** What @mcap/core's stream reader gives for `chunk` after the records of `known`: its records, or its error. */
function streamed(chunk: Uint8Array, known: readonly McapTypes.Channel[], handlers: McapTypes.DecompressHandlers): McapTypes.TypedMcapRecord[] | string {
  const stream = new McapStreamReader({ noMagicPrefix: true, validateCrcs: true, decompressHandlers: handlers });
  stream.append(
    records((b) => {
      for (const c of known) {
        b.writeChannel(c);
      }
    }),
  );
  const out: McapTypes.TypedMcapRecord[] = [];
  try {
    stream.append(chunk);
    for (let r = stream.nextRecord(); r; r = stream.nextRecord()) {
      out.push(r);
    }
  } catch (err) {
    return (err as Error).message;
  }
  return out.slice(known.length);
}

function lookupOf(known: readonly McapTypes.Channel[], topics: readonly string[]): ChannelLookup {
  return { channels: new Map(known.map((c) => [c.id, c])), wants: (c) => topics.includes(c.topic) };
}

function thrown(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("it did not throw");
}

describe("readChunkRecord", () => {
  let handlers: McapTypes.DecompressHandlers;
  beforeAll(async () => {
    await zstd.isLoaded;
    handlers = toMcapHandlers(await loadDecompressors());
  });

  for (const compression of ["", "zstd"]) {
    it(`${compression || "uncompressed"}: the wanted messages as the stream reader parses them, definitions in record order`, () => {
      const inner = records((b) => {
        b.writeSchema(SCHEMA);
        b.writeChannel(CHANNEL_B);
        for (let i = 0; i < 20; i++) {
          b.writeMessage(message(i % 3 === 0 ? CHANNEL_B.id : CHANNEL_A.id, i));
        }
      });
      // A record of an opcode newer than the specification sits between the messages.
      const custom = new Uint8Array([0x80, 3, 0, 0, 0, 0, 0, 0, 0, 9, 9, 9]);
      const chunk = chunkOf(new Uint8Array([...inner, ...custom, ...records((b) => { b.writeMessage(message(CHANNEL_A.id, 99)); })]), { compression });
      expect(isWholeChunkRecord(chunk)).toBe(true);
      const byStream = streamed(chunk, [CHANNEL_A], handlers) as McapTypes.TypedMcapRecord[];
      const read = readChunkRecord(chunk, lookupOf([CHANNEL_A], ["/a"]), handlers);
      const expected = byStream.filter((r): r is McapTypes.TypedMcapRecords["Message"] => r.type === "Message" && r.channelId === CHANNEL_A.id);
      expect(expected.length).toBe(14);
      expect(read.messages.map((m) => m.channelId)).toEqual(expected.map((m) => m.channelId));
      expect(read.messages.map((m) => BigInt(m.time.sec) * 1_000_000_000n + BigInt(m.time.nsec))).toEqual(expected.map((m) => m.logTime));
      expect(read.messages.map((m) => BigInt(m.publishTime.sec) * 1_000_000_000n + BigInt(m.publishTime.nsec))).toEqual(expected.map((m) => m.publishTime));
      expect(read.messages.map((m) => [...m.data])).toEqual(expected.map((m) => [...m.data]));
      expect(read.definitions.map((d) => d.type)).toEqual(["Schema", "Channel"]);
      expect(read.definitions[1]).toEqual(byStream.find((r) => r.type === "Channel"));
      // Each message owns its bytes: changing the chunk afterwards changes none of them.
      const before = read.messages.map((m) => [...m.data]);
      chunk.fill(0);
      expect(read.messages.map((m) => [...m.data])).toEqual(before);
    });
  }

  it("a channel first recorded in the chunk is wanted or not by its topic", () => {
    const chunk = chunkOf(
      records((b) => {
        b.writeChannel(CHANNEL_B);
        for (const i of [1, 2, 3]) {
          b.writeMessage(message(CHANNEL_B.id, i));
        }
      }),
    );
    expect(readChunkRecord(chunk, lookupOf([], ["/b"]), handlers).messages.map((m) => m.data[0])).toEqual([1, 2, 3]);
    expect(readChunkRecord(chunk, lookupOf([], ["/a"]), handlers).messages).toEqual([]);
  });

  // Each defect, and the facts both readers name (besides every number the stream reader gives).
  const defects: [string, () => Uint8Array, readonly McapTypes.Channel[], RegExp][] = [
    [
      "a CRC that does not match",
      () => {
        const inner = records((b) => { b.writeMessage(message(CHANNEL_A.id, 1)); });
        const chunk = chunkOf(inner);
        chunk[chunk.length - 1] = chunk[chunk.length - 1]! ^ 0xff;
        return chunk;
      },
      [CHANNEL_A],
      /^the chunk's CRC-32 is \d+ but its record says \d+: its bytes are damaged$/,
    ],
    ["a compression nobody decompresses", () => chunkOf(records((b) => { b.writeMessage(message(CHANNEL_A.id, 1)); }), { compression: "brotli" }), [CHANNEL_A], /^the chunk is compressed with "brotli", which Lockstep does not decompress/],
    ["a Header record inside the chunk", () => chunkOf(records((b) => b.writeHeader({ profile: "", library: "x" }))), [CHANNEL_A], /^it holds a Header record, which a chunk may not hold$/],
    ["an Attachment index inside the chunk", () => chunkOf(records((b) => b.writeAttachmentIndex({ offset: 0n, length: 0n, logTime: 0n, createTime: 0n, dataSize: 0n, name: "a", mediaType: "b" }))), [], /^it holds an AttachmentIndex record, which a chunk may not hold$/],
    [
      "a record cut off at the end of the chunk",
      () => chunkOf(records((b) => { b.writeMessage(message(CHANNEL_A.id, 1)); }).subarray(0, 30)),
      [CHANNEL_A],
      /^its last \d+ bytes do not form a complete record$/,
    ],
    [
      "a channel record that differs from the known one of its id",
      () => chunkOf(records((b) => b.writeChannel({ ...CHANNEL_A, topic: "/other" }))),
      [CHANNEL_A],
      /^the Channel record for id 1 \(topic \/other\) differs from an earlier one of the same id$/,
    ],
    [
      "records longer than the chunk record",
      () => {
        const chunk = chunkOf(records((b) => { b.writeMessage(message(CHANNEL_A.id, 1)); }));
        const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        const at = 9 + 32; // after the fixed fields and the empty compression name
        view.setBigUint64(at, view.getBigUint64(at, true) + 1n, true);
        return chunk;
      },
      [CHANNEL_A],
      /^the chunk's records declare \d+ bytes, more than its record holds$/,
    ],
  ];
  for (const [what, make, known, sentence] of defects) {
    it(`${what}: refused, as the stream reader refuses it, with the same facts in Lockstep's words`, () => {
      const chunk = make();
      const reason = streamed(chunk, known, handlers);
      expect(typeof reason).toBe("string");
      const ours = thrown(() => readChunkRecord(chunk, lookupOf(known, ["/a", "/b"]), handlers));
      expect(ours).toMatch(sentence);
      expect(ours.match(/\d+/g) ?? []).toEqual(expect.arrayContaining((reason as string).match(/\d+/g) ?? []));
      expect(ours).not.toMatch(/\[no header\]|\[library=/);
    });
  }

  for (const compression of ["", "zstd"]) {
    it(`${compression || "uncompressed"}: messages on a channel no channel record defines are counted, the others delivered`, () => {
      const inner = records((b) => {
        for (let i = 0; i < 10; i++) {
          b.writeMessage(message(i % 4 === 1 ? 9 : CHANNEL_A.id, i));
        }
      });
      const chunk = chunkOf(inner, { compression });
      const read = readChunkRecord(chunk, lookupOf([CHANNEL_A], ["/a"]), handlers);
      expect(read.messages.map((m) => m.data[0])).toEqual([0, 2, 3, 4, 6, 7, 8]);
      const firstInRecords = records((b) => { b.writeMessage(message(CHANNEL_A.id, 0)); }).byteLength;
      const recordsAt = chunk.byteLength - inner.byteLength;
      expect(read.undefinedChannels).toEqual(
        new Map([[9, { count: 3, offset: compression === "" ? recordsAt + firstInRecords : undefined, inRecords: firstInRecords }]]),
      );
    });
  }

  it("zero bytes where records should be are refused (the stream reader would keep them as records)", () => {
    const chunk = chunkOf(new Uint8Array(9 * 1000));
    expect(thrown(() => readChunkRecord(chunk, lookupOf([], ["/a"]), handlers))).toBe(OPCODE_ZERO);
  });

  it("a message record too short for its fields is refused when wanted", () => {
    const short = new Uint8Array([0x05, 4, 0, 0, 0, 0, 0, 0, 0, CHANNEL_A.id, 0, 0, 0]);
    expect(thrown(() => readChunkRecord(chunkOf(short), lookupOf([CHANNEL_A], ["/a"]), handlers))).toMatch(/shorter than its 22 bytes of fields/);
  });

  it("isWholeChunkRecord: only exactly one chunk record", () => {
    const chunk = chunkOf(records((b) => { b.writeMessage(message(CHANNEL_A.id, 1)); }));
    expect(isWholeChunkRecord(chunk)).toBe(true);
    expect(isWholeChunkRecord(chunk.subarray(0, chunk.length - 1))).toBe(false);
    expect(isWholeChunkRecord(new Uint8Array([...chunk, 0]))).toBe(false);
    expect(isWholeChunkRecord(records((b) => b.writeChannel(CHANNEL_A)))).toBe(false);
    expect(isWholeChunkRecord(chunk.subarray(0, 5))).toBe(false);
  });
});

describe("timeAt", () => {
  it("reads any uint64 time as timeOf divides it", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.nat(8), (ns, at) => {
        const view = new DataView(new ArrayBuffer(at + 8));
        view.setBigUint64(at, ns, true);
        expect(timeAt(view, at)).toEqual(timeOf(ns));
      }),
      { numRuns: 2000 },
    );
    for (const ns of [0n, 999_999_999n, 1_000_000_000n, 2n ** 53n + 1n, 1_700_000_000_123_456_789n, 2n ** 64n - 1n]) {
      const view = new DataView(new ArrayBuffer(8));
      view.setBigUint64(0, ns, true);
      expect(timeAt(view, 0)).toEqual(timeOf(ns));
    }
  });
});
