// Peak memory of `lockstep analyze` (bounded memory by design: issue "nothing lost, nothing
// crashes"). Not a test and not timed: it prints peak resident set sizes, which do not depend on
// the machine's load. Run (after `npm run build:cli`):
//   npx tsx bench/analyzeMemory.ts [--copies 4] [--only length|bombs] [--bomb <name part>]
// Needs /usr/bin/time (GNU time) and the bzip2, lz4 and zstd commands. Everything is built in a
// temporary folder and removed at the end.
// - length: `analyze --config config/husky.json --out …` (sync and fusion) on husky-2015.bag, on
//   a one-copy rebuild of it and on a recording <copies> times as long (bench/repeatedRecording.ts);
//   target: the long one within 1.2× of the one-copy figure.
// - bombs: honest decompression bombs (a chunk that really expands to 1 GiB, and one that expands
//   to just under the default chunk limit, DEFAULT_MAX_CHUNK_BYTES) and lying ones (a chunk declaring 64 KiB that expands to
//   1 GiB), bz2 and lz4 in a bag, lz4 and zstd in an MCAP; target: every peak under 400 MB.
import { parse } from "@foxglove/rosmsg";
import { MessageWriter as Ros1Writer } from "@foxglove/rosmsg-serialization";
import { McapIndexedReader, TempBuffer } from "@mcap/core";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

import { writeRepeatedBag } from "./repeatedRecording";
import { DEFAULT_MAX_CHUNK_BYTES } from "../src/recording";
import { writeBag, type BagFixtureMessage } from "../src/recording/testing/bagFixtures";
import { declareChunkSize, patchMcapChunk } from "../src/recording/testing/bombs";
import { writeMcap } from "../src/recording/testing/mcapFixtures";

const { values } = parseArgs({ options: { copies: { type: "string", default: "4" }, only: { type: "string" }, bomb: { type: "string" } } });
const root = resolve(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "lockstep-memory-"));
const GiB = 1 << 30;

/** Runs `lockstep analyze` under GNU time; returns the peak RSS (MB) and the exit code. */
function analyzePeak(file: string, config: string, name: string): { peakMB: number; exit: number; stderr: string; tuples: number } {
  const out = join(dir, `out-${name}`);
  const r = spawnSync("/usr/bin/time", ["-v", process.execPath, "bin/lockstep.js", "analyze", file, "--config", config, "--out", out], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  const exit = Number(/Exit status: (\d+)/.exec(r.stderr)?.[1] ?? r.status);
  const ours = r.stderr.split("\n\tCommand being timed")[0]!.trim();
  let tuples = NaN; // no summary.json: the run crashed (its stderr says why)
  try {
    tuples = (JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as { tuples: number }).tuples;
  } catch {
    console.log(`${name}: no summary.json; stderr: ${ours.slice(0, 2000)}`);
  }
  rmSync(out, { recursive: true, force: true });
  return { peakMB: Math.round((kb / 1024) * 10) / 10, exit, stderr: ours.slice(0, 300), tuples };
}

/** Compresses `size` zero bytes with a command (streamed, never held uncompressed). */
function zeros(command: string, args: string[], size: number): Uint8Array {
  return new Uint8Array(execFileSync("sh", ["-c", `head -c ${size} /dev/zero | ${command} ${args.join(" ")}`], { maxBuffer: GiB }));
}

const figures: Record<string, unknown> = {};
try {
  if (values.only == undefined || values.only === "length") {
    const copies = Number(values.copies);
    const husky = join(root, "samples/husky-2015.bag");
    const one = join(dir, "husky-1x.bag");
    const many = join(dir, `husky-${copies}x.bag`);
    await writeRepeatedBag(husky, one, 1);
    const messages = await writeRepeatedBag(husky, many, copies);
    const config = join(root, "config/husky.json");
    const original = analyzePeak(husky, config, "husky");
    const single = analyzePeak(one, config, "1x");
    const long = analyzePeak(many, config, `${copies}x`);
    figures.length = {
      copies,
      messages,
      huskyPeakMB: original.peakMB,
      oneCopyPeakMB: single.peakMB,
      longPeakMB: long.peakMB,
      ratio: Math.round((long.peakMB / single.peakMB) * 1000) / 1000,
      exits: [original.exit, single.exit, long.exit],
      tuples: [original.tuples, single.tuples, long.tuples],
      target: "ratio <= 1.2",
    };
    console.log(JSON.stringify(figures.length));
  }

  if (values.only == undefined || values.only === "bombs") {
    const def = "Header header\nfloat64 value\n================================================================================\nMSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id";
    const writer = new Ros1Writer(parse(def));
    const messages: BagFixtureMessage[] = [...Array(240).keys()].map((i) => {
      const sec = 1_700_000_000 + Math.floor(i / 100);
      const nsec = (i % 100) * 10_000_000;
      return { conn: i % 2, sec, nsec, data: writer.writeMessage({ header: { seq: i, stamp: { sec, nsec }, frame_id: "f" }, value: i }) };
    });
    const connections = ["/a", "/b"].map((topic) => ({ topic, type: "test_msgs/Value", definition: def }));
    const config = join(dir, "bomb-config.json");
    writeFileSync(config, JSON.stringify({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: { type: "fkie/approximate-time", maxQueueSize: 5 } }));
    const underLimit = DEFAULT_MAX_CHUNK_BYTES - (1 << 20);
    const sizes: [string, number, number][] = [
      // name, actual uncompressed size, declared size
      ["honest-1GiB", GiB, GiB],
      [`honest-${underLimit >> 20}MiB`, underLimit, underLimit],
      ["lying-64KiB-is-1GiB", GiB, 64 * 1024],
    ];
    const bombs: Record<string, { peakMB: number; exit: number; message: string; tuples: number }> = {};
    const codecs: Record<string, (size: number) => Uint8Array> = {
      bz2: (size) => zeros("bzip2", ["-c", "-9"], size),
      lz4: (size) => zeros("lz4", ["-c", "-9", "-BD", "--no-frame-crc"], size),
      zstd: (size) => zeros("zstd", ["-c", "-19", "--no-check"], size),
    };
    const packed = new Map<string, Uint8Array>();
    const blob = (codec: string, size: number): Uint8Array => {
      const key = `${codec}/${size}`;
      if (!packed.has(key)) {
        packed.set(key, codecs[codec]!(size));
      }
      return packed.get(key)!;
    };
    const wanted = (key: string): boolean => values.bomb == undefined || key.includes(values.bomb);
    for (const codec of ["bz2", "lz4"]) {
      for (const [name, actual, declared] of sizes) {
        if (!wanted(`bag/${codec}/${name}`)) {
          continue;
        }
        let k = -1;
        const bag = writeBag(connections, messages, {
          perChunk: 24,
          compress: (d) => {
            k += 1;
            return k === 3 ? { compression: codec, data: blob(codec, actual) } : { compression: "none", data: d };
          },
        });
        const file = join(dir, `bomb-bag-${codec}-${name}.bag`);
        writeFileSync(file, declareChunkSize(bag, 3, declared));
        const r = analyzePeak(file, config, `bag-${codec}-${name}`);
        bombs[`bag/${codec}/${name}`] = { peakMB: r.peakMB, exit: r.exit, message: r.stderr, tuples: r.tuples };
        console.log(`bag/${codec}/${name}: ${r.peakMB} MB, exit ${r.exit}`);
      }
    }
    const channels = connections.map((c) => ({ topic: c.topic, schemaName: c.type, schemaEncoding: "ros1msg", schema: def, messageEncoding: "ros1" }));
    const mcapMessages = messages.map((m) => ({ channel: m.conn, logTime: BigInt(m.sec) * 1_000_000_000n + BigInt(m.nsec), data: m.data }));
    const plain = await writeMcap(channels, mcapMessages, { chunkSize: 1500 });
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(plain) });
    const start = Number(reader.chunkIndexes[2]!.chunkStartOffset);
    for (const codec of ["lz4", "zstd"]) {
      for (const [name, actual, declared] of sizes) {
        if (!wanted(`mcap/${codec}/${name}`)) {
          continue;
        }
        const file = join(dir, `bomb-mcap-${codec}-${name}.mcap`);
        // The chunk keeps its compression field "" (none) unless rewritten: set it to the codec.
        writeFileSync(file, withCompression(patchMcapChunk(plain, start, blob(codec, actual), declared), start, codec));
        const r = analyzePeak(file, config, `mcap-${codec}-${name}`);
        bombs[`mcap/${codec}/${name}`] = { peakMB: r.peakMB, exit: r.exit, message: r.stderr, tuples: r.tuples };
        console.log(`mcap/${codec}/${name}: ${r.peakMB} MB, exit ${r.exit}`);
      }
    }
    const peaks = Object.values(bombs).map((b) => b.peakMB);
    figures.bombs = { maxPeakMB: Math.max(...peaks), target: "every peak < 400 MB", each: bombs };
    console.log(JSON.stringify({ bombsMaxPeakMB: Math.max(...peaks) }));
  }
  console.log(JSON.stringify(figures, undefined, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The MCAP with the chunk at `start` re-labelled as compressed with `codec` (the fixture writer
 * wrote it uncompressed: compression ""). The chunk and the file grow by the name's length.
 */
function withCompression(bytes: Uint8Array, start: number, codec: string): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = start + 9 + 28; // op, record length, start/end time, uncompressed size, crc
  const oldLength = view.getUint32(at, true);
  const name = new TextEncoder().encode(codec);
  const out = new Uint8Array(bytes.byteLength - oldLength + name.byteLength);
  out.set(bytes.subarray(0, at), 0);
  const ov = new DataView(out.buffer);
  ov.setUint32(at, name.byteLength, true);
  out.set(name, at + 4);
  out.set(bytes.subarray(at + 4 + oldLength), at + 4 + name.byteLength);
  const recordLength = Number(view.getBigUint64(start + 1, true));
  ov.setBigUint64(start + 1, BigInt(recordLength - oldLength + name.byteLength), true);
  return out;
}
