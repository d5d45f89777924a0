import { parse } from "@foxglove/rosmsg";
import { MessageWriter as Ros1Writer } from "@foxglove/rosmsg-serialization";
import zstd from "@foxglove/wasm-zstd";
import { McapIndexedReader, TempBuffer } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runAnalyze, type AnalyzeResult } from "./analyze";
import { parseConfig, type PipelineConfig } from "../../pipeline";
import { openRecordingFile } from "../../recording/node";
import { writeBag, type BagFixture, type BagFixtureConnection, type BagFixtureMessage } from "../../recording/testing/bagFixtures";
import { declareChunkSize, patchMcapChunk } from "../../recording/testing/bombs";
import { writeMcap, type FixtureChannel, type FixtureMessage } from "../../recording/testing/mcapFixtures";
import { HUSKY_BAG } from "../../recording/testing/paths";
import { ROS1_VALUE_DEFINITION } from "../../recording/testing/valueDefinitions";
import { CliError } from "../CliError";
import { configArgument } from "../configArgument";

// A bad-input corpus made here, from small recordings written by the tests' own writers: every
// input is analyzed in-process (one pipeline run each), and every run must end with an exit code,
// whole outputs, errors that name an offset or a topic, and every message accounted for.

const DEF = ROS1_VALUE_DEFINITION;

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
async function analyzeBytes(bytes: Uint8Array, kind: string, options: { maxChunkBytes?: number } = {}, config: PipelineConfig = CONFIG): Promise<Outcome> {
  const file = join(dir, `input-${runs}.bin`);
  const out = join(dir, `out-${runs}`);
  runs += 1;
  await writeFile(file, bytes);
  let result: AnalyzeResult | undefined;
  let exitCode: 0 | 1 | 2 = 0;
  let message = "";
  try {
    result = await runAnalyze({ file, config, out, progress: false, maxChunkBytes: options.maxChunkBytes });
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
    // synchronized.mcap's drops channel holds one log per drops.jsonl line, the reader's included.
    const logged = await loggedDrops(new Uint8Array(await readFile(join(out, "synchronized.mcap"))));
    expect(logged.length).toBe(drops.length);
    expect(logged.filter((l) => l.startsWith("unreadable-chunk")).length).toBe(drops.filter((d) => d.reason === "unreadable-chunk").length);
    // Every error names a byte offset or a topic.
    for (const e of result.errors) {
      expect(e).toMatch(/byte offset \d+|^\/[ab]:|^\/inputs\/\d\/topic: "\/[ab]"/);
    }
  } else {
    expect(message).toMatch(/byte offset \d+|\/inputs\/\d\/topic|"\/[ab]"/);
  }
  return { result, exitCode, message, messagesRead };
}

/** The `message` of every log on synchronized.mcap's drops channel. */
async function loggedDrops(bytes: Uint8Array): Promise<string[]> {
  const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes), decompressHandlers: await loadDecompressHandlers() });
  const drops = [...reader.channelsById.values()].filter((c) => c.topic.endsWith("/drops")).map((c) => c.topic);
  expect(drops.length).toBeLessThanOrEqual(1); // (a channel appears with its first message)
  const messages: string[] = [];
  for await (const m of reader.readMessages({ topics: drops })) {
    messages.push((JSON.parse(new TextDecoder().decode(m.data)) as { message: string }).message);
  }
  return messages;
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

describe("bad-input corpus: fusion", () => {
  it("an odometry twist of 1e300 (a non-finite optimization) is one fusion drop with its reason; the run goes on, exit 0", async () => {
    // nav_msgs/Odometry as husky-2015.bag records it (its full definition), 60 messages at 10 Hz
    // on two topics; fusion reads /odom, one of whose twists is 1e300 m/s.
    const husky = await openRecordingFile(HUSKY_BAG);
    const channel = husky.info.channels.find((c) => c.schemaName === "nav_msgs/Odometry")!;
    await husky.close();
    const definition = new TextDecoder().decode(channel.schemaData);
    const odomWriter = new Ros1Writer(parse(definition));
    const cov = (d: number): number[] => [...Array(36).keys()].map((i) => (i % 7 === 0 ? d : 0));
    const messages: BagFixtureMessage[] = [];
    for (let k = 0; k < 60; k++) {
      for (const conn of [0, 1]) {
        const sec = T0 + Math.floor(k / 10);
        const nsec = (k % 10) * 100_000_000;
        const vx = conn === 0 && k === 30 ? 1e300 : 1;
        messages.push({
          conn,
          sec,
          nsec: nsec + conn * 1000,
          data: odomWriter.writeMessage({
            header: { seq: k, stamp: { sec, nsec }, frame_id: "odom" },
            child_frame_id: "base_link",
            pose: { pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } }, covariance: cov(1) },
            twist: { twist: { linear: { x: vx, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.1 } }, covariance: cov(0.01) },
          }),
        });
      }
    }
    const connections = ["/odom", "/odom2"].map((topic) => ({ topic, type: "nav_msgs/Odometry", definition, md5sum: channel.metadata.get("md5sum") }));
    const config = parseConfig({
      inputs: [{ topic: "/odom" }, { topic: "/odom2" }],
      policy: { type: "fkie/approximate-time", maxQueueSize: 5 },
      fusion: {
        uuidRecipe: "ros1",
        optimizer: { type: "fixed-lag", lag: "0.5s", updatePeriod: "100ms", transactionTimeout: "10ms" },
        motionModels: { motion: { type: "fuse_models::Unicycle2D", processNoiseDiagonal: new Array<number>(8).fill(0.1) } },
        sensors: {
          odom: { type: "fuse_models::Odometry2D", motionModels: ["motion"], topic: "/odom", linearVelocityDimensions: ["x", "y"], angularVelocityDimensions: ["yaw"] },
        },
      },
    });
    const file = join(dir, `input-${runs}.bag`);
    const out = join(dir, `out-${runs}`);
    runs += 1;
    await writeFile(file, writeBag(connections, messages, { perChunk: 24 }).bytes);
    const result = await runAnalyze({ file, config, out, progress: false });
    tally.set(`fusion 1e300 twist: exit ${result.errors.length > 0 ? 1 : 0}`, (tally.get(`fusion 1e300 twist: exit ${result.errors.length > 0 ? 1 : 0}`) ?? 0) + 1);
    expect(result.errors).toEqual([]);
    const drops = (await readFile(join(out, "drops.jsonl"), "utf8"))
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { reason: string; stage: string; topic: string; detail?: string; stamp: string | null });
    const fusionDrops = drops.filter((d) => d.stage !== "sync");
    expect(fusionDrops).toHaveLength(1);
    expect(fusionDrops[0]).toMatchObject({ topic: "/odom", reason: "invalid-covariance", stamp: String(BigInt(T0 + 3) * 1_000_000_000n) });
    expect(fusionDrops[0]!.detail).toMatch(/not finite/);
    // every other /odom message became a transaction, and fusion went on to the end
    const transactions = (await readFile(join(out, "transactions.jsonl"), "utf8")).split("\n").filter((l) => l !== "");
    expect(transactions.length).toBeGreaterThanOrEqual(59);
    const summary = JSON.parse(await readFile(join(out, "summary.json"), "utf8")) as { tuples: number; fusion: { drops: Record<string, number>; finalPose: { x: number } } };
    expect(summary.fusion.drops).toEqual({ "invalid-covariance": 1 });
    expect(Number.isFinite(summary.fusion.finalPose.x)).toBe(true);
    expect(summary.tuples).toBeGreaterThanOrEqual(58);
  });
});

describe("bad-input corpus: configs", () => {
  /** Loads an inline config as `--config` does; returns the exit code and the message. */
  function loadInline(text: string, kind: string): { exitCode: number; message: string; config?: PipelineConfig } {
    runs += 1;
    let exitCode = 0;
    let message = "";
    let config: PipelineConfig | undefined;
    try {
      config = configArgument(text);
    } catch (err) {
      // Anything but a CliError would be a crash (a stack overflow, say).
      expect(err).toBeInstanceOf(CliError);
      exitCode = (err as CliError).exitCode;
      message = (err as CliError).message;
    }
    expect(message).not.toMatch(/\n\s+at /);
    tally.set(`${kind}: exit ${exitCode}`, (tally.get(`${kind}: exit ${exitCode}`) ?? 0) + 1);
    return { exitCode, message, config };
  }
  const head = '"inputs": [{"topic": "/a"}, {"topic": "/b"}], "policy": {"type": "fkie/approximate-time"}';

  it("100,000 unknown keys, at the top and in the policy: exit 2 naming the object, one line", () => {
    const keys = [...Array(100_000).keys()].map((i) => `"k${i}": ${i}`).join(", ");
    const top = loadInline(`{${head}, ${keys}}`, "config 100k keys");
    expect(top.exitCode).toBe(2);
    expect(top.message).toMatch(/^invalid --config:\n {2}\/: has 100002 keys, more than the 1000/);
    expect(top.message.split("\n")).toHaveLength(2);
    const inPolicy = loadInline(`{"inputs": [{"topic": "/a"}], "policy": {"type": "fkie/approximate-time", ${keys}}}`, "config 100k keys");
    expect(inPolicy.exitCode).toBe(2);
    expect(inPolicy.message).toMatch(/\/policy: has 100001 keys/);
  });

  it("10,000 and 100,000 levels of nesting, objects and arrays: exit 2 naming the path, no stack overflow", () => {
    for (const depth of [10_000, 100_000]) {
      const objects = loadInline(`{${head}, "fusion": ${'{"a": '.repeat(depth)}1${"}".repeat(depth)}}`, "config deep nesting");
      expect(objects.exitCode).toBe(2);
      expect(objects.message).toMatch(/ {2}\/fusion(\/a){63}: is nested more than 64 levels deep/);
      const arrays = loadInline(`{${head}, "buffer": ${"[".repeat(depth)}${"]".repeat(depth)}}`, "config deep nesting");
      expect(arrays.exitCode).toBe(2);
      expect(arrays.message).toMatch(/ {2}\/buffer(\/0){63}: is nested more than 64 levels deep/);
    }
  });

  it("thousands of problems: the first 100 listed with their paths, the rest counted", () => {
    const inputs = [...Array(300).keys()].map((i) => `{"topic": "/t${i}", "unknown${i}": 1, "other${i}": 2}`).join(", ");
    const o = loadInline(`{"inputs": [${inputs}], "policy": {"type": "fkie/approximate-time"}}`, "config many problems");
    expect(o.exitCode).toBe(2);
    const lines = o.message.split("\n");
    expect(lines).toHaveLength(1 + 100 + 1);
    expect(lines[1]).toMatch(/^ {2}\/inputs\/0\/unknown0: unknown key "unknown0"/);
    expect(lines.at(-1)).toBe("  /: … and 500 more problems like these (only the first 100 are listed)");
  });

  it("a huge queue size is accepted and allocates nothing up front: the run is whole", async () => {
    const o = loadInline(`{"inputs": [{"topic": "/a"}, {"topic": "/b"}], "policy": {"type": "fkie/approximate-time", "maxQueueSize": 1000000000}}`, "config huge queue");
    expect(o.exitCode).toBe(0);
    const run = await analyzeBytes(writeBag(CONNECTIONS, MESSAGES, { perChunk: 24 }).bytes, "config huge queue analyzed", {}, o.config);
    expect(run.exitCode).toBe(0);
    expect(run.messagesRead).toBe(N);
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
