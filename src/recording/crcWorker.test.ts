import { crc32 as portableCrc32 } from "@foxglove/crc";
import zstd from "@foxglove/wasm-zstd";
import { McapIndexedReader, TempBuffer } from "@mcap/core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ArrayByteSource } from "./ByteSource";
import type { CrcResult, CrcWorker } from "./CrcWorker";
import { RecordingError } from "./RecordingError";
import { ThreadCrcWorker } from "./ThreadCrcWorker";
import { openRecording } from "./openRecording";
import { writeMcap, type FixtureChannel, type FixtureMessage } from "./testing/mcapFixtures";

const thread = new ThreadCrcWorker();
afterAll(async () => {
  await thread.close();
});

describe("ThreadCrcWorker", () => {
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
    const worker = new ThreadCrcWorker();
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

/** Counts the chunks handed over, so that a test knows the worker's path was taken. */
class CountingCrcWorker implements CrcWorker {
  public calls = 0;
  readonly #inner: (bytes: Uint8Array) => Promise<CrcResult>;

  public constructor(inner: (bytes: Uint8Array) => Promise<CrcResult>) {
    this.#inner = inner;
  }

  public async crc32(bytes: Uint8Array): Promise<CrcResult> {
    this.calls++;
    return await this.#inner(bytes);
  }
}

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
  readonly damages: { offset: number; reason: string; lost: Record<string, number> }[];
}

async function readAll(bytes: Uint8Array, crcWorker?: CrcWorker): Promise<Read> {
  const recording = await openRecording(new ArrayByteSource(bytes), { crcWorker });
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

describe("an indexed MCAP read with a CrcWorker", () => {
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

  it("delivers what the read on one thread delivers, having handed every large chunk over", async () => {
    expect(chunkStarts.length).toBeGreaterThan(3);
    const alone = await readAll(file);
    const worker = new CountingCrcWorker(async (b) => await thread.crc32(b));
    const withWorker = await readAll(file, worker);
    expect(withWorker).toEqual(alone);
    expect(alone.messages.length).toBe(200);
    expect(alone.damages).toEqual([]);
    expect(worker.calls).toBeGreaterThanOrEqual(chunkStarts.length - 1);
  });

  it("a chunk whose CRC does not match is skipped with the same damage report, and reading goes on", async () => {
    const bad = file.slice();
    const crcAt = chunkStarts[2]! + 9 + 24; // opcode, length; start, end, size; then the CRC
    bad[crcAt] = bad[crcAt]! ^ 0x5a;
    const alone = await readAll(bad);
    expect(alone.damages.map((d) => d.offset)).toEqual([chunkStarts[2]]);
    expect(alone.damages[0]!.reason).toMatch(/Incorrect chunk CRC/);
    const worker = new CountingCrcWorker(async (b) => await thread.crc32(b));
    expect(await readAll(bad, worker)).toEqual(alone);
    expect(worker.calls).toBeGreaterThan(0);
  });

  it("when the worker fails, the chunks are read again and checked on the reading thread", async () => {
    const bad = file.slice();
    const crcAt = chunkStarts[1]! + 9 + 24;
    bad[crcAt] = bad[crcAt]! ^ 0x01;
    const failing = new CountingCrcWorker(async (b) => {
      // Takes the memory, as a thread that dies mid-request would, then fails.
      structuredClone(b.buffer, { transfer: [b.buffer] });
      throw new Error("the CRC thread exited");
    });
    const read = await readAll(bad, failing);
    expect(read).toEqual(await readAll(bad));
    expect(failing.calls).toBeGreaterThan(0);
  });
});
