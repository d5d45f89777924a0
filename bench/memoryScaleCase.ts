/**
 * The case shared by the scale benchmarks that read a recording with Lockstep's own reader and
 * check its memory (recording-db3-1gb, recording-bag-1gb). Each run times four passes over the
 * same recording:
 * - disk: reading every byte of the stored file (8 MiB reads);
 * - bare: `openRecordingFile`, then every message undecoded, touching its bytes, nothing else;
 * - bare inputs: the same for the synchronized topics only, the baseline analyze's own work
 *   (decoding, the pipeline) is read against;
 * - analyze: what `lockstep analyze` does for sync only (open, read the inputs, decode them,
 *   Pipeline with fkie/approximate-time), no output files, with its memory sampled
 *   (bench/memoryGrowth.ts).
 * The reading passes take turns going first, so none always meets the page cache another left.
 *
 * Reported, as medians over the runs: MB/s of each pass (the stored file's size over the pass's
 * time), messages/s of analyze, `ratio` = analyze time / bare time in the same run,
 * `ratioInputs` = analyze time / bare inputs time, `cpuRatio` and `cpuRatioInputs` the same for
 * the process's CPU time, and the memory growth figures; the check fails when memory is not
 * within the limits given.
 */

import type { BenchmarkCase, RunResult } from "./Benchmark";
import { memoryBounded, memoryGrowthFigures, memorySampledInputsPass, type Memory, type MemorySampledPass } from "./memoryGrowth";
import { diskPass, mbps, RunMedians, timedPass, undecodedPass, type PassTime } from "./scaleRuns";
import { SYNTHETIC_SYNC_TOPICS } from "./syntheticRobot";
import { openRecordingFile } from "../src/recording/node";

/** What a memory-checked scale case reads and how it judges memory. */
export interface MemoryScaleCaseOptions {
  /** What the reading passes open: a recording file or a rosbag2 bag folder. */
  readonly path: string;
  /** The stored file the disk pass reads; MB/s figures are of its size. */
  readonly file: string;
  /** Its size in bytes. */
  readonly bytes: number;
  /** Growth from 10 % of the file to its end (`flat`) and over the whole pass (`peak`), MiB. */
  readonly limits: { readonly flat: Memory; readonly peak: Memory };
  /** Figures of the recording itself, reported after `fileMB` in every run. */
  readonly facts?: Readonly<Record<string, number>>;
}

/** The figures of one run of the four passes. */
interface RunFigures {
  readonly diskNs: number;
  readonly bareNs: number;
  readonly bareCpuNs: number;
  readonly bareInputsNs: number;
  readonly bareInputsCpuNs: number;
  readonly analyze: MemorySampledPass;
}

async function timedBare(path: string, topics?: readonly string[]): Promise<PassTime> {
  return await timedPass(async () => await undecodedPass(path, topics));
}

async function analyzePass(path: string): Promise<MemorySampledPass> {
  return await memorySampledInputsPass(async () => await openRecordingFile(path));
}

/** The case: one untimed analyze pass to count the messages, then 3 runs without warm-up. */
export async function memoryScaleCase(options: MemoryScaleCaseOptions): Promise<BenchmarkCase> {
  const { path, file, bytes, limits } = options;
  const probe = await analyzePass(path);
  const done = new RunMedians<RunFigures>();
  return {
    n: probe.messages,
    warmups: 0,
    runs: 3,
    async run(): Promise<RunResult> {
      const diskNs = (await timedPass(async () => await diskPass(file))).ns;
      let bare: PassTime;
      let inputs: PassTime;
      let a: MemorySampledPass;
      if (done.count % 2 === 0) {
        bare = await timedBare(path);
        inputs = await timedBare(path, SYNTHETIC_SYNC_TOPICS);
        a = await analyzePass(path);
      } else {
        a = await analyzePass(path);
        inputs = await timedBare(path, SYNTHETIC_SYNC_TOPICS);
        bare = await timedBare(path);
      }
      done.add({ diskNs, bareNs: bare.ns, bareCpuNs: bare.cpuNs, bareInputsNs: inputs.ns, bareInputsCpuNs: inputs.cpuNs, analyze: a });
      const analyzeNs = done.median((r) => r.analyze.ns);
      return {
        elapsedNs: a.ns,
        cpuNs: a.cpuNs,
        tuples: a.tuples,
        outputHash: a.hash,
        ok: memoryBounded(a, limits),
        extra: {
          drops: a.drops,
          fileMB: Math.round(bytes / 1e5) / 10,
          ...options.facts,
          diskMBps: mbps(bytes, done.median((r) => r.diskNs)),
          bareMBps: mbps(bytes, done.median((r) => r.bareNs)),
          bareInputsMBps: mbps(bytes, done.median((r) => r.bareInputsNs)),
          analyzeMBps: mbps(bytes, analyzeNs),
          inputMsgsPerSec: Math.round((a.messages * 1e9) / analyzeNs),
          ratio: done.ratio((r) => r.analyze.ns / r.bareNs),
          cpuRatio: done.ratio((r) => r.analyze.cpuNs / r.bareCpuNs),
          ratioInputs: done.ratio((r) => r.analyze.ns / r.bareInputsNs),
          cpuRatioInputs: done.ratio((r) => r.analyze.cpuNs / r.bareInputsCpuNs),
          ...memoryGrowthFigures(done, (r) => r.analyze),
        },
      };
    },
  };
}
