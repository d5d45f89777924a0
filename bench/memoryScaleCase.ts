/**
 * The case shared by the scale benchmarks that read a recording with Lockstep's own reader and
 * check its memory (recording-db3-1gb, recording-bag-1gb). Each run times four passes over the
 * same recording:
 * - disk: reading every byte of the stored file (8 MiB reads);
 * - bare: `openRecordingFile`, then every message undecoded, touching its bytes, nothing else;
 * - bare inputs: the same for the synchronized topics only, the baseline analyze's own work
 *   (decoding, the pipeline) is read against;
 * - analyze: what `lockstep analyze` does for sync only (open, read the inputs, decode them,
 *   Pipeline with fkie/approximate-time), no output files.
 * The reading passes take turns going first, so none always meets the page cache another left.
 * After the last run, one more analyze pass has its memory sampled (bench/memoryGrowth.ts); it
 * forces collections, so no timed pass follows it (see BenchmarkCase.finish).
 *
 * Reported, as medians over the runs: MB/s of each pass (the stored file's size over the pass's
 * time), messages/s of analyze, `ratio` = analyze time / bare time in the same run,
 * `ratioInputs` = analyze time / bare inputs time, `cpuRatio` and `cpuRatioInputs` the same for
 * the process's CPU time; and the memory pass's growth figures. The check fails when memory is
 * not within the limits given, or the memory pass's output differs from the timed passes'.
 */

import type { BenchmarkCase, CaseSummary, RunResult } from "./Benchmark";
import { memoryBounded, memoryFigures, memorySampledInputsPass, type Memory } from "./memoryGrowth";
import { diskPass, mbps, RunMedians, timedInputsPass, timedPass, undecodedPass, type InputsPass, type PassTime } from "./scaleRuns";
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

/** The times of one run of the four passes. */
interface RunTimes {
  readonly disk: PassTime;
  readonly bare: PassTime;
  readonly bareInputs: PassTime;
  readonly analyze: PassTime;
}

async function timedBare(path: string, topics?: readonly string[]): Promise<PassTime> {
  return await timedPass(async () => await undecodedPass(path, topics));
}

/** The analyze pass, timed and nothing else (no memory samples: they force collections). */
async function analyzePass(path: string): Promise<InputsPass> {
  const { pass, recording } = await timedInputsPass(async () => await openRecordingFile(path), () => undefined);
  await recording.close();
  return pass;
}

/**
 * The case: one analyze pass to count the messages, then 3 runs without warm-up, then (in
 * `finish`, after every timed pass) one more analyze pass with its memory sampled.
 */
export async function memoryScaleCase(options: MemoryScaleCaseOptions): Promise<BenchmarkCase> {
  const { path, file, bytes, limits } = options;
  const probe = await analyzePass(path);
  const done = new RunMedians<RunTimes>();
  return {
    n: probe.messages,
    warmups: 0,
    runs: 3,
    async run(): Promise<RunResult> {
      const disk = await timedPass(async () => await diskPass(file));
      let bare: PassTime;
      let bareInputs: PassTime;
      let analyze: InputsPass;
      if (done.count % 2 === 0) {
        bare = await timedBare(path);
        bareInputs = await timedBare(path, SYNTHETIC_SYNC_TOPICS);
        analyze = await analyzePass(path);
      } else {
        analyze = await analyzePass(path);
        bareInputs = await timedBare(path, SYNTHETIC_SYNC_TOPICS);
        bare = await timedBare(path);
      }
      done.add({ disk, bare, bareInputs, analyze });
      return { elapsedNs: analyze.ns, cpuNs: analyze.cpuNs, tuples: analyze.tuples, outputHash: analyze.hash, extra: { drops: analyze.drops } };
    },
    async finish(): Promise<CaseSummary> {
      const memory = await memorySampledInputsPass(async () => await openRecordingFile(path));
      const analyzeNs = done.median((r) => r.analyze.ns);
      return {
        ok: memory.tuples === probe.tuples && memory.hash === probe.hash && memoryBounded(memory, limits),
        extra: {
          fileMB: Math.round(bytes / 1e5) / 10,
          ...options.facts,
          diskMBps: mbps(bytes, done.median((r) => r.disk.ns)),
          bareMBps: mbps(bytes, done.median((r) => r.bare.ns)),
          bareInputsMBps: mbps(bytes, done.median((r) => r.bareInputs.ns)),
          analyzeMBps: mbps(bytes, analyzeNs),
          inputMsgsPerSec: Math.round((probe.messages * 1e9) / analyzeNs),
          ratio: done.ratio((r) => r.analyze.ns / r.bare.ns),
          cpuRatio: done.ratio((r) => r.analyze.cpuNs / r.bare.cpuNs),
          ratioInputs: done.ratio((r) => r.analyze.ns / r.bareInputs.ns),
          cpuRatioInputs: done.ratio((r) => r.analyze.cpuNs / r.bareInputs.cpuNs),
          ...memoryFigures(memory),
        },
      };
    },
  };
}
