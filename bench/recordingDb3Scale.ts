/**
 * `recording-db3-1gb`: whole-recording analysis of a rosbag2 sqlite3 bag at realistic size, and
 * what reading it costs in memory. Builds (once, cached in a scratch folder) the synthetic robot's
 * recording as a Humble-style rosbag2 folder (bench/syntheticRosbag2.ts: metadata.yaml and one
 * .db3 of about 1.1 GB, CDR messages, 1 MiB point clouds on a topic nobody synchronizes), then
 * times, in each run, three passes over it:
 * - disk: reading every byte of the .db3 (8 MiB reads; the page cache is usually warm after the
 *   first run);
 * - bare: Lockstep's reader alone: `openRecordingFile` on the folder, then every message
 *   undecoded (`decode: false`), touching its bytes, nothing else;
 * - bare inputs: the same for the synchronized topics only (what analyze asks SQLite for), the
 *   baseline analyze's own work (decoding, the pipeline) is read against;
 * - analyze: what `lockstep analyze` does for sync only on the folder (open, read the inputs'
 *   rows in receive-time order, decode them, Pipeline with fkie/approximate-time), no output
 *   files.
 * During analyze the process's memory is sampled (bench/memoryGrowth.ts: RSS; `arrayBuffers`,
 * where sql.js's in-memory file system shows; `external`, which holds those and WebAssembly
 * memory, sql.js's heap).
 *
 * Reported, as medians over the runs (bare and analyze take turns going first): MB/s of each pass
 * (the .db3's size over the pass's time), messages/s of analyze, `ratio` = analyze time / bare
 * time in the same run (as recording-1gb reads it: against reading the whole file) and
 * `ratioInputs` = analyze time / bare inputs time (what decoding and the pipeline add to reading
 * the rows analyze reads), `cpuRatio` and `cpuRatioInputs` the same for the process's CPU
 * time; for each measure
 * (`Rss`, `ArrayBuffers`, `External`) `peak<Measure>GrowthMB`, the largest sample over the value
 * before the pass, and `<measure>GrowthMB`, the growth from 10 % of the file to its end (flat =
 * at most `FLAT_GROWTH_LIMIT_MB`, and the peak at most `PEAK_GROWTH_LIMIT_MB`, a fraction of the
 * file: memory bounded by design, not by the file; else the check fails). Not in the standard
 * set, never in `npm test`.
 *
 * The bag lives in `$LOCKSTEP_BENCH_DIR` (default `<tmp>/lockstep-bench`); delete it to rebuild.
 * `LOCKSTEP_BENCH_DB3_SECONDS` sets the recorded seconds (default `DB3_RECORDING_SECONDS`), for
 * trying the benchmark on a small bag.
 */

import { statSync } from "node:fs";
import { join } from "node:path";

import type { Benchmark, BenchmarkCase } from "./Benchmark";
import { benchSeconds, cachedBenchPath } from "./benchFiles";
import { nowNs } from "./harness";
import type { Memory } from "./memoryGrowth";
import { memoryScaleCase } from "./memoryScaleCase";
import { writeSyntheticRosbag2 } from "./syntheticRosbag2";

/** Recorded seconds of the synthetic bag (about 10.7 MB of .db3 per second: 103 s is 1.1 GB). */
export const DB3_RECORDING_SECONDS = 103;
/** Growth (MiB) from 10 % of the file to its end that still counts as flat, per measure. */
export const FLAT_GROWTH_LIMIT_MB: Memory = { rss: 64, arrayBuffers: 16, external: 16 };
/** Peak growth (MiB) over the analyze pass that is still bounded (the file is about 1,050 MiB). */
export const PEAK_GROWTH_LIMIT_MB: Memory = { rss: 256, arrayBuffers: 64, external: 128 };
const BAG_NAME = "synthetic-db3";

/** The synthetic bag folder and its .db3, built first if missing. */
export async function syntheticRosbag2Path(seconds = benchSeconds("LOCKSTEP_BENCH_DB3_SECONDS", DB3_RECORDING_SECONDS)): Promise<{ folder: string; db3: string }> {
  const folder = await cachedBenchPath(`${BAG_NAME}-${seconds}s`, `${seconds} s of rosbag2 sqlite3 recording`, async (partial) => {
    const t = nowNs();
    const summary = await writeSyntheticRosbag2(partial, { seconds, name: BAG_NAME });
    process.stderr.write(
      `lockstep bench: ${summary.messages} messages, ${summary.bytes} bytes of .db3 in ${Math.round((nowNs() - t) / 1e8) / 10} s\n`,
    );
  });
  return { folder, db3: join(folder, `${BAG_NAME}_0.db3`) };
}

async function db3Case(): Promise<BenchmarkCase> {
  const { folder, db3 } = await syntheticRosbag2Path();
  return await memoryScaleCase({
    path: folder,
    file: db3,
    bytes: statSync(db3).size,
    limits: { flat: FLAT_GROWTH_LIMIT_MB, peak: PEAK_GROWTH_LIMIT_MB },
  });
}

/** The benchmark (select it by name: `lockstep bench recording-db3-1gb`). */
export const recordingDb3ScaleBenchmark: Benchmark = {
  name: "recording-db3-1gb",
  policy: "fkie/approximate-time",
  description:
    "analyze (sync only) over a ~1.1 GB synthetic rosbag2 .db3 vs bare read and the disk, with RSS, arrayBuffers and external growth (builds the bag once)",
  standard: false,
  defaultN: 0,
  prepare: async () => await db3Case(),
};
