/**
 * `analyze` on the embedded recording against a bare decode of the same file (DESIGN §5).
 *
 * Both sides read samples/husky-2015.bag from memory (ArrayByteSource, so disk I/O is not
 * measured) through the same reader: "bare" decodes the messages of the topics the pipeline reads
 * and does nothing else; "analyze" pushes each message through the Pipeline of config/husky.json
 * (stamps, combiner, statistics, drop records; the fusion section is not run here, see
 * `fixed-lag/runner`). The ratio analyze / bare is the figure of merit (target ≤ 1.2).
 *
 * Registered in `lockstep bench` as `analyze/husky` (standard set). Each run times both sides
 * back to back; the JSON line's `nsPerMsg` is the analyze side, and the extra fields give the
 * medians over the measured runs: `bareMs`, `analyzeMs`, `ratio`. It also runs on its own:
 *
 *   npx tsx bench/analyze.ts [runs]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import type { Benchmark, BenchmarkCase, RunResult } from "./Benchmark";
import { CountedPipeline } from "./countedPipeline";
import { medianOf, nowNs } from "./harness";
import { REPO_ROOT } from "./repoRoot";
import { parseConfigText, Pipeline, type PipelineConfig } from "../src/pipeline";
import { ArrayByteSource, openRecording } from "../src/recording";

const ROOT = REPO_ROOT;
const RECORDING = "samples/husky-2015.bag";
const CONFIG = "config/husky.json";

/** Result of the analyze benchmark (ms are medians). */
export interface AnalyzeBenchResult {
  readonly messages: number;
  readonly tuples: number;
  readonly bareMs: number;
  readonly analyzeMs: number;
  readonly ratio: number;
}

/** One timed pass of each side. */
interface Pass {
  readonly ns: number;
  readonly messages: number;
}

/** What one analyze pass produced, to compare runs. */
interface AnalyzePass extends Pass {
  readonly tuples: number;
  readonly drops: number;
  readonly hash: string;
}

/** The recording bytes and parsed config, read once (untimed). */
interface Inputs {
  readonly bytes: Uint8Array;
  readonly config: PipelineConfig;
}

function loadInputs(): Inputs {
  return {
    bytes: new Uint8Array(readFileSync(join(ROOT, RECORDING))),
    config: parseConfigText(readFileSync(join(ROOT, CONFIG), "utf8")),
  };
}

/** Decodes every message of the pipeline's topics and does nothing else. */
async function bare({ bytes, config }: Inputs): Promise<Pass> {
  const topics = new Pipeline(config).topics;
  const recording = await openRecording(new ArrayByteSource(bytes));
  const t0 = nowNs();
  let messages = 0;
  for await (const m of recording.messages({ topics })) {
    messages += m.message == undefined ? 0 : 1;
  }
  return { ns: nowNs() - t0, messages };
}

/** Runs the whole pipeline (no fusion) over the recording; hashes the tuples' absolute stamps. */
async function analyze({ bytes, config }: Inputs): Promise<AnalyzePass> {
  const recording = await openRecording(new ArrayByteSource(bytes));
  const counted = new CountedPipeline(config, (hash, t, pipeline) => {
    const base = pipeline.timeBase!;
    for (const s of t.stamps) {
      const { sec, nsec } = base.toSecNsec(s);
      hash.fold(sec).fold(nsec);
    }
  });
  const { pipeline } = counted;
  let messages = 0;
  const t0 = nowNs();
  for await (const m of recording.messages({ topics: pipeline.topics })) {
    pipeline.push(m);
    messages++;
  }
  pipeline.finish();
  return { ns: nowNs() - t0, messages, tuples: counted.tuples, drops: counted.drops, hash: counted.hash.hex() };
}

/**
 * The `lockstep bench` case: every run times a bare decode and then an analysis. Warm-up runs
 * (the first `WARMUPS` calls, as the harness makes them) are not counted in the medians.
 */
async function analyzeCase(): Promise<BenchmarkCase> {
  const inputs = loadInputs();
  const WARMUPS = 1;
  const RUNS = 5;
  const bareNs: number[] = [];
  const analyzeNs: number[] = [];
  let calls = 0;
  const first = await bare(inputs);
  return {
    n: first.messages,
    warmups: WARMUPS,
    runs: RUNS,
    async run(): Promise<RunResult> {
      const b = await bare(inputs);
      const a = await analyze(inputs);
      if (a.messages !== b.messages) {
        throw new Error(`analyze read ${a.messages} messages but the bare decode ${b.messages}`);
      }
      if (++calls > WARMUPS) {
        bareNs.push(b.ns);
        analyzeNs.push(a.ns);
      }
      const bareMs = medianOf(bareNs.length > 0 ? bareNs : [b.ns]) / 1e6;
      const analyzeMs = medianOf(analyzeNs.length > 0 ? analyzeNs : [a.ns]) / 1e6;
      return {
        elapsedNs: a.ns,
        tuples: a.tuples,
        outputHash: a.hash,
        extra: {
          drops: a.drops,
          bareMs: round(bareMs, 2),
          analyzeMs: round(analyzeMs, 2),
          ratio: round(analyzeMs / bareMs, 3),
        },
      };
    },
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * `analyze/husky`: config/husky.json's pipeline (its policy is `fkie/approximate-time`) over
 * samples/husky-2015.bag against a bare decode. `--n` does not apply: the recording fixes n.
 */
export const analyzeBenchmark: Benchmark = {
  name: "analyze/husky",
  policy: "fkie/approximate-time",
  description: "analyze (pipeline of config/husky.json) vs bare decode of samples/husky-2015.bag",
  standard: true,
  defaultN: 0,
  prepare: async () => await analyzeCase(),
};

/** Runs both sides `runs` times, alternating, after one warm-up each (the standalone program). */
export async function benchAnalyze(runs = 5): Promise<AnalyzeBenchResult> {
  const inputs = loadInputs();
  await bare(inputs);
  await analyze(inputs);
  const b: number[] = [];
  const a: number[] = [];
  let last: AnalyzePass | undefined;
  for (let i = 0; i < runs; i++) {
    b.push((await bare(inputs)).ns);
    last = await analyze(inputs);
    a.push(last.ns);
  }
  const bareMs = medianOf(b) / 1e6;
  const analyzeMs = medianOf(a) / 1e6;
  return {
    messages: last?.messages ?? 0,
    tuples: last?.tuples ?? 0,
    bareMs,
    analyzeMs,
    ratio: analyzeMs / bareMs,
  };
}

if (process.argv[1] != undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const runs = Number(process.argv[2] ?? 5);
  const r = await benchAnalyze(runs);
  process.stdout.write(
    `analyze/husky-2015: ${r.messages} messages, ${r.tuples} tuples; bare decode ${r.bareMs.toFixed(1)} ms, ` +
      `analyze ${r.analyzeMs.toFixed(1)} ms, ratio ${r.ratio.toFixed(3)} (median of ${runs})\n`,
  );
}
