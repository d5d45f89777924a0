import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The folder holding inputs the benchmarks build once and keep between runs:
 * `$LOCKSTEP_BENCH_DIR`, default `<tmp>/lockstep-bench` (created when missing).
 */
export function benchDir(): string {
  const dir = process.env.LOCKSTEP_BENCH_DIR ?? join(tmpdir(), "lockstep-bench");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The path of `name` (a file or a folder) in `benchDir()`, built first when missing:
 * `build` writes `<path>.partial` (anything left there by an earlier attempt is removed first),
 * which is renamed to the path only once `build` has resolved, so an interrupted build is never
 * taken for a finished one. `what` says on stderr what is being built ("120 s of recording").
 */
export async function cachedBenchPath(name: string, what: string, build: (partial: string) => Promise<unknown>): Promise<string> {
  const path = join(benchDir(), name);
  if (!existsSync(path)) {
    process.stderr.write(`lockstep bench: writing ${path} (${what}, once)\n`);
    const partial = `${path}.partial`;
    rmSync(partial, { recursive: true, force: true });
    await build(partial);
    renameSync(partial, path);
  }
  return path;
}

/**
 * Recorded seconds of a benchmark's synthetic file: the environment variable `variable` when set
 * (for trying the benchmark on a small file), else `fallback`. Throws naming the variable when
 * it is not a number of seconds in (0, 3600].
 */
export function benchSeconds(variable: string, fallback: number): number {
  const text = process.env[variable];
  if (text == undefined || text === "") {
    return fallback;
  }
  const seconds = Number(text);
  if (!(seconds > 0 && seconds <= 3600)) {
    throw new Error(`${variable}: "${text}" is not a number of seconds (0 to 3600)`);
  }
  return seconds;
}
