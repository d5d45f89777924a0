import { crc32 as portableCrc32 } from "@foxglove/crc";
import zstd from "@foxglove/wasm-zstd";
import { McapIndexedReader, TempBuffer } from "@mcap/core";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ArrayByteSource } from "./ByteSource";
import type { ChunkWorker, CompressedRecords, CrcResult } from "./ChunkWorker";
import { RecordingError } from "./RecordingError";
import { ThreadChunkWorker } from "./ThreadChunkWorker";
import { FIRST_RECORD, OP_CHUNK as OP_CHUNK_BAG } from "./bagRecords";
import { loadDecompressors } from "./decompress";
import { openRecording } from "./openRecording";
import { bagDataLengthAt, bagFieldAt, bagRecordsFrom, writeBag } from "./testing/bagFixtures";
import { lz4StoredFrame } from "./testing/lz4Frame";
import { writeMcap, type FixtureChannel, type FixtureMessage } from "./testing/mcapFixtures";
import { OwnedReads } from "./testing/ownedReads";
import { HUSKY_BAG } from "./testing/paths";

const thread = new ThreadChunkWorker();
afterAll(async () => {
  await thread.close();
});

describe("ThreadChunkWorker", () => {
  it("gives the CRC-32 @mcap/core computes, and the same bytes back", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 70_000 }), async (data) => {
        const sent = data.slice();
        const { crc, bytes } = await thread.crc32(sent);
        expect(crc).toBe(portableCrc32(data));
        expect(bytes).toEqual(data);
        // The memory went to the thread and came back: the argument's view is detached.
        expect(sent.byteLength).toBe(0);
      }),
      { numRuns: 40 },
    );
  });

  it("answers requests made together, each with its own bytes", async () => {
    const inputs = Array.from({ length: 12 }, (_unused, k) => Uint8Array.from({ length: 1000 + k * 977 }, (_byte, i) => (i * 31 + k) & 0xff));
    const results = await Promise.all(inputs.map(async (data) => await thread.crc32(data.slice())));
    expect(results.map((r) => r.crc)).toEqual(inputs.map((d) => portableCrc32(d)));
    expect(results.map((r) => r.bytes)).toEqual(inputs);
  });

  it("rejects what is waiting when closed, and starts again on the next request", async () => {
    const worker = new ThreadChunkWorker();
    const waiting = expect(worker.crc32(new Uint8Array(1 << 20))).rejects.toThrow(/closed/);
    await worker.close();
    await waiting;
    const data = Uint8Array.of(1, 2, 3);
    expect((await worker.crc32(data.slice())).crc).toBe(portableCrc32(data));
    await worker.close();
  });

  it("rejects memory it cannot take (a view of part of a buffer) without losing later requests", async () => {
    const whole = new Uint8Array(64);
    await expect(thread.crc32(whole.subarray(8, 16))).rejects.toThrow();
    expect((await thread.crc32(Uint8Array.of(9).slice())).crc).toBe(portableCrc32(Uint8Array.of(9)));
  });
});

/** `records` compressed with `compression`, placed after `before` padding bytes, with room after. */
function handedOver(compressed: Uint8Array, before: number): { bytes: Uint8Array; offset: number } {
  const bytes = new Uint8Array(before + compressed.byteLength + 5);
  bytes.set(compressed, before);
  return { bytes, offset: before };
}

describe("ThreadChunkWorker.decompress", () => {
  const compressors: Record<string, (data: Uint8Array) => Uint8Array> = {
    zstd: (data) => new Uint8Array(zstd.compress(data, 1)),
    lz4: (data) => lz4StoredFrame(data),
  };

  it("gives what the reading thread's decompressor gives, its CRC-32, in memory of its own", async () => {
    await zstd.isLoaded;
    const decompressors = await loadDecompressors();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("zstd", "lz4"),
        fc.uint8Array({ minLength: 1, maxLength: 50_000 }),
        fc.nat(40),
        async (compression, data, before) => {
          const compressed = compressors[compression]!(data);
          const { bytes, offset } = handedOver(compressed, before);
          const expected = decompressors[compression]!(compressed, data.byteLength);
          const got = await thread.decompress(bytes, { compression, offset, length: compressed.byteLength, uncompressedSize: data.byteLength });
          expect(got.bytes).toEqual(expected);
          expect(got.bytes).toEqual(data);
          expect(got.crc).toBe(portableCrc32(data));
          expect(got.bytes.byteOffset === 0 && got.bytes.byteLength === got.bytes.buffer.byteLength).toBe(true);
          expect(bytes.byteLength).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("rejects records that do not decompress to their declared size, and answers the next request", async () => {
    await zstd.isLoaded;
    const data = Uint8Array.from({ length: 4000 }, (_unused, i) => (i * 7) & 0xff);
    const compressed = compressors.zstd!(data);
    const short = handedOver(compressed, 0);
    await expect(
      thread.decompress(short.bytes, { compression: "zstd", offset: 0, length: compressed.byteLength, uncompressedSize: 5000 }),
    ).rejects.toThrow(/declares 5000/);
    const garbage = Uint8Array.from({ length: 300 }, (_unused, i) => (i * 13 + 1) & 0xff);
    await expect(thread.decompress(garbage, { compression: "zstd", offset: 0, length: 300, uncompressedSize: 1000 })).rejects.toThrow();
    const good = handedOver(compressed, 3);
    const got = await thread.decompress(good.bytes, { compression: "zstd", offset: 3, length: compressed.byteLength, uncompressedSize: 4000 });
    expect(got.bytes).toEqual(data);
  });

  it("an lz4 frame cut short fails alone: the thread's next lz4 frames decompress", async () => {
    const data = Uint8Array.from({ length: 70_000 }, (_unused, i) => (i * 11) & 0xff);
    const frame = compressors.lz4!(data);
    const where = (length: number) => ({ compression: "lz4", offset: 0, length, uncompressedSize: data.byteLength });
    for (let i = 0; i < 3; i++) {
      const cut = handedOver(frame.subarray(0, 1000 + i), 0);
      await expect(thread.decompress(cut.bytes, where(1000 + i))).rejects.toThrow();
      const good = handedOver(frame, 0);
      expect((await thread.decompress(good.bytes, where(frame.byteLength))).bytes).toEqual(data);
    }
  });

  it("bz2 data that does not decompress rejects that request alone", async () => {
    const garbage = new Uint8Array(4000).fill(0x5a);
    garbage.set([0x42, 0x5a, 0x68, 0x39]); // "BZh9", then no valid block
    await expect(thread.decompress(garbage, { compression: "bz2", offset: 0, length: 4000, uncompressedSize: 9000 })).rejects.toThrow(/BZ2|bz2/);
    const data = Uint8Array.from({ length: 3000 }, (_unused, i) => i & 0xff);
    const compressed = compressors.lz4!(data);
    expect((await thread.decompress(compressed, { compression: "lz4", offset: 0, length: compressed.byteLength, uncompressedSize: 3000 })).bytes).toEqual(data);
  });

  it("refuses a compression it does not know and records outside the memory, before taking it", async () => {
    const bytes = new Uint8Array(100);
    await expect(thread.decompress(bytes, { compression: "brotli", offset: 0, length: 10, uncompressedSize: 10 })).rejects.toThrow(/brotli/);
    await expect(thread.decompress(bytes, { compression: "zstd", offset: 95, length: 10, uncompressedSize: 10 })).rejects.toThrow(/outside/);
    expect(bytes.byteLength).toBe(100);
  });

  it("with several threads, answers requests made together, each with its own records", async () => {
    await zstd.isLoaded;
    const pool = new ThreadChunkWorker({ threads: 3 });
    try {
      expect(pool.parallelism).toBe(3);
      const inputs = Array.from({ length: 10 }, (_unused, k) => Uint8Array.from({ length: 20_000 + k * 3001 }, (_byte, i) => (i * 31 + k) & 0xff));
      const results = await Promise.all(
        inputs.map(async (data, k) => {
          const compressed = compressors[k % 2 === 0 ? "zstd" : "lz4"]!(data);
          return await pool.decompress(compressed, {
            compression: k % 2 === 0 ? "zstd" : "lz4",
            offset: 0,
            length: compressed.byteLength,
            uncompressedSize: data.byteLength,
          });
        }),
      );
      expect(results.map((r) => r.bytes)).toEqual(inputs);
      expect(results.map((r) => r.crc)).toEqual(inputs.map((d) => portableCrc32(d)));
    } finally {
      await pool.close();
    }
  });
});

/** Counts the chunks handed over, so that a test knows which of the worker's paths was taken. */
class CountingChunkWorker implements ChunkWorker {
  public readonly parallelism: number;
  public readonly compressions: ReadonlySet<string>;
  public crcCalls = 0;
  public decompressCalls = 0;
  readonly #inner: ChunkWorker;

  public constructor(inner: ChunkWorker) {
    this.#inner = inner;
    this.parallelism = inner.parallelism;
    this.compressions = inner.compressions;
  }

  public get calls(): number {
    return this.crcCalls + this.decompressCalls;
  }

  public async crc32(bytes: Uint8Array): Promise<CrcResult> {
    this.crcCalls++;
    return await this.#inner.crc32(bytes);
  }

  public async decompress(bytes: Uint8Array, where: CompressedRecords): Promise<CrcResult> {
    this.decompressCalls++;
    return await this.#inner.decompress(bytes, where);
  }
}

/** A worker whose thread dies mid-request: it takes the memory, then fails. */
const dying: ChunkWorker = {
  parallelism: 2,
  compressions: new Set(["zstd", "lz4"]),
  crc32: async (b) => {
    structuredClone(b.buffer, { transfer: [b.buffer] });
    throw new Error("the chunk thread exited");
  },
  decompress: async (b) => {
    structuredClone(b.buffer, { transfer: [b.buffer] });
    throw new Error("the chunk thread exited");
  },
};

const CHANNELS: FixtureChannel[] = ["/big", "/small"].map((topic) => ({
  topic,
  schemaName: "test/Blob",
  schemaEncoding: "jsonschema",
  schema: "{}",
  messageEncoding: "json",
}));

/** 200 messages on two topics, the large ones 40 KiB of pseudo-random bytes (chunks of about 1 MiB). */
function largeChunkFixture(): FixtureMessage[] {
  let seed = 7;
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    return seed >>> 24;
  };
  return Array.from({ length: 200 }, (_, i) => ({
    channel: i % 3 === 0 ? 1 : 0,
    logTime: 1_000_000_000n + BigInt(i) * 10_000_000n,
    data: i % 3 === 0 ? Uint8Array.of(i & 0xff) : Uint8Array.from({ length: 40 * 1024 }, random),
  }));
}

interface Read {
  /** Topic, receive time, and the size and CRC of the data (cheaper to compare than the bytes). */
  readonly messages: { topic: string; time: string; size: number; crc: number }[];
  readonly damages: { offset: number | undefined; reason: string; lost: Record<string, number> }[];
}

async function readAll(
  bytes: Uint8Array,
  chunkWorker?: ChunkWorker,
  options: { owned?: boolean; maxChunkBytes?: number } = {},
): Promise<Read> {
  const source = options.owned === true ? new OwnedReads(bytes) : new ArrayByteSource(bytes);
  const recording = await openRecording(source, { chunkWorker, maxChunkBytes: options.maxChunkBytes });
  const messages: Read["messages"] = [];
  try {
    for await (const m of recording.messages({ decode: false })) {
      messages.push({ topic: m.topic, time: `${m.receiveTime.sec}.${m.receiveTime.nsec}`, size: m.data.byteLength, crc: portableCrc32(m.data) });
    }
  } catch (err) {
    if (!(err instanceof RecordingError)) {
      throw err;
    }
    return {
      messages,
      damages: err.damages.map((d) => ({ offset: d.offset, reason: d.reason, lost: Object.fromEntries(d.lost ?? []) })),
    };
  }
  return { messages, damages: [] };
}

describe("an indexed MCAP read with a ChunkWorker", () => {
  let file: Uint8Array;
  let chunkStarts: number[];
  beforeAll(async () => {
    await zstd.isLoaded;
    file = await writeMcap(CHANNELS, largeChunkFixture(), {
      chunkSize: 1 << 20,
      compress: (data) => ({ compression: "zstd", compressedData: new Uint8Array(zstd.compress(data, 1)) }),
    });
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(file) });
    chunkStarts = reader.chunkIndexes.map((c) => Number(c.chunkStartOffset));
  });

  // Sources that give their reads away (files) have whole chunks decompressed on the worker;
  // sources that lend views (memory) only have the CRCs checked there.
  for (const owned of [false, true]) {
    const path = owned ? "decompressed and checked" : "checked";
    const calls = (w: CountingChunkWorker): number => (owned ? w.decompressCalls : w.crcCalls);

    it(`delivers what the read on one thread delivers, every large chunk ${path} on the worker`, async () => {
      expect(chunkStarts.length).toBeGreaterThan(3);
      const alone = await readAll(file);
      const worker = new CountingChunkWorker(thread);
      const withWorker = await readAll(file, worker, { owned });
      expect(withWorker).toEqual(alone);
      expect(alone.messages.length).toBe(200);
      expect(alone.damages).toEqual([]);
      expect(calls(worker)).toBeGreaterThanOrEqual(chunkStarts.length - 1);
      expect(worker.calls).toBe(calls(worker));
    });

    it(`a chunk whose CRC does not match is skipped with the same damage report (${path} on the worker)`, async () => {
      const bad = file.slice();
      const crcAt = chunkStarts[2]! + 9 + 24; // opcode, length; start, end, size; then the CRC
      bad[crcAt] = bad[crcAt]! ^ 0x5a;
      const alone = await readAll(bad);
      expect(alone.damages.map((d) => d.offset)).toEqual([chunkStarts[2]]);
      expect(alone.damages[0]!.reason).toMatch(/^the chunk is unreadable: the chunk's CRC-32 is \d+ but its record says \d+: its bytes are damaged/);
      const worker = new CountingChunkWorker(thread);
      expect(await readAll(bad, worker, { owned })).toEqual(alone);
      expect(calls(worker)).toBeGreaterThan(0);
    });

    it(`a chunk that does not decompress is skipped with the same damage report (${path} on the worker)`, async () => {
      const bad = file.slice();
      // The middle of chunk 1's compressed records: zstd refuses it, or the CRC does.
      const at = Math.floor((chunkStarts[1]! + chunkStarts[2]!) / 2);
      for (let k = 0; k < 64; k++) {
        bad[at + k] = bad[at + k]! ^ 0xa5;
      }
      const alone = await readAll(bad);
      expect(alone.damages.map((d) => d.offset)).toEqual([chunkStarts[1]]);
      const worker = new CountingChunkWorker(thread);
      expect(await readAll(bad, worker, { owned })).toEqual(alone);
      expect(calls(worker)).toBeGreaterThan(0);
    });

    it(`when the worker fails, the chunks are read again and worked on the reading thread (${path})`, async () => {
      const bad = file.slice();
      const crcAt = chunkStarts[1]! + 9 + 24;
      bad[crcAt] = bad[crcAt]! ^ 0x01;
      const failing = new CountingChunkWorker(dying);
      const read = await readAll(bad, failing, { owned });
      expect(read).toEqual(await readAll(bad));
      expect(calls(failing)).toBeGreaterThan(0);
    });
  }

  it("a chunk declaring more than the bound is never handed over, and is reported as on one thread", async () => {
    expect((await boundedReads(file, 512 * 1024)).decompressCalls).toBe(0);
  });
});

describe("an MCAP file without its summary (a scan) with a ChunkWorker", () => {
  let file: Uint8Array;
  let chunkStarts: number[];
  beforeAll(async () => {
    await zstd.isLoaded;
    const whole = await writeMcap(CHANNELS, largeChunkFixture(), {
      chunkSize: 1 << 20,
      compress: (data) => ({ compression: "zstd", compressedData: new Uint8Array(zstd.compress(data, 1)) }),
    });
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(whole) });
    chunkStarts = reader.chunkIndexes.map((c) => Number(c.chunkStartOffset));
    // Cut where the summary starts, as a recorder that was killed leaves the file: no footer.
    file = whole.slice(0, Number(reader.footer.summaryStart));
  });

  it("delivers what the scan on one thread delivers, every large chunk decompressed on the worker", async () => {
    expect(chunkStarts.length).toBeGreaterThan(3);
    const alone = await readAll(file);
    expect(alone.messages.length).toBe(200);
    const worker = new CountingChunkWorker(thread);
    expect(await readAll(file, worker, { owned: true })).toEqual(alone);
    expect(worker.decompressCalls).toBeGreaterThanOrEqual(chunkStarts.length - 1);
  });

  it("chunks whose CRC does not match or that do not decompress are reported as on one thread", async () => {
    const bad = file.slice();
    const crcAt = chunkStarts[2]! + 9 + 24;
    bad[crcAt] = bad[crcAt]! ^ 0x5a;
    const at = Math.floor((chunkStarts[0]! + chunkStarts[1]!) / 2);
    for (let k = 0; k < 64; k++) {
      bad[at + k] = bad[at + k]! ^ 0xa5;
    }
    const alone = await readAll(bad);
    expect(alone.damages.map((d) => d.offset).slice(0, 2)).toEqual([chunkStarts[0], chunkStarts[2]]);
    const worker = new CountingChunkWorker(thread);
    expect(await readAll(bad, worker, { owned: true })).toEqual(alone);
    expect(worker.decompressCalls).toBeGreaterThan(0);
  });

  it("when the worker fails, the chunks are read again and worked on the reading thread", async () => {
    const failing = new CountingChunkWorker(dying);
    expect(await readAll(file, failing, { owned: true })).toEqual(await readAll(file));
    expect(failing.decompressCalls).toBeGreaterThan(0);
  });

  it("whatever bytes after the header are damaged, delivers and reports what the scan on one thread does", async () => {
    const worker = new CountingChunkWorker(thread);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ at: fc.integer({ min: chunkStarts[0]!, max: file.byteLength - 1 }), length: fc.integer({ min: 1, max: 16 }), mask: fc.integer({ min: 1, max: 255 }) }), { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (damage, nearChunkStarts) => {
          const bad = file.slice();
          for (const { at, length, mask } of damage) {
            // Half the runs damage the bytes around a chunk's start: its prefix and header, or the message indexes before it.
            const from = nearChunkStarts ? Math.max(chunkStarts[0]!, chunkStarts[at % chunkStarts.length]! - 40 + (at % 80)) : at;
            for (let k = from; k < Math.min(bad.byteLength, from + length); k++) {
              bad[k] = bad[k]! ^ mask;
            }
          }
          expect(await readAll(bad, worker, { owned: true })).toEqual(await readAll(bad));
        },
      ),
      { numRuns: 16 },
    );
    expect(worker.decompressCalls).toBeGreaterThan(0);
  });
});

// The embedded husky recording: 10 bz2 chunks written by rosbag; read through its index, and
// by a scan as a recorder that was killed leaves it (no index, index_pos 0).
describe.each([
  { read: "an indexed ROS 1 bag", noIndex: false },
  { read: "an unindexed ROS 1 bag (a scan)", noIndex: true },
])("$read with a ChunkWorker", ({ noIndex }) => {
  const original = new Uint8Array(readFileSync(HUSKY_BAG));
  const husky = noIndex ? withoutIndex(original) : original;
  const huskyChunks = bagChunkOffsets(husky);

  it("delivers what the read on one thread delivers, every bz2 chunk decompressed on the worker", async () => {
    expect(huskyChunks).toHaveLength(10);
    const alone = await readAll(husky);
    expect(alone.messages.length).toBe(16_806);
    expect(alone.damages).toEqual([]);
    const worker = new CountingChunkWorker(thread);
    expect(await readAll(husky, worker, { owned: true })).toEqual(alone);
    expect(worker.decompressCalls).toBe(10);
    // A source that lends views of its memory is never handed over: the chunk would be read twice.
    const lent = new CountingChunkWorker(thread);
    expect(await readAll(husky, lent)).toEqual(alone);
    expect(lent.calls).toBe(0);
  });

  it("a chunk that does not decompress, and a chunk header that is damaged, are reported as on one thread", async () => {
    const bad = husky.slice();
    // Chunk 2: bytes in the middle of its bz2 stream flipped; chunk 6: its header length impossible.
    const dataAt = bagDataLengthAt(bad, huskyChunks[2]!) + 4;
    for (let k = 0; k < 64; k++) {
      bad[dataAt + 5000 + k] = bad[dataAt + 5000 + k]! ^ 0xa5;
    }
    new DataView(bad.buffer).setUint32(huskyChunks[6]!, 2, true);
    const alone = await readAll(bad);
    expect(alone.damages.map((d) => d.offset)).toEqual([huskyChunks[2], huskyChunks[6]]);
    const worker = new CountingChunkWorker(thread);
    expect(await readAll(bad, worker, { owned: true })).toEqual(alone);
    // Every chunk but the one whose header lies (the reader reads what is left of it itself).
    expect(worker.decompressCalls).toBe(9);
  });

  it("when the worker fails, every chunk is read again and decompressed on the reading thread", async () => {
    const failing = new CountingChunkWorker({ ...dying, compressions: new Set(["bz2"]) });
    expect(await readAll(husky, failing, { owned: true })).toEqual(await readAll(husky));
    expect(failing.decompressCalls).toBe(10);
  });

  it("a chunk declaring more than the bound is never handed over, and is reported as on one thread", async () => {
    const { damaged, decompressCalls } = await boundedReads(husky, 64 * 1024);
    expect(decompressCalls).toBe(10 - damaged);
  });

  it("lz4 chunks stay on the reading thread (decompressing them costs less than handing them over)", async () => {
    await expectNoHandOver(lz4BlobBag({ noIndex }).bytes);
  });

  it("whatever bytes after the bag header are damaged, delivers and reports what the read on one thread does", async () => {
    const worker = new CountingChunkWorker(thread);
    const first = huskyChunks[0]!;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ at: fc.integer({ min: first, max: husky.byteLength - 1 }), length: fc.integer({ min: 1, max: 16 }), mask: fc.integer({ min: 1, max: 255 }) }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (damage, nearChunkStarts) => {
          const bad = husky.slice();
          for (const { at, length, mask } of damage) {
            // Half the runs damage the bytes around a chunk's start: its header, or the index data before it.
            const from = nearChunkStarts ? Math.max(first, huskyChunks[at % huskyChunks.length]! - 40 + (at % 80)) : at;
            for (let k = from; k < Math.min(bad.byteLength, from + length); k++) {
              bad[k] = bad[k]! ^ mask;
            }
          }
          expect(await readAll(bad, worker, { owned: true })).toEqual(await readAll(bad));
        },
      ),
      { numRuns: 16 },
    );
    expect(worker.decompressCalls).toBeGreaterThan(0);
  });
});

/** 60 messages of 3,000 bytes in lz4 chunks of 20. */
function lz4BlobBag(options: { noIndex: boolean }): { bytes: Uint8Array } {
  return writeBag(
    [{ topic: "/blob", type: "test/Blob", definition: "uint8[] data" }],
    Array.from({ length: 60 }, (_, i) => ({ conn: 0, sec: 100 + i, nsec: 0, data: Uint8Array.from({ length: 3000 }, (_unused, k) => (k * 31 + i) & 0xff) })),
    { perChunk: 20, noIndex: options.noIndex, compress: (data) => ({ compression: "lz4", data: lz4StoredFrame(data) }) },
  );
}

/** `bag` read with a worker delivers all 60 messages as without one, and hands the worker nothing. */
async function expectNoHandOver(bag: Uint8Array): Promise<void> {
  const worker = new CountingChunkWorker(thread);
  const read = await readAll(bag, worker, { owned: true });
  expect(read).toEqual(await readAll(bag));
  expect(read.messages.length).toBe(60);
  expect(worker.calls).toBe(0);
}

/** `bag` as a killed recorder leaves it: the index section cut off and index_pos 0 in the bag header. */
function withoutIndex(bag: Uint8Array): Uint8Array {
  const field = bagFieldAt(bag, FIRST_RECORD, "index_pos");
  const indexPos = Number(new DataView(bag.buffer, bag.byteOffset).getBigUint64(field, true));
  const cut = bag.slice(0, indexPos);
  cut.fill(0, field, field + 8);
  return cut;
}

/** Byte offsets of a bag's chunk records, in file order. */
function bagChunkOffsets(bytes: Uint8Array): number[] {
  return bagRecordsFrom(bytes, FIRST_RECORD).filter((at) => bytes[bagFieldAt(bytes, at, "op")] === OP_CHUNK_BAG);
}

/**
 * `file` read with `maxChunkBytes: limit` on one thread and with the worker: some chunks are over
 * the bound, and both reads deliver and report the same. How many chunks were damaged, and how
 * many the worker decompressed.
 */
async function boundedReads(file: Uint8Array, limit: number): Promise<{ damaged: number; decompressCalls: number }> {
  const alone = await readAll(file, undefined, { maxChunkBytes: limit });
  expect(alone.damages.length).toBeGreaterThan(0);
  expect(alone.damages[0]!.reason).toMatch(/more than the limit/);
  const worker = new CountingChunkWorker(thread);
  expect(await readAll(file, worker, { owned: true, maxChunkBytes: limit })).toEqual(alone);
  return { damaged: alone.damages.length, decompressCalls: worker.decompressCalls };
}
