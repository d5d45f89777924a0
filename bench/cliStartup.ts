/**
 * Start-up of the `lockstep` command (`lockstep --help`) against Node itself (`node -e 0`), one
 * after the other in the same run so that the ratio holds on a loaded machine. Each run starts
 * `n` processes of each, alternating; `nsPerMsg` is the mean `lockstep --help` start in ns, the
 * extra fields give the medians in ms (`lockstepMs`, `nodeMs`), their `ratio` and whether the
 * prebuilt bundle (build/lockstep.mjs) was used. Registered as `cli/startup`.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Benchmark, BenchmarkCase, RunResult } from "./Benchmark";
import { medianOf, nowNs } from "./harness";
import { REPO_ROOT } from "./repoRoot";

const ROOT = REPO_ROOT;

function startNs(args: readonly string[]): number {
  const t0 = nowNs();
  const result = spawnSync(process.execPath, args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const elapsed = nowNs() - t0;
  if (result.status !== 0) {
    throw new Error(
      `cli/startup: node ${args.join(" ")} exited ${String(result.status)}: ${String(result.stderr)}`,
    );
  }
  return elapsed;
}

/** `lockstep --help` against `node -e 0`. */
export const cliStartupBenchmark: Benchmark = {
  name: "cli/startup",
  policy: "cli",
  description: "lockstep --help start-up against node -e 0 (processes started one after the other)",
  standard: true,
  defaultN: 5,
  prepare(n: number): BenchmarkCase {
    return {
      n,
      warmups: 1,
      runs: 3,
      run(): RunResult {
        const lockstep: number[] = [];
        const node: number[] = [];
        for (let i = 0; i < n; i++) {
          node.push(startNs(["-e", "0"]));
          lockstep.push(startNs([join(ROOT, "bin/lockstep.js"), "--help"]));
        }
        const lockstepMs = medianOf(lockstep) / 1e6;
        const nodeMs = medianOf(node) / 1e6;
        return {
          elapsedNs: lockstep.reduce((a, b) => a + b, 0),
          tuples: 0,
          outputHash: "-",
          extra: {
            lockstepMs: Math.round(lockstepMs),
            nodeMs: Math.round(nodeMs),
            ratio: Math.round((lockstepMs / nodeMs) * 100) / 100,
            bundled: existsSync(join(ROOT, "build/lockstep.mjs")),
          },
        };
      },
    };
  },
};
