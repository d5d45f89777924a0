/**
 * `analyze` on the embedded recording against a bare decode of the same file (DESIGN §5).
 *
 * Both sides read samples/husky-2015.bag from memory (ArrayByteSource, so disk I/O is not
 * measured) through the same reader: "bare" decodes the three input topics and does nothing else;
 * "analyze" pushes each message through the Pipeline of config/husky.json (stamps, combiner,
 * statistics, drop records). Figures are medians of several runs; the ratio analyze / bare is the
 * figure of merit (target ≤ 1.2). Async (the readers are), so it runs as its own program:
 *
 *   npx tsx bench/analyze.ts [runs]
 *
 * `lockstep bench`'s registry only takes synchronous runs, so this one is not registered there.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { parseConfigText, Pipeline } from "../src/pipeline";
import { ArrayByteSource, openRecording } from "../src/recording";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Result of the analyze benchmark (ms are medians). */
export interface AnalyzeBenchResult {
  readonly messages: number;
  readonly tuples: number;
  readonly bareMs: number;
  readonly analyzeMs: number;
  readonly ratio: number;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Runs both sides `runs` times, alternating, after one warm-up each. */
export async function benchAnalyze(runs = 5): Promise<AnalyzeBenchResult> {
  const bytes = new Uint8Array(readFileSync(join(ROOT, "samples/husky-2015.bag")));
  const configText = readFileSync(join(ROOT, "config/husky.json"), "utf8");
  const config = parseConfigText(configText);
  const topics = (config.inputs ?? []).map((i) => i.topic);
  let messages = 0;
  let tuples = 0;
  const bare = async (): Promise<number> => {
    const recording = await openRecording(new ArrayByteSource(bytes));
    const t0 = performance.now();
    let n = 0;
    for await (const m of recording.messages({ topics })) {
      n += m.message == undefined ? 0 : 1;
    }
    messages = n;
    return performance.now() - t0;
  };
  const analyze = async (): Promise<number> => {
    const recording = await openRecording(new ArrayByteSource(bytes));
    const pipeline = new Pipeline(config);
    let t = 0;
    pipeline.onTuple(() => t++);
    const t0 = performance.now();
    for await (const m of recording.messages({ topics: pipeline.topics })) {
      pipeline.push(m);
    }
    pipeline.finish();
    tuples = t;
    return performance.now() - t0;
  };
  await bare();
  await analyze();
  const b: number[] = [];
  const a: number[] = [];
  for (let i = 0; i < runs; i++) {
    b.push(await bare());
    a.push(await analyze());
  }
  const bareMs = median(b);
  const analyzeMs = median(a);
  return { messages, tuples, bareMs, analyzeMs, ratio: analyzeMs / bareMs };
}

if (process.argv[1] != undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const runs = Number(process.argv[2] ?? 5);
  const r = await benchAnalyze(runs);
  process.stdout.write(
    `analyze/husky-2015: ${r.messages} messages, ${r.tuples} tuples; bare decode ${r.bareMs.toFixed(1)} ms, ` +
      `analyze ${r.analyzeMs.toFixed(1)} ms, ratio ${r.ratio.toFixed(3)} (median of ${runs})\n`,
  );
}
