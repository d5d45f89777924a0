/**
 * The C++ peers of the W3 benchmarks (shared/bench/peers/README.md): fkie_message_filters 3.4.0
 * and ROS 2 message_filters 8.0.2 built against stub time types, plus the floors in C++ and in
 * JavaScript. `lockstep bench --peers` builds them into a scratch folder (never into ../shared,
 * which is read-only in CI) and runs them interleaved with Lockstep's benchmarks, so that the
 * ratios come from one run under one machine load.
 *
 * Optional by design: without ../shared/bench/peers or without g++ the peers are skipped with a
 * message naming what is missing.
 */

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { REPO_ROOT } from "./repoRoot";

const ROOT = REPO_ROOT;
/** Where the peers' sources live: ../shared/bench/peers from a checkout. */
export const PEERS_SOURCE = join(ROOT, "..", "shared", "bench", "peers");

/** One program of the peers, and the Lockstep benchmark it is compared with. */
export interface PeerPair {
  /** The Lockstep benchmark (a registry name). */
  readonly lockstep: string;
  /**
   * The C++ library's program and arguments, relative to the scratch folder: the `-inline` build,
   * the stub time code inlined (the best case for C++, which the targets are read against).
   */
  readonly cpp: readonly string[];
  /**
   * The same program's `-outline` build: the time code called across object files, as a program
   * linked against librclcpp.so calls it (what a ROS node gets).
   */
  readonly cppLinked: readonly string[];
  /** The floor it is read against: `bare` (stamps only) or `messages` (message objects). */
  readonly floor: "bare" | "messages";
}

/**
 * One comparison on both time bases: `w3/<name>` (stamps from 0) against the C++ program's two
 * builds as given, `w3e/<name>` (epoch stamps) against the same programs with `--epoch`.
 */
function onBothBases(name: string, program: string, args: readonly string[], floor: PeerPair["floor"]): PeerPair[] {
  const inline = [`bin/${program}-inline`, ...args];
  const outline = [`bin/${program}-outline`, ...args];
  return [
    { lockstep: `w3/${name}`, cpp: inline, cppLinked: outline, floor },
    { lockstep: `w3e/${name}`, cpp: [...inline, "--epoch"], cppLinked: [...outline, "--epoch"], floor },
  ];
}

/** What `--peers` compares (W3.md's figures; bare policies against the bare floor). */
export const PEER_PAIRS: readonly PeerPair[] = Object.freeze([
  ...onBothBases("fkie-approximate-time/bare", "fkie_bench", ["bare"], "bare"),
  ...onBothBases("fkie-approximate-time/pipeline", "fkie_bench", ["pipeline"], "messages"),
  ...onBothBases("ros-approximate-time/pipeline", "ros2_bench", ["subscriber"], "messages"),
]);

/** The floors, keyed like `PeerPair.floor`: C++ and the shared JavaScript one. */
export const PEER_FLOORS = Object.freeze({
  bare: { cpp: ["bin/floor"], js: ["floors/floor.mjs"] },
  messages: { cpp: ["bin/floor", "msg"], js: ["floors/floor.mjs", "msg"] },
});

/** The built peers, or why they are not available. */
export type PeersBuild = { readonly dir: string } | { readonly skipped: string };

/**
 * Builds the peers into `<tmp>/lockstep-peers` (reused while the sources are unchanged: a stamp
 * file holds a hash of their names, sizes and mtimes). Never writes into `source`.
 */
export function buildPeers(
  source = PEERS_SOURCE,
  log: (line: string) => void = () => undefined,
): PeersBuild {
  if (!existsSync(join(source, "build.sh"))) {
    return { skipped: `no C++ peers at ${source} (../shared/bench/peers is absent)` };
  }
  const cxx = process.env.CXX ?? "g++";
  if (spawnSync(cxx, ["--version"], { encoding: "utf8" }).status !== 0) {
    return { skipped: `${cxx} not found (apt-get install -y g++ to run the C++ peers)` };
  }
  const dir = join(tmpdir(), "lockstep-peers");
  const stamp = join(dir, ".lockstep-build-stamp");
  const want = sourceDigest(source);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === want) {
    return { dir };
  }
  log(`building the C++ peers into ${dir} (about 30 s)`);
  rmSync(dir, { recursive: true, force: true });
  cpSync(source, dir, { recursive: true });
  makeWritable(dir);
  const r = spawnSync("sh", ["build.sh"], { cwd: dir, encoding: "utf8" });
  if (r.status !== 0) {
    return {
      skipped: `building the C++ peers failed (sh build.sh in ${dir}): ${(r.stderr || r.stdout).trim().split("\n").slice(-3).join(" / ")}`,
    };
  }
  writeFileSync(stamp, want);
  return { dir };
}

/** The JSON line a peer program prints (the fields `lockstep bench --json` shares with it). */
export interface PeerReport {
  readonly name: string;
  readonly nsPerMsg: number;
  readonly tuples?: number;
  readonly outputHash?: string;
}

/** Runs one peer program (`node` for .mjs files) in `dir`; undefined with a message on failure. */
export function runPeer(
  dir: string,
  command: readonly string[],
  n: number | undefined,
  log: (line: string) => void,
): PeerReport | undefined {
  const [program, ...args] = command as [string, ...string[]];
  if (n != undefined) {
    args.push(`--n=${n}`);
  }
  const r = program.endsWith(".mjs")
    ? spawnSync(process.execPath, [program, ...args], { cwd: dir, encoding: "utf8" })
    : spawnSync(join(dir, program), args, { cwd: dir, encoding: "utf8" });
  const line = r.stdout.trim().split("\n").pop();
  if (r.status !== 0 || line == undefined || line === "") {
    log(`peer ${command.join(" ")} failed: ${r.stderr.trim() || `exit ${String(r.status)}`}`);
    return undefined;
  }
  return JSON.parse(line) as PeerReport;
}

function sourceDigest(dir: string): string {
  const h = createHash("sha256");
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (name === "bin" || name === "obj") {
        continue;
      }
      const p = join(d, name);
      const s = statSync(p);
      if (s.isDirectory()) {
        walk(p);
      } else {
        h.update(`${p.slice(dir.length)}\0${s.size}\0${s.mtimeMs}\n`);
      }
    }
  };
  walk(dir);
  return h.digest("hex");
}

function makeWritable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      makeWritable(p);
    } else {
      chmodSync(p, 0o644 | (statSync(p).mode & 0o111));
    }
  }
}
