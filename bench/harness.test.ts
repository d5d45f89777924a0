import { describe, expect, it } from "vitest";

import type { Benchmark, RunResult } from "./Benchmark";
import { runBenchmark } from "./harness";

/** A benchmark whose runs report the given wall times (ns), each with its time as an extra figure. */
function scripted(times: readonly number[], ok: readonly boolean[] = times.map(() => true)): Benchmark {
  return {
    name: "test/scripted",
    policy: "test",
    description: "scripted run times",
    standard: false,
    defaultN: 10,
    prepare: (n) => {
      let run = 0;
      return {
        n,
        warmups: 0,
        runs: times.length,
        run: (): RunResult => {
          const k = run++;
          return { elapsedNs: times[k]!, tuples: 1, outputHash: "0", ok: ok[k], extra: { perRun: times[k]! / 2 } };
        },
      };
    },
  };
}

describe("runBenchmark", () => {
  it("reports the median run's extra figures, not the last run's", async () => {
    const report = await runBenchmark(scripted([200, 100, 300]));
    expect(report.nsPerMsg).toBe(20);
    expect(report.perRun).toBe(100);
    const even = await runBenchmark(scripted([200, 100, 300, 400]));
    expect(even.nsPerMsg).toBe(25); // the mean of the middle two
    expect(even.perRun).toBe(100); // the faster of the middle two
  });

  it("is not ok when any run failed its check", async () => {
    expect((await runBenchmark(scripted([100, 200, 300], [true, false, true]))).ok).toBe(false);
    expect((await runBenchmark(scripted([100, 200, 300]))).ok).toBe(true);
  });
});
