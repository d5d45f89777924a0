import { CountedPipeline } from "./countedPipeline";
import { cpuNowNs, medianOf, nowNs } from "./harness";
import { SYNTHETIC_CONFIG_TEXT } from "./syntheticRobot";
import { parseConfigText } from "../src/pipeline";
import type { Recording } from "../src/recording";
import { FileByteSource, openRecordingFile } from "../src/recording/node";

const READ_BLOCK = 8 << 20;

/**
 * The disk pass of the scale benchmarks, the baseline every other pass is compared with: reads
 * every byte of the file at `path` in 8 MiB reads, in order (the page cache is usually warm
 * after the first run). Returns a value depending on what was read, so the reads are not idle.
 */
export async function diskPass(path: string): Promise<number> {
  const source = await FileByteSource.open(path);
  try {
    let sum = 0;
    for (let at = 0; at < source.size; at += READ_BLOCK) {
      const block = await source.read(at, Math.min(READ_BLOCK, source.size - at));
      sum += block[0]!;
    }
    return sum;
  } finally {
    await source.close();
  }
}

/**
 * The bare pass of the scale benchmarks that read with Lockstep's reader: opens the recording at
 * `path` (a file or a rosbag2 folder) and takes every message (of `topics`, when given)
 * undecoded, touching its bytes, nothing else. Returns a value depending on them, so the reads
 * are not idle.
 */
export async function undecodedPass(path: string, topics?: readonly string[]): Promise<number> {
  const recording = await openRecordingFile(path);
  try {
    let sum = 0;
    for await (const m of recording.messages({ decode: false, topics })) {
      const data = m.data;
      sum += data.length + (data.length > 0 ? data[0]! + data[data.length - 1]! : 0);
    }
    return sum;
  } finally {
    await recording.close();
  }
}

/** Wall and CPU time of one pass. */
export interface PassTime {
  readonly ns: number;
  readonly cpuNs: number;
}

/** Runs `pass` and returns its wall and CPU time. */
export async function timedPass(pass: () => Promise<unknown>): Promise<PassTime> {
  const t = nowNs();
  const c = cpuNowNs();
  await pass();
  return { ns: nowNs() - t, cpuNs: cpuNowNs() - c };
}

/** Throughput in MB/s (10^6 bytes), one decimal. */
export function mbps(bytes: number, ns: number): number {
  return Math.round((bytes / 1e6 / (ns / 1e9)) * 10) / 10;
}

/**
 * The runs of a benchmark so far, for figures that are medians over all of them (a run's own
 * figure alone moves with the machine's other load).
 */
export class RunMedians<T> {
  readonly #runs: T[] = [];

  /** Runs recorded so far. */
  public get count(): number {
    return this.#runs.length;
  }

  /** Records one run. */
  public add(run: T): void {
    this.#runs.push(run);
  }

  /** The median of `f` over the runs so far (NaN before the first). */
  public median(f: (run: T) => number): number {
    return this.#runs.length === 0 ? Number.NaN : medianOf(this.#runs.map(f));
  }

  /** The same, rounded to three decimals (for ratios). */
  public ratio(f: (run: T) => number): number {
    return Math.round(this.median(f) * 1000) / 1000;
  }
}

/** What one analyze pass over the synthetic robot's inputs gave (times without its measurements). */
export interface InputsPass extends PassTime {
  readonly messages: number;
  readonly tuples: number;
  readonly drops: number;
  readonly hash: string;
}

/** Where an analyze pass is, for what a benchmark measures along it. */
export interface InputsPassState<R extends Recording = Recording> {
  readonly recording: R;
  /** Messages pushed so far (0: the recording has just been opened). */
  readonly messages: number;
  /** The reader's progress through the file, 0 to 1. */
  readonly fraction: number;
}

/**
 * The analyze pass of the scale benchmarks: opens the recording with `open` and runs the
 * synthetic robot's sync-only pipeline over its inputs, timing both. `observe` is called once
 * the recording is open and after each message; what it runs through `untimed` (collections,
 * memory samples) is left out of the times. Returns the figures and the recording, still open:
 * the caller closes it.
 */
export async function timedInputsPass<R extends Recording>(
  open: () => Promise<R>,
  observe: (state: InputsPassState<R>, untimed: (measure: () => void) => void) => void,
): Promise<{ pass: InputsPass; recording: R }> {
  const config = parseConfigText(SYNTHETIC_CONFIG_TEXT);
  let pausedNs = 0;
  let pausedCpu = 0;
  const untimed = (measure: () => void): void => {
    const p0 = nowNs();
    const q0 = cpuNowNs();
    measure();
    pausedNs += nowNs() - p0;
    pausedCpu += cpuNowNs() - q0;
  };
  const c0 = cpuNowNs();
  const t0 = nowNs();
  const recording = await open();
  const counted = new CountedPipeline(config, (hash, t) => {
    hash.fold(t.stamps[0]!);
  });
  const { pipeline } = counted;
  let messages = 0;
  let fraction = 0;
  observe({ recording, messages, fraction }, untimed);
  for await (const m of recording.messages({
    topics: pipeline.topics,
    onProgress: (p) => {
      fraction = p.fraction;
    },
  })) {
    pipeline.push(m);
    messages++;
    observe({ recording, messages, fraction }, untimed);
  }
  pipeline.finish();
  const pass: InputsPass = {
    ns: nowNs() - t0 - pausedNs,
    cpuNs: cpuNowNs() - c0 - pausedCpu,
    messages,
    tuples: counted.tuples,
    drops: counted.drops,
    hash: counted.hash.hex(),
  };
  return { pass, recording };
}
