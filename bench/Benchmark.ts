/**
 * The shape of a benchmark run by `lockstep bench` (DESIGN §5). A benchmark prepares its input
 * outside any timing, then each `run()` times only its own delivery loop and reports what it
 * produced, so that two runs (or two implementations) can be compared by `tuples` and
 * `outputHash`.
 *
 * To add one: write `bench/<name>.ts` exporting a `Benchmark` (or a list of them) and add it to
 * `bench/registry.ts`.
 */
export interface Benchmark {
  /** Unique name; segments separated by "/" ("w3/fkie-approximate-time/bare"). */
  readonly name: string;
  /** The policy it exercises (a config `type`), or a short label for non-policy benchmarks. */
  readonly policy: string;
  /** One line for `lockstep bench --list` and the human table. */
  readonly description: string;
  /** Part of the standard set (`lockstep bench` without names). */
  readonly standard: boolean;
  /** Messages per run when `--n` is not given. */
  readonly defaultN: number;
  /**
   * Prepare inputs for `n` messages (untimed; may be async, e.g. to read a file). Throwing a
   * `ConfigError` reports that the benchmark cannot run in this build (it is skipped with a note).
   */
  prepare(n: number): BenchmarkCase | Promise<BenchmarkCase>;
}

/** A prepared benchmark: inputs built, ready to run several times. */
export interface BenchmarkCase {
  /** Messages delivered per run (the divisor of ns/msg). */
  readonly n: number;
  /** Untimed warm-up runs before the measured ones. Default 2. */
  readonly warmups?: number;
  /** Measured runs; the median is reported. Default 5. */
  readonly runs?: number;
  /** One run: builds fresh state (untimed), times only the delivery loop. May be async. */
  run(): RunResult | Promise<RunResult>;
  /**
   * Called once after the measured runs, untimed: figures over all of them (their medians), and
   * checks that would disturb the timed runs if made between them. A pass that forces garbage
   * collections (to sample memory) is one: after a forced collection, V8 can go on collecting its
   * old generation every few milliseconds for the rest of the process, which doubled the time of
   * later passes reading a 1 GB recording. Its figures are reported after the median run's, and
   * its `ok` joins the runs'.
   */
  finish?(): CaseSummary | Promise<CaseSummary>;
}

/** What `BenchmarkCase.finish` reports. */
export interface CaseSummary {
  /** Figures over all runs, reported after (and over) the median run's `extra`. */
  readonly extra?: Readonly<Record<string, number | string | boolean>>;
  /** False when a check failed; `lockstep bench` then exits 1. */
  readonly ok?: boolean;
}

/** What one run reports. */
export interface RunResult {
  /** Wall time of the timed loop, ns. */
  readonly elapsedNs: number;
  /**
   * CPU time (user + system, all threads of the process) of the same loop, ns, when the case
   * measures it: on a shared machine it moves much less than wall time with the other load.
   */
  readonly cpuNs?: number;
  /** Number of sets (or other outputs) produced. */
  readonly tuples: number;
  /** A hash of the output (W3.md's output hash for synchronizers); must not vary between runs. */
  readonly outputHash: string;
  /** Extra figures to print and put in the JSON line (e.g. `drops`, `realTimeFactor`). */
  readonly extra?: Readonly<Record<string, number | string | boolean>>;
  /** False when the run failed a check (e.g. the heap grew); `lockstep bench` then exits 1. */
  readonly ok?: boolean;
}

/** The line `lockstep bench --json` prints for one benchmark (DESIGN §3.3). */
export interface BenchmarkReport {
  readonly name: string;
  readonly policy: string;
  readonly n: number;
  /** Median messages per second. */
  readonly msgsPerSec: number;
  /** Median ns per message. (`cpuNsPerMsg`, when present: the median of `RunResult.cpuNs`.) */
  readonly nsPerMsg: number;
  readonly tuples: number;
  readonly outputHash: string;
  /** JS heap used after the last run, MiB. */
  readonly heapMB: number;
  /** Timed runs whose median is reported. */
  readonly runs: number;
  readonly ok: boolean;
  readonly [extra: string]: number | string | boolean;
}
