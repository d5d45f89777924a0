/**
 * The W3 floor in Lockstep's own process (shared/bench/peers/README.md, "floors"): the least work
 * any synchronizer must do per message (read topic and stamp, append the stamp to that topic's
 * ring bounded to head + 10, compare it with the heads of the other two rings), so that the
 * synchronizer figures of the same `lockstep bench` run can be read as multiples of it. `messages`
 * does the same from `{header: {stamp: {sec, nsec}}}` objects, keeping each object in the ring
 * beside its stamp (the floor of a pipeline that carries messages). Timed like the W3 benchmarks
 * (wall and CPU time); `tuples` is the comparison count, so nothing can be optimized away.
 */

import type { Benchmark, BenchmarkCase, RunResult } from "./Benchmark";
import { cpuNowNs, nowNs } from "./harness";
import { generateW3 } from "./w3";
import { W3_DEFAULT_N, type StampedMessage } from "./w3Sync";

// The loops' constants are locals of each pass, not module constants: the CLI's bundle is an ES
// module in which esbuild declares every top-level `const` as a `var`, and TurboFan then reads it
// from the module on every use instead of folding it (measured 2026-12-06: this floor ran at
// 6.1–6.5 ns against 4.8–5.1 for the same loop with module `const`s, in shared floor.mjs).

function floorPass(topics: Uint8Array, stamps: Float64Array): number {
  const RING = 16; // per topic, a power of two above head + 10
  const BOUND = 11; // head + max queue size 10
  const OTHER_A = Uint8Array.of(1, 2, 0);
  const OTHER_B = Uint8Array.of(2, 0, 1);
  const ring = new Float64Array(3 * RING);
  const written = new Uint32Array(3);
  const head = new Uint32Array(3);
  let later = 0;
  for (let i = 0; i < stamps.length; i++) {
    const t = topics[i]!;
    const x = stamps[i]!;
    ring[t * RING + (written[t]! & (RING - 1))] = x;
    if (++written[t]! - head[t]! > BOUND) {
      head[t]!++;
    }
    const u = OTHER_A[t]!;
    const v = OTHER_B[t]!;
    if (written[u] !== head[u] && x > ring[u * RING + (head[u]! & (RING - 1))]!) {
      later++;
    }
    if (written[v] !== head[v] && x > ring[v * RING + (head[v]! & (RING - 1))]!) {
      later++;
    }
  }
  return later;
}

function floorPassMessages(topics: Uint8Array, messages: readonly StampedMessage[]): number {
  const RING = 16;
  const BOUND = 11;
  const OTHER_A = Uint8Array.of(1, 2, 0);
  const OTHER_B = Uint8Array.of(2, 0, 1);
  const ring = new Float64Array(3 * RING);
  const held = new Array<StampedMessage | undefined>(3 * RING).fill(undefined);
  const written = new Uint32Array(3);
  const head = new Uint32Array(3);
  let later = 0;
  for (let i = 0; i < messages.length; i++) {
    const t = topics[i]!;
    const m = messages[i]!;
    const stamp = m.header.stamp;
    const x = stamp.sec * 1e9 + stamp.nsec;
    const at = t * RING + (written[t]! & (RING - 1));
    ring[at] = x;
    held[at] = m;
    if (++written[t]! - head[t]! > BOUND) {
      head[t]!++;
    }
    const u = OTHER_A[t]!;
    const v = OTHER_B[t]!;
    if (written[u] !== head[u] && x > ring[u * RING + (head[u]! & (RING - 1))]!) {
      later++;
    }
    if (written[v] !== head[v] && x > ring[v * RING + (head[v]! & (RING - 1))]!) {
      later++;
    }
  }
  return later + (held[0] == undefined ? 0 : 1);
}

function floorCase(mode: "bare" | "messages", n: number): BenchmarkCase {
  const { topics, stamps } = generateW3(n);
  let messages: StampedMessage[] = [];
  if (mode === "messages") {
    messages = new Array<StampedMessage>(n);
    for (let i = 0; i < n; i++) {
      const sec = Math.floor(stamps[i]! / 1e9);
      messages[i] = { header: { stamp: { sec, nsec: stamps[i]! - sec * 1e9 } } };
    }
  }
  return {
    n,
    run(): RunResult {
      const c0 = cpuNowNs();
      const t0 = nowNs();
      const later =
        mode === "bare" ? floorPass(topics, stamps) : floorPassMessages(topics, messages);
      const elapsedNs = nowNs() - t0;
      const cpuNs = cpuNowNs() - c0;
      return { elapsedNs, cpuNs, tuples: later, outputHash: later.toString(16).padStart(16, "0") };
    },
  };
}

/** `floor/w3/bare` and `floor/w3/messages` (standard: cheap, and every ratio needs them). */
export const floorBenchmarks: readonly Benchmark[] = Object.freeze(
  (["bare", "messages"] as const).map((mode): Benchmark => ({
    name: `floor/w3/${mode}`,
    policy: "floor",
    description:
      mode === "bare"
        ? "W3 floor: the least work per message of any synchronizer (stamps only)"
        : "W3 floor with {header: {stamp}} message objects held beside their stamps",
    standard: true,
    defaultN: W3_DEFAULT_N,
    prepare: (n) => floorCase(mode, n),
  })),
);
