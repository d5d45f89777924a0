/**
 * `recording-1gb`: whole-recording analysis at realistic size. Builds (once, cached in a scratch
 * folder) a synthetic MCAP recording of about 1.1 GB (bench/syntheticRecording.ts: zstd chunks,
 * 28 topics, 400 Hz IMU, 1 MiB point clouds on a topic nobody synchronizes), then times, in each
 * run, four passes over the same file:
 * - disk: reading every byte (8 MiB reads; the page cache is usually warm after the first run);
 * - bare: reading and decompressing every chunk, one after the other, nothing else;
 * - bare ahead: the same, reading the next chunk while decompressing this one;
 * - analyze: what `lockstep analyze` does for sync only (open, index, read the chunks holding the
 *   inputs ahead, decompress and CRC-check them on the ChunkWorker's threads (`sharedChunkWorker()`:
 *   two on a machine with two cores or more), decode the inputs, Pipeline with
 *   fkie/approximate-time), no output files.
 * Reported, as medians over the runs (the bare passes and analyze take turns going first): MB/s of
 * each pass, messages/s of analyze, `ratio` = analyze time / bare time in the same run (target
 * <= 1.1), `cpuRatio` = the same for the process's CPU time (steadier than wall time on a loaded
 * machine, and blind to waiting for the disk), `ratioAhead` and `cpuRatioAhead` the same against
 * bare ahead (both overlap reading with decompression; analyze also spreads decompression and
 * CRCs over threads, and adds the record walk, decoding and the pipeline); and the heap growth
 * (the reading thread's) between 10 % of the file and its end of one more analyze pass after the
 * runs (flat = below `HEAP_GROWTH_LIMIT_MB`, else the check fails; it forces collections, so no
 * timed pass follows it: see BenchmarkCase.finish). Not in the standard set, never in `npm test`.
 *
 * analyze skips the chunks whose message indexes list no input channel, so bare is a fair
 * baseline only while every chunk holds an input: `chunksWithInputs` (of `chunks`) says how many
 * chunks analyze has to decompress. In this recording the inputs are spread over the whole file,
 * as a recorder interleaves topics, so that is every chunk.
 *
 * The file lives in `$LOCKSTEP_BENCH_DIR` (default `<tmp>/lockstep-bench`); delete it to rebuild.
 */

import { MCAP_MAGIC, McapIndexedReader, Opcode } from "@mcap/core";
import { appendFileSync, copyFileSync, statSync, truncateSync } from "node:fs";

import type { Benchmark, BenchmarkCase, CaseSummary, RunResult } from "./Benchmark";
import { cachedBenchPath } from "./benchFiles";
import { collectGarbage, heapUsedMB } from "./harness";
import { chunkedFileCase } from "./recordingBagScale";
import { diskPass, mbps, RunMedians, timedInputsPass, timedPass, type InputsPass, type PassTime } from "./scaleRuns";
import { writeSyntheticRecording } from "./syntheticRecording";
import { SYNTHETIC_SYNC_TOPICS } from "./syntheticRobot";
import { openRecording, type ByteSource } from "../src/recording";
import { loadDecompressors, toMcapHandlers } from "../src/recording/decompress";
import { FileByteSource, sharedChunkWorker } from "../src/recording/node";

/** Recorded seconds of the synthetic file (about 9.4 MB per second compressed). */
export const RECORDING_SECONDS = 120;
/** Heap growth (MiB) over the analyze pass that still counts as flat. */
export const HEAP_GROWTH_LIMIT_MB = 16;

/** The synthetic recording's path, built first if missing. */
export async function syntheticRecordingPath(seconds = RECORDING_SECONDS): Promise<string> {
  return await cachedBenchPath(`synthetic-${seconds}s.mcap`, `${seconds} s of recording`, async (partial) => {
    await writeSyntheticRecording(partial, { seconds });
  });
}

/**
 * The synthetic recording without its summary section, so that it is read by a scan: cut where
 * the summary starts (after the data section's Data End record) and closed with a footer that
 * points to no summary, as a writer with the summary switched off writes one. (A killed
 * recorder's file, cut anywhere, reads the same way but ends with a damage report, which the
 * benchmark's passes would count as a failed read.) A copy, built once beside it.
 */
export async function unindexedSyntheticRecordingPath(): Promise<string> {
  const indexed = await syntheticRecordingPath();
  return await cachedBenchPath(`synthetic-${RECORDING_SECONDS}s-unindexed.mcap`, `the ${RECORDING_SECONDS} s recording without its summary`, async (partial) => {
    const source = await FileByteSource.open(indexed);
    let summaryStart: number;
    try {
      summaryStart = Number((await McapIndexedReader.Initialize({ readable: readableOf(source) })).footer.summaryStart);
    } finally {
      await source.close();
    }
    copyFileSync(indexed, partial);
    truncateSync(partial, summaryStart);
    // Footer: opcode, record length 20, summary start 0, summary offset start 0, summary CRC 0; then the magic.
    const footer = Buffer.alloc(1 + 8 + 20);
    footer[0] = Opcode.FOOTER;
    footer.writeBigUInt64LE(20n, 1);
    appendFileSync(partial, Buffer.concat([footer, Buffer.from(MCAP_MAGIC)]));
  });
}

/** How the bare pass reads: each chunk after the previous one is decompressed, or one ahead. */
type BareReading = "serial" | "ahead";

/**
 * Reads and decompresses every chunk (the records are the last `compressedSize` bytes of it), in
 * file order; "ahead" reads the next chunk while decompressing this one, as analyze does.
 */
async function barePass(path: string, reading: BareReading): Promise<number> {
  const source = await FileByteSource.open(path);
  try {
    const handlers = toMcapHandlers(await loadDecompressors());
    const reader = await McapIndexedReader.Initialize({
      readable: readableOf(source),
      decompressHandlers: handlers,
    });
    const chunks = reader.chunkIndexes;
    const readChunk = async (k: number): Promise<Uint8Array> =>
      await source.read(Number(chunks[k]!.chunkStartOffset), Number(chunks[k]!.chunkLength));
    let next = chunks.length > 0 ? readChunk(0) : undefined;
    let bytes = 0;
    for (const [k, c] of chunks.entries()) {
      let chunk: Uint8Array;
      if (reading === "ahead") {
        chunk = await next!;
        next = k + 1 < chunks.length ? readChunk(k + 1) : undefined;
      } else {
        chunk = await readChunk(k);
      }
      const records = chunk.subarray(chunk.length - Number(c.compressedSize));
      const decompress = handlers[c.compression];
      const out =
        c.compression === "" || decompress == undefined
          ? records
          : decompress(records, c.uncompressedSize);
      bytes += out.length;
    }
    return bytes;
  } finally {
    await source.close();
  }
}

/** The analyze pass over the file at `path`; with `heap`, its heap growth from 10 % of the file to its end too (forcing collections). */
async function analyzePass(path: string, heap: "timed only" | "heap growth"): Promise<InputsPass & { readonly heapGrowthMB: number }> {
  const source = await FileByteSource.open(path);
  try {
    let heapAt10 = -1;
    const { pass } = await timedInputsPass(
      async () => await openRecording(source, { chunkWorker: sharedChunkWorker() }),
      ({ fraction }, untimed) => {
        if (heap === "heap growth" && heapAt10 < 0 && fraction >= 0.1) {
          untimed(() => {
            collectGarbage();
            heapAt10 = heapUsedMB();
          });
        }
      },
    );
    if (heap === "timed only") {
      return { ...pass, heapGrowthMB: 0 };
    }
    collectGarbage();
    const growth = heapAt10 < 0 || source.size === 0 ? 0 : heapUsedMB() - heapAt10;
    return { ...pass, heapGrowthMB: Math.round(growth * 10) / 10 };
  } finally {
    await source.close();
  }
}

function readableOf(source: ByteSource): {
  size(): Promise<bigint>;
  read(offset: bigint, length: bigint): Promise<Uint8Array>;
} {
  return {
    size: async () => BigInt(source.size),
    read: async (offset, length) => await source.read(Number(offset), Number(length)),
  };
}

/** How many chunks the file has, and how many of them hold a message of `topics` (by the chunk index). */
async function chunkCoverage(path: string, topics: readonly string[]): Promise<{ chunks: number; withInputs: number }> {
  const source = await FileByteSource.open(path);
  try {
    const reader = await McapIndexedReader.Initialize({ readable: readableOf(source) });
    const ids = new Set([...reader.channelsById.values()].filter((c) => topics.includes(c.topic)).map((c) => c.id));
    const withInputs = reader.chunkIndexes.filter((c) => [...c.messageIndexOffsets.keys()].some((id) => ids.has(id))).length;
    return { chunks: reader.chunkIndexes.length, withInputs };
  } finally {
    await source.close();
  }
}

/** The timings of one run of the three passes. */
interface RunTimes {
  readonly diskNs: number;
  readonly bareNs: number;
  readonly bareCpuNs: number;
  readonly bareAheadNs: number;
  readonly bareAheadCpuNs: number;
  readonly analyzeNs: number;
  readonly analyzeCpuNs: number;
}

async function timedBare(path: string, reading: BareReading): Promise<PassTime> {
  return await timedPass(async () => await barePass(path, reading));
}

async function recordingCase(): Promise<BenchmarkCase> {
  const path = await syntheticRecordingPath();
  const bytes = statSync(path).size;
  const coverage = await chunkCoverage(path, SYNTHETIC_SYNC_TOPICS);
  const probe = await analyzePass(path, "timed only");
  const done = new RunMedians<RunTimes>();
  return {
    n: probe.messages,
    warmups: 0,
    runs: 3,
    async run(): Promise<RunResult> {
      const diskNs = (await timedPass(async () => await diskPass(path))).ns;
      // Bare and analyze take turns going first, so neither always meets the page cache the
      // other left.
      let bare: PassTime;
      let bareAhead: PassTime;
      let a: InputsPass;
      if (done.count % 2 === 0) {
        bare = await timedBare(path, "serial");
        bareAhead = await timedBare(path, "ahead");
        a = await analyzePass(path, "timed only");
      } else {
        a = await analyzePass(path, "timed only");
        bareAhead = await timedBare(path, "ahead");
        bare = await timedBare(path, "serial");
      }
      done.add({
        diskNs,
        bareNs: bare.ns,
        bareCpuNs: bare.cpuNs,
        bareAheadNs: bareAhead.ns,
        bareAheadCpuNs: bareAhead.cpuNs,
        analyzeNs: a.ns,
        analyzeCpuNs: a.cpuNs,
      });
      return { elapsedNs: a.ns, cpuNs: a.cpuNs, tuples: a.tuples, outputHash: a.hash, extra: { drops: a.drops } };
    },
    async finish(): Promise<CaseSummary> {
      // After every timed pass: the heap samples force collections (see BenchmarkCase.finish).
      const heap = await analyzePass(path, "heap growth");
      const analyzeNs = done.median((r) => r.analyzeNs);
      return {
        ok: heap.tuples === probe.tuples && heap.hash === probe.hash && heap.heapGrowthMB <= HEAP_GROWTH_LIMIT_MB,
        extra: {
          fileMB: Math.round(bytes / 1e5) / 10,
          diskMBps: mbps(bytes, done.median((r) => r.diskNs)),
          bareMBps: mbps(bytes, done.median((r) => r.bareNs)),
          analyzeMBps: mbps(bytes, analyzeNs),
          inputMsgsPerSec: Math.round((probe.messages * 1e9) / analyzeNs),
          ratio: done.ratio((r) => r.analyzeNs / r.bareNs),
          cpuRatio: done.ratio((r) => r.analyzeCpuNs / r.bareCpuNs),
          bareAheadMBps: mbps(bytes, done.median((r) => r.bareAheadNs)),
          ratioAhead: done.ratio((r) => r.analyzeNs / r.bareAheadNs),
          cpuRatioAhead: done.ratio((r) => r.analyzeCpuNs / r.bareAheadCpuNs),
          chunks: coverage.chunks,
          chunksWithInputs: coverage.withInputs,
          heapGrowthMB: heap.heapGrowthMB,
        },
      };
    },
  };
}

/** The benchmark (select it by name: `lockstep bench recording-1gb`). */
export const recordingScaleBenchmark: Benchmark = {
  name: "recording-1gb",
  policy: "fkie/approximate-time",
  description:
    "analyze (sync only) over a ~1.1 GB synthetic MCAP vs bare read + decompress and the disk (builds the file once)",
  standard: false,
  defaultN: 0,
  prepare: async () => await recordingCase(),
};

/**
 * `recording-1gb-unindexed`: the recording without its summary, read by a scan, in the passes of
 * the bag benchmarks (bench/memoryScaleCase.ts: a bare read of every message and of the inputs,
 * analyze, memory growth with those benchmarks' limits), since without an index the chunk-by-chunk
 * bare passes above do not apply.
 */
export const recordingScanBenchmark: Benchmark = {
  name: "recording-1gb-unindexed",
  policy: "fkie/approximate-time",
  description:
    "analyze (sync only) over the ~1.1 GB synthetic MCAP cut off before its summary, as a killed recorder leaves one (read by a scan), vs bare reads, with memory growth (builds the copy once)",
  standard: false,
  defaultN: 0,
  prepare: async () => await chunkedFileCase(await unindexedSyntheticRecordingPath(), await chunkCoverage(await syntheticRecordingPath(), SYNTHETIC_SYNC_TOPICS)),
};
