/**
 * `w3-10x`: W3 with 10 × N messages (10 million by default) through the full pipeline with
 * `fkie/approximate-time`, messages created on the fly (nothing materialized), checking that the
 * JS heap stays flat: heap used after a full GC once 10 % of the stream has gone through (queues
 * filled, code optimized) versus at the end. Growth above `HEAP_GROWTH_LIMIT_MB` fails the check.
 */

import type { Benchmark, BenchmarkCase, RunResult } from "./Benchmark";
import { Fnv64 } from "./Fnv64";
import { collectGarbage, heapUsedMB, nowNs } from "./harness";
import { W3Stream } from "./w3";
import { connectW3Graph, W3_DEFAULT_N, W3_POLICIES, type StampedMessage } from "./w3Sync";
import { Sink } from "../src/filters/Sink";
import { TimeBase, type Stamp } from "../src/time";

/** Heap growth (MiB) between the 10 % mark and the end that still counts as flat. */
export const HEAP_GROWTH_LIMIT_MB = 8;

/** Hashes every set as it arrives (the stream is not kept, so the hash cannot be done later). */
class HashingSink extends Sink<[StampedMessage, StampedMessage, StampedMessage]> {
  public count = 0;
  public readonly hash = new Fnv64();
  readonly #stampOf: (m: StampedMessage) => Stamp;

  public constructor(stampOf: (m: StampedMessage) => Stamp) {
    super();
    this.#stampOf = stampOf;
  }

  protected override receive(a: StampedMessage, b: StampedMessage, c: StampedMessage): void {
    this.hash.fold(this.#stampOf(a)).fold(this.#stampOf(b)).fold(this.#stampOf(c));
    this.count++;
  }
}

/** The `w3-10x` heap check (not in the standard set; select it by name). */
export const w3HeapCheck: Benchmark = Object.freeze({
  name: "w3-10x",
  policy: "fkie/approximate-time",
  description: "heap check: 10 x N W3 messages through the pipeline, heap must stay flat",
  standard: false,
  defaultN: W3_DEFAULT_N,
  prepare(n: number): BenchmarkCase {
    const total = n * 10;
    const policyConfig = W3_POLICIES[0]!;
    const base = new TimeBase(0);
    const stampOf = (m: StampedMessage): Stamp =>
      base.fromSecNsec(m.header.stamp.sec, m.header.stamp.nsec);
    return {
      n: total,
      warmups: 0,
      runs: 1,
      run(): RunResult {
        const sink = new HashingSink(stampOf);
        const graph = connectW3Graph(policyConfig, base, stampOf, sink);
        const { sources } = graph;
        const stream = new W3Stream(total);
        const mark = Math.floor(total / 10);
        let heapBefore = 0;
        let elapsedNs = 0;
        let t0 = nowNs();
        for (let i = 0; stream.next(); i++) {
          if (i === mark) {
            elapsedNs += nowNs() - t0;
            collectGarbage();
            heapBefore = heapUsedMB();
            t0 = nowNs();
          }
          const sec = Math.floor(stream.stamp / 1e9);
          sources[stream.topic]!.push({
            header: { stamp: { sec, nsec: stream.stamp - sec * 1e9 } },
          });
        }
        elapsedNs += nowNs() - t0;
        collectGarbage();
        const heapAfter = heapUsedMB();
        const growth = Math.round((heapAfter - heapBefore) * 10) / 10;
        return {
          elapsedNs,
          tuples: sink.count,
          outputHash: sink.hash.hex(),
          extra: {
            drops: graph.drops,
            heapBeforeMB: heapBefore,
            heapAfterMB: heapAfter,
            heapGrowthMB: growth,
          },
          ok: growth <= HEAP_GROWTH_LIMIT_MB,
        };
      },
    };
  },
});
