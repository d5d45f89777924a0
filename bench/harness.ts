import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

import type { Benchmark, BenchmarkReport, RunResult } from "./Benchmark";

/**
 * A full garbage collection, so runs start from the same heap state and heap figures mean
 * something. Works without `node --expose-gc` (the flag is set at run time; the `gc` function is
 * taken from a fresh context, which sees it).
 */
export function collectGarbage(): void {
  gcFunction()();
}

let cachedGc: (() => void) | undefined;
function gcFunction(): () => void {
  if (cachedGc == undefined) {
    setFlagsFromString("--expose-gc");
    cachedGc = runInNewContext("gc") as () => void;
  }
  return cachedGc;
}

/** Heap used now, MiB (one decimal). */
export function heapUsedMB(): number {
  return Math.round((process.memoryUsage().heapUsed / 1048576) * 10) / 10;
}

/**
 * Runs one benchmark: prepares it for `n` messages (its default when undefined), does the warm-up
 * runs, then the measured runs back to back, then the case's `finish` (untimed), and reports the
 * median; the heap figure is taken after a final full GC.
 *
 * No GC is forced before or between measured runs: a forced full GC shrinks V8's young
 * generation, and the next run then pays for regrowing it (measured: the W3 pipeline ran about 2×
 * slower that way), which a long-running pipeline never sees; and after one, V8 can keep
 * collecting its old generation every few milliseconds (reading a 1 GB bag: from 0.5–0.7 s a
 * pass to 1.0–1.3 s, a few passes after a single forced collection, on 2026-12-05).
 *
 * The report's extra figures are those of the median run (the middle one by wall time; of an even
 * number, the faster of the middle two), so that a figure derived from the run's time, such as
 * the fusion benchmarks' `realTimeFactor`, is the median's too, followed by `finish`'s. `ok` is
 * false when any run or `finish` failed.
 *
 * Throws when two runs disagree on `tuples` or `outputHash` (the benchmarked code is not
 * deterministic, which is a bug).
 */
export async function runBenchmark(benchmark: Benchmark, n?: number): Promise<BenchmarkReport> {
  const prepared = await benchmark.prepare(n ?? benchmark.defaultN);
  const warmups = prepared.warmups ?? 2;
  const runs = Math.max(1, prepared.runs ?? 5);
  let reference: RunResult | undefined;
  const check = (r: RunResult): void => {
    reference ??= r;
    if (r.tuples !== reference.tuples || r.outputHash !== reference.outputHash) {
      throw new Error(
        `${benchmark.name}: runs disagree (tuples ${reference.tuples} vs ${r.tuples}, ` +
          `outputHash ${reference.outputHash} vs ${r.outputHash}); the benchmarked code is not deterministic`,
      );
    }
  };
  // No forced collection before the runs: each benchmark starts in a fresh process, and after a
  // forced collection V8 can keep collecting its old generation every few milliseconds (see
  // BenchmarkCase.finish).
  for (let i = 0; i < warmups; i++) {
    await turnOfEventLoop();
    check(await prepared.run());
  }
  const results: RunResult[] = [];
  const cpuTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    await turnOfEventLoop();
    const r = await prepared.run();
    check(r);
    results.push(r);
    if (r.cpuNs != undefined) {
      cpuTimes.push(r.cpuNs);
    }
  }
  const summary = await prepared.finish?.();
  collectGarbage();
  const heapMB = heapUsedMB();
  const median = medianOf(results.map((r) => r.elapsedNs));
  const result = [...results].sort((a, b) => a.elapsedNs - b.elapsedNs)[(runs - 1) >> 1]!;
  return {
    ...result.extra,
    ...summary?.extra,
    name: benchmark.name,
    policy: benchmark.policy,
    n: prepared.n,
    msgsPerSec: Math.round((prepared.n * 1e9) / median),
    nsPerMsg: Math.round((median / prepared.n) * 10) / 10,
    ...(cpuTimes.length === runs
      ? { cpuNsPerMsg: Math.round((medianOf(cpuTimes) / prepared.n) * 10) / 10 }
      : {}),
    tuples: result.tuples,
    outputHash: result.outputHash,
    heapMB,
    runs,
    ok: results.every((r) => r.ok ?? true) && (summary?.ok ?? true),
  };
}

/** The median (mean of the middle two for an even count). */
export function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Monotonic time in ns since an arbitrary origin (sub-microsecond resolution); for differences. */
export function nowNs(): number {
  return performance.now() * 1e6;
}

/**
 * CPU time of this process (user + system, all threads) in ns since an arbitrary origin
 * (microsecond resolution); for differences.
 */
export function cpuNowNs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/**
 * Resolves after one turn of the event loop. Before each run: V8 finishes a garbage collection it
 * started (concurrent marking of the old generation) in a task of the event loop; a benchmark
 * that never returns to it keeps that marking running through the timed runs, whose write
 * barriers and CPU (a core of a 2-core machine) it takes: the W3 pipelines ran 15–60 % longer in
 * the processes where it happened (about one in three), which a pipeline fed from the event loop
 * (the CLI, the panel) does not see.
 */
async function turnOfEventLoop(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}
