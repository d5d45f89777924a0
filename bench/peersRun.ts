/**
 * `lockstep bench --peers`: Lockstep's W3 benchmarks, the C++ peers and the floors, run
 * interleaved (round after round, each program in a fresh process) and compared by the medians
 * of per-round ratios, which stay put on a shared machine when absolute times do not.
 */

import type { BenchmarkReport } from "./Benchmark";
import { medianOf } from "./harness";
import { machineText, type MachineInfo } from "./machine";
import { buildPeers, PEER_FLOORS, PEER_PAIRS, runPeer } from "./peers";

/** How `benchWithPeers` runs. */
export interface PeersRunOptions {
  /** Lockstep benchmarks to run (default: those with a C++ peer, and the floors). */
  readonly names?: readonly string[];
  /** `--n` as given (messages per run), passed to every program. */
  readonly n?: string;
  /** Interleaved rounds. */
  readonly rounds: number;
  /** One JSON line per benchmark instead of a table. */
  readonly json: boolean;
  /** The machine everything runs on: the table opens with it, every JSON line carries it. */
  readonly machine: MachineInfo;
  /** Runs one Lockstep benchmark in a fresh process. */
  readonly runLockstep: (name: string) => { ok: boolean; reports: BenchmarkReport[] };
}

const FLOOR_OF_KIND = { bare: "floor/w3/bare", messages: "floor/w3/messages" } as const;

/** Runs everything `rounds` times, prints the comparison; false when a Lockstep run failed. */
export function benchWithPeers(options: PeersRunOptions): boolean {
  const log = (line: string): void => {
    process.stderr.write(`lockstep bench: ${line}\n`);
  };
  const build = buildPeers(undefined, log);
  if ("skipped" in build) {
    log(`C++ peers skipped: ${build.skipped}`);
  }
  const dir = "dir" in build ? build.dir : undefined;
  const names = options.names ?? [
    FLOOR_OF_KIND.bare,
    FLOOR_OF_KIND.messages,
    ...PEER_PAIRS.map((p) => p.lockstep),
  ];
  const n = options.n == undefined ? undefined : Number(options.n.replace(/_/g, ""));
  // name -> per-round figures (ns/msg), for Lockstep ("wall", "cpu") and the peers ("cpp", "js").
  const figures = new Map<string, { wall: number[]; cpu: number[] }>();
  const record = (name: string, wall: number, cpu?: number): void => {
    const f = figures.get(name) ?? { wall: [], cpu: [] };
    f.wall.push(wall);
    if (cpu != undefined) {
      f.cpu.push(cpu);
    }
    figures.set(name, f);
  };
  const reports = new Map<string, BenchmarkReport>();
  let ok = true;
  for (let pass = 0; pass < options.rounds; pass++) {
    log(`round ${pass + 1} of ${options.rounds}`);
    if (dir != undefined) {
      for (const kind of ["bare", "messages"] as const) {
        for (const [impl, cmd] of [
          ["cpp", PEER_FLOORS[kind].cpp],
          ["js", PEER_FLOORS[kind].js],
        ] as const) {
          const r = runPeer(dir, cmd, n, log);
          if (r) {
            record(`peer:floor/${kind}/${impl}`, r.nsPerMsg);
          }
        }
      }
    }
    for (const name of names) {
      const child = options.runLockstep(name);
      ok &&= child.ok;
      for (const r of child.reports) {
        ok &&= r.ok;
        reports.set(r.name, r);
        record(r.name, r.nsPerMsg, typeof r.cpuNsPerMsg === "number" ? r.cpuNsPerMsg : undefined);
      }
      const pair = PEER_PAIRS.find((p) => p.lockstep === name);
      if (pair && dir != undefined) {
        for (const [key, command] of [
          [`peer:${name}`, pair.cpp],
          [`peer:linked:${name}`, pair.cppLinked],
        ] as const) {
          const r = runPeer(dir, command, n, log);
          if (r) {
            record(key, r.nsPerMsg);
            if (r.outputHash != undefined && r.outputHash !== reports.get(name)?.outputHash) {
              log(`${name}: the C++ peer ${command.join(" ")}'s output hash ${r.outputHash} differs from Lockstep's`);
            }
          }
        }
      }
    }
  }
  const med = (xs: readonly number[] | undefined): number | undefined =>
    xs == undefined || xs.length === 0 ? undefined : medianOf(xs);
  // Median over rounds of the per-round ratio a/b (rounds where both ran).
  const ratio = (a: readonly number[] | undefined, b: readonly number[] | undefined) => {
    if (a == undefined || b == undefined) {
      return undefined;
    }
    const k = Math.min(a.length, b.length);
    return k === 0 ? undefined : round(medianOf(a.slice(0, k).map((x, i) => x / b[i]!)), 2);
  };
  const lines: Record<string, number | string>[] = [];
  for (const [name, f] of figures) {
    if (name.startsWith("peer:")) {
      continue;
    }
    const line: Record<string, number | string> = {
      name,
      rounds: f.wall.length,
      nsPerMsg: round(med(f.wall)!, 1),
    };
    if (f.cpu.length > 0) {
      line.cpuNsPerMsg = round(med(f.cpu)!, 1);
    }
    const pair = PEER_PAIRS.find((p) => p.lockstep === name);
    const cpp = figures.get(`peer:${name}`)?.wall;
    if (cpp) {
      line.cppNsPerMsg = round(med(cpp)!, 1);
      // How many times faster than the C++ library ("≥ 2×" targets, read against this build).
      line.cppOverLockstep = ratio(cpp, f.wall)!;
    }
    const cppLinked = figures.get(`peer:linked:${name}`)?.wall;
    if (cppLinked) {
      line.cppLinkedNsPerMsg = round(med(cppLinked)!, 1);
      line.cppLinkedOverLockstep = ratio(cppLinked, f.wall)!;
    }
    const kind = pair?.floor ?? familyFloor(name);
    if (kind != undefined) {
      const jsFloor = figures.get(`peer:floor/${kind}/js`)?.wall;
      if (jsFloor) {
        line.overJsFloor = ratio(f.wall, jsFloor)!;
      }
      const own = figures.get(FLOOR_OF_KIND[kind]);
      if (own && name !== FLOOR_OF_KIND[kind]) {
        line.overFloorWall = ratio(f.wall, own.wall)!;
        if (f.cpu.length > 0 && own.cpu.length > 0) {
          line.overFloorCpu = ratio(f.cpu, own.cpu)!;
        }
      }
    }
    const family = familyApproximate(name);
    const fam = family == undefined ? undefined : figures.get(family);
    if (fam && family !== name) {
      line.overFamilyApproximate = ratio(f.wall, fam.wall)!;
      if (f.cpu.length > 0 && fam.cpu.length > 0) {
        line.overFamilyApproximateCpu = ratio(f.cpu, fam.cpu)!;
      }
    }
    lines.push(line);
  }
  for (const kind of ["bare", "messages"] as const) {
    for (const impl of ["cpp", "js"] as const) {
      const f = figures.get(`peer:floor/${kind}/${impl}`);
      if (f) {
        lines.push({
          name: `peer floor ${kind} (${impl})`,
          rounds: f.wall.length,
          nsPerMsg: round(med(f.wall)!, 1),
        });
      }
    }
  }
  for (const warning of unsteadyFloors(figures)) {
    log(warning);
  }
  if (!options.json) {
    process.stdout.write(`machine: ${machineText(options.machine)}\n`);
  }
  for (const line of lines) {
    process.stdout.write(
      options.json ? `${JSON.stringify({ ...line, machine: options.machine })}\n` : `${describe(line)}\n`,
    );
  }
  return ok;
}

/** Slowest over fastest round of a floor beyond which the run's ratios against it are not to be trusted. */
export const FLOOR_SPREAD_LIMIT = 1.25;

/**
 * A warning for each floor (Lockstep's and the peers') whose rounds ranged more than
 * FLOOR_SPREAD_LIMIT: on some VMs a floor runs in one of two modes from one process to the next
 * (9.4 against 12.7 ns, 14.2 against 23.6), and a ratio read against a floor in its slow mode
 * flatters Lockstep by that much. `figures` maps a name to its per-round ns/msg.
 */
export function unsteadyFloors(figures: ReadonlyMap<string, { readonly wall: readonly number[] }>): string[] {
  const warnings: string[] = [];
  for (const [name, f] of figures) {
    const floor = name.startsWith("floor/") || name.startsWith("peer:floor/");
    if (!floor || f.wall.length < 2) {
      continue;
    }
    const lo = Math.min(...f.wall);
    const hi = Math.max(...f.wall);
    if (hi > lo * FLOOR_SPREAD_LIMIT) {
      warnings.push(
        `${name.replace(/^peer:/, "peer ")} ranged ${round(lo, 1)}–${round(hi, 1)} ns over the rounds (${round(hi / lo, 2)}×): ` +
          "the ratios against it in this run are not to be trusted; run again",
      );
    }
  }
  return warnings;
}

/** The floor a benchmark without a C++ peer is read against (pipelines carry messages). */
function familyFloor(name: string): "bare" | "messages" | undefined {
  if (name.startsWith("floor/")) {
    return undefined;
  }
  return name.endsWith("/bare") ? "bare" : name.endsWith("/pipeline") ? "messages" : undefined;
}

/** `w3-other/ros-exact-time/pipeline` -> `w3/ros-approximate-time/pipeline` (its family's figure). */
function familyApproximate(name: string): string | undefined {
  const m = /^w3-other\/(fkie|ros|python)-[a-z-]+\/pipeline$/.exec(name);
  if (m == undefined) {
    return undefined;
  }
  return m[1] === "python"
    ? "w3-other/python-approximate-time/pipeline"
    : `w3/${m[1]!}-approximate-time/pipeline`;
}

function describe(line: Record<string, number | string>): string {
  const { name, ...rest } = line;
  return `${String(name).padEnd(44)} ${Object.entries(rest)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ")}`;
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
