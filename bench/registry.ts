/**
 * Every benchmark `lockstep bench` knows, in run order. To add one, write `bench/<name>.ts`
 * exporting a `Benchmark` and add one line here.
 */

import type { Benchmark } from "./Benchmark";
import { analyzeBenchmark } from "./analyze";
import { cliStartupBenchmark } from "./cliStartup";
import { fixedLagBenchmarks } from "./fixedLag";
import { floorBenchmarks } from "./floor";
import { fusionInChromiumBenchmark } from "./fusionInChromium";
import { panelBenchmark } from "./panel";
import { realAppAnalysisBenchmarks } from "./realAppAnalysis";
import { recordingBagScaleBenchmark, recordingBagScanBenchmark } from "./recordingBagScale";
import { recordingDb3ScaleBenchmark } from "./recordingDb3Scale";
import { recordingScaleBenchmark, recordingScanBenchmark } from "./recordingScale";
import { w3HeapCheck } from "./w3HeapCheck";
import { w3SyncBenchmarks } from "./w3Sync";

/** The registry (frozen). Names are unique. */
export const BENCHMARKS: readonly Benchmark[] = Object.freeze([
  ...w3SyncBenchmarks(),
  ...floorBenchmarks,
  w3HeapCheck,
  ...fixedLagBenchmarks,
  fusionInChromiumBenchmark,
  analyzeBenchmark,
  panelBenchmark,
  ...realAppAnalysisBenchmarks,
  cliStartupBenchmark,
  recordingScaleBenchmark,
  recordingScanBenchmark,
  recordingDb3ScaleBenchmark,
  recordingBagScaleBenchmark,
  recordingBagScanBenchmark,
]);

/**
 * The benchmarks selected by `patterns` (names split on "/"; a pattern selects every benchmark
 * whose leading segments match it, "*" matching any one segment: "w3" selects all of W3,
 * "*\/fkie-approximate-time" both workloads of that policy). No pattern = the standard set.
 * Throws Error naming the patterns that match nothing, with the list of names.
 */
export function selectBenchmarks(
  patterns: readonly string[],
  registry: readonly Benchmark[] = BENCHMARKS,
): Benchmark[] {
  if (patterns.length === 0) {
    return registry.filter((b) => b.standard);
  }
  const unmatched = patterns.filter((p) => !registry.some((b) => matches(p, b.name)));
  if (unmatched.length > 0) {
    throw new Error(
      `no benchmark matches ${unmatched.map((p) => `"${p}"`).join(", ")}; available: ${registry
        .map((b) => b.name)
        .join(", ")}`,
    );
  }
  return registry.filter((b) => patterns.some((p) => matches(p, b.name)));
}

function matches(pattern: string, name: string): boolean {
  const p = pattern.split("/");
  const s = name.split("/");
  return p.length <= s.length && p.every((seg, i) => seg === "*" || seg === s[i]);
}
