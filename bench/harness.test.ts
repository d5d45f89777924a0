import { describe, expect, it } from "vitest";

import type { Benchmark, CaseSummary, RunResult } from "./Benchmark";
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

describe("runBenchmark with a case's finish", () => {
  /** A case that records what happened in order, and whose finish reports `summary`. */
  function withFinish(summary: CaseSummary, log: string[]): Benchmark {
    return {
      ...scripted([100]),
      prepare: (n) => {
        let run = 0;
        return {
          n,
          warmups: 1,
          runs: 3,
          run: (): RunResult => {
            log.push(`run ${run++}`);
            return { elapsedNs: 100, tuples: 1, outputHash: "0", extra: { shared: "run", perRun: run } };
          },
          finish: (): CaseSummary => {
            log.push("finish");
            return summary;
          },
        };
      },
    };
  }

  it("calls finish once, after the warm-ups and every measured run, and reports its figures over the runs'", async () => {
    const log: string[] = [];
    const report = await runBenchmark(withFinish({ extra: { shared: "finish", overAll: 7 } }, log));
    expect(log).toEqual(["run 0", "run 1", "run 2", "run 3", "finish"]);
    expect(report.shared).toBe("finish");
    expect(report.overAll).toBe(7);
    expect(report.perRun).toBe(3); // the median run's own figure stays
    expect(report.ok).toBe(true);
  });

  it("is not ok when finish's check failed, though every run passed", async () => {
    expect((await runBenchmark(withFinish({ ok: false }, []))).ok).toBe(false);
  });
});
