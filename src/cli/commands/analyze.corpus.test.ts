import { parse } from "@foxglove/rosmsg";
import { MessageWriter as Ros1Writer } from "@foxglove/rosmsg-serialization";
import zstd from "@foxglove/wasm-zstd";
import { McapIndexedReader, TempBuffer } from "@mcap/core";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runAnalyze, type AnalyzeResult } from "./analyze";
import { parseConfig } from "../../pipeline";
import { writeBag, type BagFixture, type BagFixtureConnection, type BagFixtureMessage } from "../../recording/testing/bagFixtures";
import { writeMcap, type FixtureChannel, type FixtureMessage } from "../../recording/testing/mcapFixtures";
import { CliError } from "../CliError";

// A bad-input corpus made here, from small recordings written by the tests' own writers: every
// input is analyzed in-process (one pipeline run each), and every run must end with an exit code,
// whole outputs, errors that name an offset or a topic, and every message accounted for.

const DEF = `Header header
float64 value
================================================================================
MSG: std_msgs/Header
uint32 seq
time stamp
string frame_id`;

const N = 240;
const T0 = 1_700_000_000;
const writer = new Ros1Writer(parse(DEF));

function messageAt(i: number): BagFixtureMessage {
  const ns = i * 10_000_000;
  const sec = T0 + Math.floor(ns / 1e9);
  const nsec = ns % 1e9;
  // header stamp 1 ms before the receive time
  const stampNs = nsec >= 1_000_000 ? nsec - 1_000_000 : nsec;
  return {
    conn: i % 2,
    sec,
    nsec,
    data: writer.writeMessage({ header: { seq: i, stamp: { sec, nsec: stampNs }, frame_id: "f" }, value: i }),
  };
}

const MESSAGES = [...Array(N).keys()].map(messageAt);
const CONNECTIONS: BagFixtureConnection[] = [
  { topic: "/a", type: "test_msgs/Value", definition: DEF },
  { topic: "/b", type: "test_msgs/Value", definition: DEF },
];
const CONFIG = parseConfig({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: { type: "fkie/approximate-time", maxQueueSize: 5 } });

const HAS_BZIP2 = spawnSync("bzip2", ["--help"]).error == undefined;
const HAS_LZ4 = spawnSync("lz4", ["--help"]).error == undefined;

function bzip2(data: Uint8Array): Uint8Array {
  return new Uint8Array(spawnSync("bzip2", ["-c", "-9"], { input: data, maxBuffer: 1 << 30 }).stdout);
}

function lz4(data: Uint8Array): Uint8Array {
  return new Uint8Array(spawnSync("lz4", ["-c", "-9", "-BD", "--no-frame-crc"], { input: data, maxBuffer: 1 << 30 }).stdout);
}

interface Outcome {
  readonly result?: AnalyzeResult;
  readonly exitCode: 0 | 1 | 2;
  readonly message: string;
  readonly messagesRead: number;
}

interface Summary {
  topics: Record<string, { messages: number }>;
  tuples: number;
  drops: Record<string, number>;
  heldAtEnd: number[];
  errors: string[];
}

let dir: string;
let runs = 0;
const tally = new Map<string, number>();

/** Analyzes `bytes` in-process and checks what every run must satisfy, whatever the input. */
async function analyzeBytes(bytes: Uint8Array, kind: string, options: { maxChunkBytes?: number } = {}): Promise<Outcome> {
  const file = join(dir, `input-${runs}.bin`);
  const out = join(dir, `out-${runs}`);
  runs += 1;
  await writeFile(file, bytes);
  let result: AnalyzeResult | undefined;
  let exitCode: 0 | 1 | 2 = 0;
  let message = "";
  try {
    result = await runAnalyze({ file, config: CONFIG, out, progress: false, maxChunkBytes: options.maxChunkBytes });
    exitCode = result.errors.length > 0 ? 1 : 0;
    message = result.errors.join("\n");
  } catch (err) {
    // Anything but a CliError would be a crash.
    expect(err).toBeInstanceOf(CliError);
    exitCode = (err as CliError).exitCode;
    message = (err as CliError).message;
  }
  expect(message).not.toMatch(/\n\s+at /); // never a stack trace
  tally.set(`${kind}: exit ${exitCode}`, (tally.get(`${kind}: exit ${exitCode}`) ?? 0) + 1);
  let messagesRead = 0;
  if (result) {
    // Whole outputs: summary.json parses and agrees with the line files.
    const summary = JSON.parse(await readFile(join(out, "summary.json"), "utf8")) as Summary;
    const tuples = (await readFile(join(out, "tuples.jsonl"), "utf8")).split("\n").filter((l) => l !== "");
    const drops = (await readFile(join(out, "drops.jsonl"), "utf8"))
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { reason: string; stage: string; count?: number });
    expect(tuples.length).toBe(summary.tuples);
    for (const l of tuples) {
      expect((JSON.parse(l) as { stamps: unknown[] }).stamps).toHaveLength(2);
    }
    expect(summary.errors).toEqual(result.errors);
    // Accounting: every message read is a tuple member, a drop, or held.
    messagesRead = Object.values(summary.topics).reduce((n, t) => n + t.messages, 0);
    const dropped = drops.filter((d) => d.stage === "sync").length;
    const held = summary.heldAtEnd.reduce((a, b) => a + b, 0);
    expect(summary.tuples * 2 + dropped + held).toBe(messagesRead);
    const { ["unreadable-chunk"]: lost = 0, ...syncDrops } = summary.drops;
    expect(Object.values(syncDrops).reduce((a, b) => a + b, 0)).toBe(dropped);
    expect(drops.filter((d) => d.reason === "unreadable-chunk").reduce((n, d) => n + d.count!, 0)).toBe(lost);
    // Every error names a byte offset or a topic.
    for (const e of result.errors) {
      expect(e).toMatch(/byte offset \d+|^\/[ab]:/);
    }
  } else {
    expect(message).toMatch(/byte offset \d+|\/inputs\/\d\/topic|"\/[ab]"/);
  }
  return { result, exitCode, message, messagesRead };
}

function chunkMessageCount(fixture: BagFixture, k: number): number {
  return fixture.chunks[k]!.messages.length;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lockstep-corpus-"));
  await zstd.isLoaded;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  // The closing figures for the notes (inputs tried per kind and how they ended).
  console.log(`bad-input corpus: ${runs} inputs\n${[...tally].map(([k, n]) => `  ${k}: ${n}`).join("\n")}`);
});

describe("bad-input corpus: ROS 1 bags", () => {
  const plain = writeBag(CONNECTIONS, MESSAGES, { perChunk: 24 });

  it("the intact bag: every message read, exit 0", async () => {
    const o = await analyzeBytes(plain.bytes, "bag intact");
    expect(o.exitCode).toBe(0);
    expect(o.messagesRead).toBe(N);
  });

  it("truncated at many offsets: exactly the complete chunks before the cut are analyzed, exit 1 naming the offset", async () => {
    const size = plain.bytes.byteLength;
    const cuts = new Set<number>();
    for (let i = 1; i < 40; i++) {
      cuts.add(4200 + Math.floor(((size - 4200) * i) / 40));
    }
    for (const c of plain.chunks) {
      cuts.add(c.offset + 3);
      cuts.add(c.end - 1);
    }
    for (const cut of cuts) {
      const o = await analyzeBytes(plain.bytes.subarray(0, cut), "bag truncated");
      const complete = plain.chunks.filter((c) => c.end <= cut).reduce((n, c) => n + c.messages.length, 0);
      expect(o.exitCode).toBe(1);
      expect(o.message).toMatch(/byte offset \d+: the file is truncated|byte offset \d+/);
      expect(o.messagesRead).toBe(complete);
    }
  });

  it.skipIf(!HAS_BZIP2)("bz2 chunks with byte flips in chunk data: that chunk is lost (named, with its index count), all others analyzed", async () => {
    const bag = writeBag(CONNECTIONS, MESSAGES, { perChunk: 24, compress: (d) => ({ compression: "bz2", data: bzip2(d) }) });
    for (let k = 0; k < bag.chunks.length; k++) {
      for (const at of [0.3, 0.7]) {
        const c = bag.chunks[k]!;
        const bad = bag.bytes.slice();
        const pos = c.offset + Math.floor((c.end - c.offset) * at);
        bad[pos] = bad[pos]! ^ 0xff;
        const o = await analyzeBytes(bad, "bag bz2 chunk-data flip");
        expect(o.exitCode).toBe(1);
        expect(o.message).toContain(`byte offset ${c.offset}`);
        expect(o.messagesRead).toBe(N - chunkMessageCount(bag, k));
        expect(o.result!.summary.drops["unreadable-chunk"]).toBe(chunkMessageCount(bag, k));
      }
    }
  });

  it("byte flips in chunk record headers: the chunk is named and skipped, the rest analyzed", async () => {
    for (let k = 0; k < plain.chunks.length; k += 2) {
      for (const delta of [0, 1, 4, 20]) {
        const c = plain.chunks[k]!;
        const bad = plain.bytes.slice();
        bad[c.offset + delta] = bad[c.offset + delta]! ^ 0xa5;
        const o = await analyzeBytes(bad, "bag chunk-header flip");
        expect(o.exitCode).toBe(1);
        expect(o.message).toMatch(new RegExp(`byte offset ${c.offset}\\b`));
        expect(o.messagesRead).toBeGreaterThanOrEqual(N - chunkMessageCount(plain, k));
      }
    }
  });

  it("byte flips anywhere in the index: every chunk is still analyzed (index checked, else scanned)", async () => {
    const size = plain.bytes.byteLength;
    for (let pos = plain.indexPos; pos < size; pos += Math.max(1, Math.floor((size - plain.indexPos) / 60))) {
      const bad = plain.bytes.slice();
      bad[pos] = bad[pos]! ^ 0x5a;
      const o = await analyzeBytes(bad, "bag index flip");
      if (o.exitCode === 2) {
        // the flip renamed an input topic in the index: a config/input mismatch naming the topic
        expect(o.message).toMatch(/\/inputs\/\d\/topic/);
        continue;
      }
      expect(o.messagesRead).toBe(N);
    }
  });

  it("honest bz2 and lz4 bombs are refused before decompression (named, with the limit), the rest analyzed", async () => {
    const bombSize = 8 * 1024 * 1024;
    const zeros = new Uint8Array(bombSize);
    const kinds: [string, (d: Uint8Array) => Uint8Array, boolean][] = [
      ["bz2", bzip2, HAS_BZIP2],
      ["lz4", lz4, HAS_LZ4],
    ];
    for (const [compression, compress, available] of kinds) {
      if (!available) {
        console.log(`skipping the ${compression} bomb: the ${compression === "bz2" ? "bzip2" : "lz4"} command is not installed`);
        continue;
      }
      const packed = compress(zeros);
      let k = -1;
      const bag = writeBag(CONNECTIONS, MESSAGES, {
        perChunk: 24,
        compress: (d) => {
          k += 1;
          return k === 3 ? { compression, data: packed } : { compression: "none", data: d };
        },
      });
      // the bomb declares the real chunk's size; make it honest: declare what it expands to
      const bytes = declareChunkSize(bag, 3, bombSize);
      const o = await analyzeBytes(bytes, `bag ${compression} bomb`, { maxChunkBytes: 1024 * 1024 });
      expect(o.exitCode).toBe(1);
      expect(o.message).toContain(`byte offset ${bag.chunks[3]!.offset}`);
      expect(o.message).toMatch(/more than the limit of 1048576/);
      expect(o.messagesRead).toBe(N - chunkMessageCount(bag, 3));
    }
  });

  it("cut and garbage messages are drops, never the end of the run", async () => {
    const messages = MESSAGES.map((m, i) => (i % 37 === 5 ? { ...m, data: m.data.subarray(0, 7) } : m));
    const o = await analyzeBytes(writeBag(CONNECTIONS, messages, { perChunk: 24 }).bytes, "bag cut messages");
    expect(o.messagesRead).toBe(N);
    const cut = messages.filter((_, i) => i % 37 === 5).length;
    expect(o.result!.summary.drops.undecodable).toBe(cut);
  });

  it("stamps from another clock at the start and mid-file are invalid-stamp drops; the rest is analyzed", async () => {
    const boot = (i: number): BagFixtureMessage => {
      const m = MESSAGES[i]!;
      return { ...m, data: writer.writeMessage({ header: { seq: i, stamp: { sec: 1, nsec: 0 }, frame_id: "f" }, value: i }) };
    };
    const messages = MESSAGES.map((m, i) => (i === 0 || i === 101 ? boot(i) : m));
    const o = await analyzeBytes(writeBag(CONNECTIONS, messages, { perChunk: 24 }).bytes, "bag other-clock stamps");
    expect(o.exitCode).toBe(0);
    expect(o.messagesRead).toBe(N);
    expect(o.result!.summary.drops["invalid-stamp"]).toBe(2);
    expect(o.result!.summary.tuples).toBeGreaterThanOrEqual(N / 2 - 3);
  });

  it("a connection without its message definition is an error naming the topic, the other topic is analyzed", async () => {
    const connections = [CONNECTIONS[0]!, { ...CONNECTIONS[1]!, definition: "" }];
    const o = await analyzeBytes(writeBag(connections, MESSAGES, { perChunk: 24 }).bytes, "bag missing definition");
    expect(o.exitCode).toBe(1);
    expect(o.message).toMatch(/^\/b: none of its 120 messages decode/m);
    expect(o.message).toMatch(/no message definition/);
    expect(o.result!.summary.topics["/a"]!.messages).toBe(120);
    expect(o.result!.summary.drops.undecodable).toBe(120);
  });

  it("an unindexed bag (recorder interrupted) is scanned: every message, exit 0", async () => {
    const o = await analyzeBytes(writeBag(CONNECTIONS, MESSAGES, { perChunk: 24, noIndex: true }).bytes, "bag unindexed");
    expect(o.messagesRead).toBe(N);
  });
});

describe("bad-input corpus: MCAP", () => {
  const channels: FixtureChannel[] = CONNECTIONS.map((c) => ({
    topic: c.topic,
    schemaName: c.type,
    schemaEncoding: "ros1msg",
    schema: DEF,
    messageEncoding: "ros1",
  }));
  const messages: FixtureMessage[] = MESSAGES.map((m) => ({
    channel: m.conn,
    logTime: BigInt(m.sec) * 1_000_000_000n + BigInt(m.nsec),
    data: m.data,
  }));
  const compress = (data: Uint8Array): { compression: string; compressedData: Uint8Array } => ({
    compression: "zstd",
    compressedData: new Uint8Array(zstd.compress(data, 3)),
  });
  let bytes: Uint8Array;
  let chunks: { start: number; end: number; count: number }[];
  beforeAll(async () => {
    await zstd.isLoaded;
    bytes = await writeMcap(channels, messages, { compress, chunkSize: 1500 });
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    chunks = reader.chunkIndexes.map((c) => ({
      start: Number(c.chunkStartOffset),
      end: Number(c.chunkStartOffset + c.chunkLength),
      count: messages.filter((m) => m.logTime >= c.messageStartTime && m.logTime <= c.messageEndTime).length,
    }));
  });

  it("the intact file: every message, exit 0", async () => {
    const o = await analyzeBytes(bytes, "mcap intact");
    expect(o.exitCode).toBe(0);
    expect(o.messagesRead).toBe(N);
  });

  it("truncated at many offsets: the complete chunks before the cut, exit 1 naming the offset", async () => {
    const cuts = new Set<number>();
    for (let i = 1; i < 40; i++) {
      cuts.add(Math.floor((bytes.byteLength * i) / 40));
    }
    for (const cut of cuts) {
      const o = await analyzeBytes(bytes.subarray(0, cut), "mcap truncated");
      if (o.exitCode === 2) {
        // cut before the first channel: the inputs are not (yet) in the file
        expect(cut).toBeLessThan(chunks[0]!.end);
        continue;
      }
      expect(o.exitCode).toBe(1);
      const complete = chunks.filter((c) => c.end <= cut).reduce((n, c) => n + c.count, 0);
      expect(o.messagesRead).toBe(complete);
    }
  });

  it("byte flips in chunk data: that chunk is lost (named, count from its message indexes), the rest analyzed", async () => {
    for (const c of chunks) {
      const bad = bytes.slice();
      const pos = c.end - 20;
      bad[pos] = bad[pos]! ^ 0xff;
      const o = await analyzeBytes(bad, "mcap chunk-data flip");
      expect(o.exitCode).toBe(1);
      expect(o.message).toContain(`byte offset ${c.start}`);
      expect(o.messagesRead).toBe(N - c.count);
      expect(o.result!.summary.drops["unreadable-chunk"]).toBe(c.count);
    }
  });

  it("byte flips in the summary section: every message is still analyzed (scanned)", async () => {
    const summaryStart = chunks.at(-1)!.end;
    for (let pos = summaryStart; pos < bytes.byteLength - 8; pos += Math.max(1, Math.floor((bytes.byteLength - summaryStart) / 40))) {
      const bad = bytes.slice();
      bad[pos] = bad[pos]! ^ 0x5a;
      const o = await analyzeBytes(bad, "mcap summary flip");
      expect(o.exitCode).not.toBe(2);
      expect(o.messagesRead).toBe(N);
    }
  });

  it("an honest zstd bomb is refused before decompression, the rest analyzed", async () => {
    const bomb = await writeMcap(channels, messages, {
      chunkSize: 1500,
      compress: (data) => {
        return { compression: "zstd", compressedData: new Uint8Array(zstd.compress(data, 3)) };
      },
    });
    // Replace chunk 2's records by a zstd frame of 8 MiB of zeros, declared honestly.
    const c = chunks[2]!;
    const patched = patchMcapChunk(bomb, c.start, new Uint8Array(zstd.compress(new Uint8Array(8 * 1024 * 1024), 19)), 8 * 1024 * 1024);
    const o = await analyzeBytes(patched, "mcap zstd bomb", { maxChunkBytes: 1024 * 1024 });
    expect(o.exitCode).toBe(1);
    expect(o.message).toMatch(/more than the limit of 1048576/);
    expect(o.messagesRead).toBe(N - c.count);
  });
});

/** A copy of the bag whose chunk `k` declares `size` uncompressed bytes. */
function declareChunkSize(bag: BagFixture, k: number, size: number): Uint8Array {
  const bytes = bag.bytes.slice();
  const at = bag.chunks[k]!.offset;
  const headerLength = new DataView(bytes.buffer, at, 4).getUint32(0, true);
  const header = bytes.subarray(at + 4, at + 4 + headerLength);
  const name = new TextEncoder().encode("size=");
  for (let i = 0; i + name.length + 4 <= header.length; i++) {
    if (name.every((b, j) => header[i + j] === b)) {
      new DataView(header.buffer, header.byteOffset + i + name.length, 4).setUint32(0, size, true);
      return bytes;
    }
  }
  throw new Error("no size field");
}

/**
 * A copy of the MCAP whose chunk at `start` has `records` (compressed) of `uncompressedSize`
 * bytes in place of its own; the file is rewritten around it (later offsets move, so the summary
 * no longer matches and the reader scans, which still must refuse the bomb).
 */
function patchMcapChunk(bytes: Uint8Array, start: number, records: Uint8Array, uncompressedSize: number): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = Number(view.getBigUint64(start + 1, true));
  const compressionLength = view.getUint32(start + 9 + 28, true);
  const head = 9 + 28 + 4 + compressionLength;
  const chunk = new Uint8Array(head + 8 + records.byteLength);
  chunk.set(bytes.subarray(start, start + head), 0);
  const cv = new DataView(chunk.buffer);
  cv.setBigUint64(1, BigInt(chunk.byteLength - 9), true);
  cv.setBigUint64(9 + 16, BigInt(uncompressedSize), true);
  cv.setUint32(9 + 24, 0, true); // no CRC
  cv.setBigUint64(head, BigInt(records.byteLength), true);
  chunk.set(records, head + 8);
  const out = new Uint8Array(bytes.byteLength - (9 + length) + chunk.byteLength);
  out.set(bytes.subarray(0, start), 0);
  out.set(chunk, start);
  out.set(bytes.subarray(start + 9 + length), start + chunk.byteLength);
  return out;
}
