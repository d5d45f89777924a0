/**
 * What reading a recording costs in memory, for the scale benchmarks that check it is bounded
 * (recording-db3-1gb, recording-bag-1gb): an analyze pass (`timedInputsPass`) with the process's
 * memory sampled along it. Measures: RSS; `arrayBuffers` (Buffers and ArrayBuffers, such as the
 * chunks a reader holds or sql.js's in-memory file system); `external`, which holds those and
 * WebAssembly memory (sql.js's heap): the JS heap sees none of them. Samples are taken before the
 * pass (after full GCs), every `SAMPLE_EVERY` messages, at 10 % of the file and at its last
 * message (these three after full GCs, untimed), between messages: a transient peak inside one
 * call (opening the file) is seen only while what it allocated is still alive.
 */

import { collectGarbage } from "./harness";
import { timedInputsPass, type InputsPass } from "./scaleRuns";
import { SYNTHETIC_SYNC_TOPICS } from "./syntheticRobot";
import type { Recording } from "../src/recording";

/** The memory measures sampled, as `process.memoryUsage()` names them, in report order. */
export const MEMORY_MEASURES = ["rss", "arrayBuffers", "external"] as const;
/** One of `MEMORY_MEASURES`. */
export type MemoryMeasure = (typeof MEMORY_MEASURES)[number];
/** A figure (MiB) per measure: a sample, a growth or a limit. */
export type Memory = Readonly<Record<MemoryMeasure, number>>;

/** Messages between two memory samples of the analyze pass. */
const SAMPLE_EVERY = 256;

/** An analyze pass with its memory growth (MiB, one decimal). */
export interface MemorySampledPass extends InputsPass {
  /** The largest sample over the one before the pass. */
  readonly peakGrowthMB: Memory;
  /** From 10 % of the file to its end. */
  readonly growthMB: Memory;
}

/**
 * Two full GCs: a large Buffer dropped by the reader leaves `arrayBuffers` at the first and RSS
 * and `external` only at the second (measured on a 1 GB read), so after one the memory would
 * look held when it is garbage.
 */
function settle(): void {
  collectGarbage();
  collectGarbage();
}

function memoryNow(): Memory {
  const m = process.memoryUsage();
  return { rss: m.rss / 1048576, arrayBuffers: m.arrayBuffers / 1048576, external: m.external / 1048576 };
}

/** `f` of each measure. */
function perMeasure(f: (measure: MemoryMeasure) => number): Memory {
  return { rss: f("rss"), arrayBuffers: f("arrayBuffers"), external: f("external") };
}

/** MiB to one decimal (a median of two samples is their mean, which can carry float noise). */
function roundMB(mb: number): number {
  return Math.round(mb * 10) / 10;
}

/**
 * The analyze pass of the synthetic robot's inputs over the recording `open` opens, with its
 * memory sampled (sampling is left out of the times). The recording is closed after the last
 * sample, so that the end is sampled while the reader still holds what it holds.
 */
export async function memorySampledInputsPass(open: () => Promise<Recording & { close(): Promise<void> }>): Promise<MemorySampledPass> {
  settle();
  const before = memoryNow();
  let peak = before;
  // "settled": after full GCs, so that garbage not yet collected is not taken for growth.
  const sample = (when: "settled" | "now"): Memory => {
    if (when === "settled") {
      settle();
    }
    const m = memoryNow();
    const last = peak;
    peak = perMeasure((k) => Math.max(last[k], m[k]));
    return m;
  };
  let at10: Memory | undefined;
  let atEnd: Memory | undefined;
  let expected: number | undefined;
  const { pass, recording } = await timedInputsPass(open, ({ recording: opened, messages, fraction }, untimed) => {
    // The last message is known by the counts, so that the end is sampled while the reader
    // still holds what it holds (a rosbag2 reader's database goes with the loop's end).
    if (expected == undefined) {
      const counts = opened.info.messageCounts;
      expected = counts == undefined ? -1 : SYNTHETIC_SYNC_TOPICS.reduce((n, topic) => n + (counts.get(topic) ?? 0), 0);
    }
    const total = expected;
    // Readers report progress every few thousand rows or every chunk: on a small file the count tells first.
    if (at10 == undefined && messages > 0 && (fraction >= 0.1 || (total > 0 && messages >= total / 10))) {
      untimed(() => (at10 = sample("settled")));
    } else if (messages === total) {
      untimed(() => (atEnd = sample("settled")));
    } else if (messages % SAMPLE_EVERY === 0) {
      untimed(() => sample("now"));
    }
  });
  try {
    atEnd ??= sample("settled");
    const end = atEnd;
    return {
      ...pass,
      peakGrowthMB: perMeasure((k) => roundMB(peak[k] - before[k])),
      growthMB: perMeasure((k) => (at10 == undefined ? 0 : roundMB(end[k] - at10[k]))),
    };
  } finally {
    await recording.close();
  }
}

/** Whether `pass` stayed within `limits`: every measure's growth from 10 % at most `flat`, its peak growth at most `peak`. */
export function memoryBounded(pass: MemorySampledPass, limits: { readonly flat: Memory; readonly peak: Memory }): boolean {
  return MEMORY_MEASURES.every((k) => pass.growthMB[k] <= limits.flat[k] && pass.peakGrowthMB[k] <= limits.peak[k]);
}

/** The report's memory figures of `pass`: per measure, in `MEMORY_MEASURES` order, `peak<Measure>GrowthMB` then `<measure>GrowthMB`. */
export function memoryFigures(pass: MemorySampledPass): Record<string, number> {
  return Object.fromEntries(
    MEMORY_MEASURES.flatMap((k) => [
      [`peak${k[0]!.toUpperCase()}${k.slice(1)}GrowthMB`, pass.peakGrowthMB[k]],
      [`${k}GrowthMB`, pass.growthMB[k]],
    ]),
  );
}
