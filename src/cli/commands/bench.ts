import type { Command } from "commander";
import { spawnSync } from "node:child_process";

import type { Benchmark, BenchmarkReport } from "../../../bench/Benchmark";
import { ConfigError } from "../../pipeline";
import { CliError } from "../CliError";
import { fusionNodeArguments } from "../youngGeneration";

/**
 * Registers `lockstep bench [NAME…] [--n N] [--json] [--list]` (DESIGN §3.3, §5). Runs the
 * selected benchmarks (the standard set when no name is given), each as warm-up plus median of
 * several runs, timing only the delivery loop. `--json` prints one JSON line per benchmark; else a
 * table. Benchmarks that this build cannot run (a policy not available yet) are skipped with a
 * note on stderr. Exit 1 when a benchmark fails or a check (the w3-10x heap check) does not pass.
 *
 * Each benchmark runs in a fresh Node process by default: V8's type feedback from one benchmark
 * (other item types, other hosts calling the same policy code) otherwise slows the next one down
 * by several times. `--in-process` runs them all here (for profiling).
 */
export function registerBench(program: Command): void {
  program
    .command("bench")
    .description("run the benchmarks (W3/W3E synchronizer throughput, heap check); see --list")
    .argument(
      "[names...]",
      'benchmarks to run: full names or leading parts ("w3", "w3e/fkie-approximate-time", "*/*/bare", "w3-10x")',
    )
    .option(
      "--n <N>",
      "messages per run for W3-based benchmarks (default 1000000; w3-10x runs 10 x N)",
    )
    .option("--json", "one JSON line per benchmark instead of a table")
    .option("--list", "list the benchmarks and exit")
    .option("--in-process", "run every benchmark in this process instead of a fresh one each")
    .option(
      "--peers",
      "also build and run the C++ peers and floors of ../shared/bench/peers (needs g++), interleaved, and print same-run ratios",
    )
    .option("--rounds <R>", "with --peers: interleaved rounds whose medians are compared (default 3)")
    .action(async (names: string[], opts: BenchOptions) => {
      await bench(names, opts);
    });
}

interface BenchOptions {
  n?: string;
  json?: boolean;
  list?: boolean;
  inProcess?: boolean;
  peers?: boolean;
  rounds?: string;
}

async function bench(names: string[], opts: BenchOptions): Promise<void> {
  // Loaded on use: the benchmarks pull in every layer (fusion, recordings), which the other
  // commands must not pay for at startup, nor break on.
  const { BENCHMARKS, selectBenchmarks } = await import("../../../bench/registry");
  const { runBenchmark } = await import("../../../bench/harness");
  const { machineInfo, machineText } = await import("../../../bench/machine");
  if (opts.list === true) {
    for (const b of BENCHMARKS) {
      process.stdout.write(
        `${b.name.padEnd(42)} ${b.standard ? "std" : "   "}  ${b.description}\n`,
      );
    }
    return;
  }
  let n: number | undefined;
  if (opts.n != undefined) {
    n = Number(opts.n.replace(/_/g, ""));
    if (!Number.isSafeInteger(n) || n < 1) {
      throw new CliError(`--n: "${opts.n}" is not a positive integer number of messages`, 2);
    }
  }
  let selected;
  try {
    selected = selectBenchmarks(names);
  } catch (err) {
    throw new CliError(err instanceof Error ? err.message : String(err), 2);
  }
  const json = opts.json === true;
  if (opts.peers === true) {
    const rounds = opts.rounds == undefined ? 3 : Number(opts.rounds);
    if (!Number.isSafeInteger(rounds) || rounds < 1) {
      throw new CliError(`--rounds: "${String(opts.rounds)}" is not a positive integer`, 2);
    }
    const { benchWithPeers } = await import("../../../bench/peersRun");
    const ok = benchWithPeers({
      machine: machineInfo(),
      names: names.length > 0 ? selected.map((b) => b.name) : undefined,
      n: opts.n,
      rounds,
      json,
      runLockstep: (name) => runInChild(process.argv[1]!, name, opts.n, selected.find((b) => b.name === name)),
    });
    if (!ok) {
      process.exitCode = 1;
    }
    return;
  }
  // Absolute figures depend on the machine (DESIGN §5): the table opens with it, every JSON line
  // carries it.
  const machine = machineInfo();
  if (!json) {
    process.stdout.write(`machine: ${machineText(machine)}\n${header()}\n`);
  }
  const print = (report: BenchmarkReport): void => {
    process.stdout.write(`${json ? JSON.stringify({ ...report, machine }) : row(report)}\n`);
  };
  let failed = false;
  // The script that started this process (bin/lockstep.js), to start one per benchmark.
  const script = opts.inProcess === true ? undefined : process.argv[1];
  for (const b of selected) {
    if (script != undefined) {
      const child = runInChild(script, b.name, opts.n, b);
      failed ||= !child.ok;
      for (const report of child.reports) {
        failed ||= !report.ok;
        print(report);
      }
      continue;
    }
    let report: BenchmarkReport;
    try {
      report = await runBenchmark(b, n);
    } catch (err) {
      if (err instanceof ConfigError) {
        process.stderr.write(
          `lockstep bench: skipped ${b.name}: ${err.issues.map((i) => i.message).join("; ")}\n`,
        );
        continue;
      }
      failed = true;
      process.stderr.write(
        `lockstep bench: ${b.name} failed: ${err instanceof Error ? err.message : String(err)}\n`,
      );
      continue;
    }
    if (!report.ok) {
      failed = true;
    }
    print(report);
  }
  if (failed) {
    process.exitCode = 1;
  }
}

/**
 * Runs one benchmark in a fresh process (`bench NAME --in-process --json`); its stderr is passed
 * on. A fusion benchmark (policy `fuse/…`) gets the young generation `analyze` gives a fusion run.
 */
function runInChild(
  script: string,
  name: string,
  n: string | undefined,
  benchmark: Benchmark | undefined,
): { ok: boolean; reports: BenchmarkReport[] } {
  const flags = benchmark?.policy.startsWith("fuse/") === true ? fusionNodeArguments() : [];
  const args = [...flags, ...process.execArgv, script, "bench", name, "--in-process", "--json"];
  if (n != undefined) {
    args.push("--n", n);
  }
  const r = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.stderr) {
    process.stderr.write(r.stderr);
  }
  if (r.error != undefined) {
    process.stderr.write(`lockstep bench: ${name} could not start: ${r.error.message}\n`);
    return { ok: false, reports: [] };
  }
  const reports = r.stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as BenchmarkReport);
  return { ok: r.status === 0, reports };
}

const COLUMNS = [
  ["benchmark", 40],
  ["n", 9],
  ["msgs/s", 11],
  ["ns/msg", 8],
  ["tuples", 8],
  ["drops", 8],
  ["outputHash", 17],
  ["heapMB", 7],
] as const;

function header(): string {
  return COLUMNS.map(([title, width], i) =>
    i === 0 ? title.padEnd(width) : title.padStart(width),
  ).join(" ");
}

function row(r: BenchmarkReport): string {
  const cells = [
    r.name,
    String(r.n),
    formatRate(r.msgsPerSec),
    r.nsPerMsg.toFixed(1),
    String(r.tuples),
    r.drops == undefined ? "" : String(r.drops),
    r.outputHash,
    r.heapMB.toFixed(1),
  ];
  const line = cells
    .map((c, i) => (i === 0 ? c.padEnd(COLUMNS[i][1]) : c.padStart(COLUMNS[i]![1])))
    .join(" ");
  const extras = Object.entries(r)
    .filter(([k]) => !STANDARD_KEYS.has(k))
    .map(([k, v]) => `${k}=${String(v)}`);
  return extras.length > 0 || !r.ok ? `${line}  ${r.ok ? "" : "FAILED "}${extras.join(" ")}` : line;
}

const STANDARD_KEYS = new Set([
  "name",
  "policy",
  "n",
  "msgsPerSec",
  "nsPerMsg",
  "tuples",
  "outputHash",
  "heapMB",
  "runs",
  "ok",
  "drops",
  "machine",
]);

function formatRate(perSec: number): string {
  return perSec >= 1e6 ? `${(perSec / 1e6).toFixed(2)} M` : `${(perSec / 1e3).toFixed(1)} k`;
}
