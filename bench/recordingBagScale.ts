/**
 * `recording-bag-1gb`: whole-recording analysis of a ROS 1 bag at realistic size, and what
 * reading it costs in memory. Builds (once, cached in a scratch folder) the synthetic robot's
 * recording as a bag laid out as `rosbag record` writes one (bench/syntheticBag.ts: about 1.1 GB,
 * uncompressed chunks of about 768 KiB, ROS 1 messages, 1 MiB point clouds on a topic nobody
 * synchronizes), then times, in each run, four passes over it:
 * - disk: reading every byte of the file (8 MiB reads; the page cache is usually warm after the
 *   first run);
 * - bare: Lockstep's reader alone: `openRecordingFile` on the bag, then every message undecoded
 *   (`decode: false`), touching its bytes, nothing else;
 * - bare inputs: the same for the synchronized topics only, the baseline analyze's own work
 *   (decoding, the pipeline) is read against. Every chunk holds an input (`chunksWithInputs`),
 *   so it reads the chunks bare reads and skips only the other topics' records;
 * - analyze: what `lockstep analyze` does for sync only on the bag (open, read the chunks
 *   holding the inputs, decode the inputs, Pipeline with fkie/approximate-time), no output files.
 * During analyze the process's memory is sampled (bench/memoryGrowth.ts: RSS, `arrayBuffers`,
 * where the chunks the reader holds show, and `external`).
 *
 * Reported, as medians over the runs (bare and analyze take turns going first): MB/s of each pass
 * (the file's size over the pass's time), messages/s of analyze, `ratio` = analyze time / bare
 * time in the same run, `ratioInputs` = analyze time / bare inputs time, `cpuRatio` and
 * `cpuRatioInputs` the same for the process's CPU time; for each measure (`Rss`,
 * `ArrayBuffers`, `External`) `peak<Measure>GrowthMB`, the largest sample over the value before
 * the pass, and `<measure>GrowthMB`, the growth from 10 % of the file to its end (flat = at most
 * `FLAT_GROWTH_LIMIT_MB`, and the peak at most `PEAK_GROWTH_LIMIT_MB`; else the check fails).
 * Not in the standard set, never in `npm test`.
 *
 * The bag lives in `$LOCKSTEP_BENCH_DIR` (default `<tmp>/lockstep-bench`); delete it to rebuild.
 * `LOCKSTEP_BENCH_BAG_SECONDS` sets the recorded seconds (default `BAG_RECORDING_SECONDS`), for
 * trying the benchmark on a small bag.
 */

import { Bag } from "@foxglove/rosbag";
import { closeSync, copyFileSync, openSync, readSync, statSync, truncateSync, writeSync } from "node:fs";

import type { Benchmark, BenchmarkCase } from "./Benchmark";
import { benchSeconds, cachedBenchPath } from "./benchFiles";
import { nowNs } from "./harness";
import type { Memory } from "./memoryGrowth";
import { memoryScaleCase } from "./memoryScaleCase";
import { writeSyntheticBag } from "./syntheticBag";
import { SYNTHETIC_SYNC_TOPICS } from "./syntheticRobot";
import { FIRST_RECORD } from "../src/recording/bagRecords";
import { FileByteSource } from "../src/recording/node";
import { bagFieldAt } from "../src/recording/testing/bagFixtures";

/** Recorded seconds of the synthetic bag (about 10.7 MB per second: 103 s is 1.1 GB). */
export const BAG_RECORDING_SECONDS = 103;
/**
 * Growth (MiB) from 10 % of the file to its end that still counts as flat, per measure: as
 * recording-db3-1gb's. A reader that lets go of each chunk once its messages are delivered does
 * not grow at all; 16 MiB of Buffers is about nine of this bag's largest chunks (768 KiB and a
 * 1 MiB cloud), RSS moves more with V8's and the allocator's sizing.
 */
export const FLAT_GROWTH_LIMIT_MB: Memory = { rss: 64, arrayBuffers: 16, external: 16 };
/**
 * Peak growth (MiB) over the analyze pass that is still bounded (the file is about 1,050 MiB).
 * The reader holds the index (under 1 MiB here) and the chunk it delivers from (at most 1.8 MiB
 * here), but the samples between full GCs also see the chunks it has dropped and V8 has not yet
 * collected: V8 collects them once 64 MiB more has been allocated outside its heap since the last
 * collection (its external-memory soft limit), so those samples can see up to about 64 MiB of
 * dropped chunks (medians of 33 and 57 MiB in two benchmark runs on this bag; 0 when every
 * sample follows full GCs). Twice that is the limit for Buffers and `external` (no WebAssembly
 * heap here); RSS, which holds those and the V8 heap, gets recording-db3-1gb's limit. A reader
 * holding the file, or a growing share of it, fails.
 */
export const PEAK_GROWTH_LIMIT_MB: Memory = { rss: 256, arrayBuffers: 128, external: 128 };

/** The synthetic bag's path, built first if missing. */
export async function syntheticBagPath(seconds = benchSeconds("LOCKSTEP_BENCH_BAG_SECONDS", BAG_RECORDING_SECONDS)): Promise<string> {
  return await cachedBenchPath(`synthetic-${seconds}s.bag`, `${seconds} s of ROS 1 bag recording`, async (partial) => {
    const t = nowNs();
    const summary = await writeSyntheticBag(partial, { seconds });
    process.stderr.write(
      `lockstep bench: ${summary.messages} messages in ${summary.chunks} chunks, ${summary.bytes} bytes of .bag in ${Math.round((nowNs() - t) / 1e8) / 10} s\n`,
    );
  });
}

/** How many chunks the bag has, and how many of them hold a message of `topics` (by its chunk infos). */
async function chunkCoverage(path: string, topics: readonly string[]): Promise<{ chunks: number; withInputs: number }> {
  const source = await FileByteSource.open(path);
  try {
    const bag = new Bag({ read: async (offset, length) => await source.read(offset, length), size: () => source.size }, { parse: false });
    await bag.open();
    const conns = new Set([...bag.connections.values()].filter((c) => topics.includes(c.topic)).map((c) => c.conn));
    const withInputs = bag.chunkInfos.filter((info) => info.connections.some((c) => conns.has(c.conn))).length;
    return { chunks: bag.chunkInfos.length, withInputs };
  } finally {
    await source.close();
  }
}

/**
 * The synthetic bag as a recorder that was killed leaves one: cut off where its index starts, its
 * header's index_pos 0, so that it is read by a scan (a copy, built once beside the bag).
 */
export async function unindexedSyntheticBagPath(): Promise<string> {
  const seconds = benchSeconds("LOCKSTEP_BENCH_BAG_SECONDS", BAG_RECORDING_SECONDS);
  const indexed = await syntheticBagPath(seconds);
  return await cachedBenchPath(`synthetic-${seconds}s-unindexed.bag`, `the ${seconds} s bag without its index`, async (partial) => {
    copyFileSync(indexed, partial);
    const fd = openSync(partial, "r+");
    try {
      const head = Buffer.alloc(4096);
      readSync(fd, head, 0, head.byteLength, 0);
      const field = bagFieldAt(head, FIRST_RECORD, "index_pos");
      truncateSync(partial, Number(head.readBigUInt64LE(field)));
      writeSync(fd, Buffer.alloc(8), 0, 8, field);
    } finally {
      closeSync(fd);
    }
  });
}

/**
 * The passes of `memoryScaleCase` over the file at `path` with this benchmark's memory limits,
 * reporting how many of its chunks hold an input (`coverage`, read from the indexed file).
 */
export async function chunkedFileCase(path: string, coverage: { chunks: number; withInputs: number }): Promise<BenchmarkCase> {
  return await memoryScaleCase({
    path,
    file: path,
    bytes: statSync(path).size,
    limits: { flat: FLAT_GROWTH_LIMIT_MB, peak: PEAK_GROWTH_LIMIT_MB },
    facts: { chunks: coverage.chunks, chunksWithInputs: coverage.withInputs },
  });
}

/** The benchmark (select it by name: `lockstep bench recording-bag-1gb`). */
export const recordingBagScaleBenchmark: Benchmark = {
  name: "recording-bag-1gb",
  policy: "fkie/approximate-time",
  description:
    "analyze (sync only) over a ~1.1 GB synthetic ROS 1 bag vs bare read and the disk, with RSS, arrayBuffers and external growth (builds the bag once)",
  standard: false,
  defaultN: 0,
  prepare: async () => {
    const path = await syntheticBagPath();
    return await chunkedFileCase(path, await chunkCoverage(path, SYNTHETIC_SYNC_TOPICS));
  },
};

/** The same over the bag cut off before its index (`lockstep bench recording-bag-1gb-unindexed`). */
export const recordingBagScanBenchmark: Benchmark = {
  name: "recording-bag-1gb-unindexed",
  policy: "fkie/approximate-time",
  description:
    "recording-bag-1gb's passes over the same bag cut off before its index, as a killed recorder leaves one (read by a scan; builds the copy once)",
  standard: false,
  defaultN: 0,
  prepare: async () => await chunkedFileCase(await unindexedSyntheticBagPath(), await chunkCoverage(await syntheticBagPath(), SYNTHETIC_SYNC_TOPICS)),
};
