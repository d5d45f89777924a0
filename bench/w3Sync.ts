/**
 * W3 / W3E synchronizer benchmarks (shared/bench/W3.md, DESIGN §5): each policy alone ("bare":
 * the delivery loop calls `policy.add` directly) and inside the full graph ("pipeline":
 * UserSource per topic -> Combiner -> Sink, carrying ROS-shaped messages
 * `{header: {stamp: {sec, nsec}}}`, with a drop listener that counts).
 *
 * Every policy is configured as W3.md says: max queue size 10, no age or timespan limit.
 */

import type { Benchmark, BenchmarkCase, RunResult } from "./Benchmark";
import { cpuNowNs, nowNs } from "./harness";
import { generateW3, outputHash, W3E_OFFSET_NS, w3eSecNsec, w3eTimeBase, type W3Data } from "./w3";
import { Combiner } from "../src/filters/Combiner";
import { Sink } from "../src/filters/Sink";
import { UserSource } from "../src/filters/UserSource";
import type { CombinerPolicy } from "../src/filters/policies/CombinerPolicy";
import { createPolicy, type PolicyConfig } from "../src/pipeline";
import { TimeBase, type Stamp } from "../src/time";

/** A ROS 1-shaped message carrying only its header stamp. */
export interface StampedMessage {
  readonly header: { readonly stamp: { readonly sec: number; readonly nsec: number } };
}

/** The policies W3 is run through, with W3.md's settings. */
export const W3_POLICIES: readonly PolicyConfig[] = Object.freeze([
  { type: "fkie/approximate-time", maxQueueSize: 10, maxAge: null, maxTimespan: null },
  { type: "fkie/exact-time", maxQueueSize: 10, maxAge: null },
  { type: "ros/approximate-time", queueSize: 10 },
] satisfies PolicyConfig[]);

/**
 * The other policies, run through the pipeline on W3 only as `w3-other/<policy>/pipeline` (each
 * family's figures are read against its approximate-time pipeline of the same run). Queue sizes 10 as above; epsilon 3 ms (the
 * jitter is ±2 ms); slop 50 ms as W3.md's Python reference.
 */
export const W3_OTHER_POLICIES: readonly PolicyConfig[] = Object.freeze([
  { type: "fkie/fifo", maxQueueSize: 10 },
  { type: "fkie/latch" },
  { type: "ros/exact-time", queueSize: 10 },
  { type: "ros/approximate-epsilon-time", queueSize: 10, epsilon: 3_000_000 },
  { type: "ros/latest-time" },
  { type: "python/approximate-time", queueSize: 10, slop: 50_000_000 },
  { type: "python/exact-time", queueSize: 10 },
] satisfies PolicyConfig[]);

/** W3 messages per run by default (W3.md's W3). */
export const W3_DEFAULT_N = 1_000_000;

type Workload = "w3" | "w3e";

/** All W3/W3E benchmarks: workload × policy × mode, then the other policies' W3 pipelines. */
export function w3SyncBenchmarks(): Benchmark[] {
  const list: Benchmark[] = [];
  for (const workload of ["w3", "w3e"] as const) {
    for (const policy of W3_POLICIES) {
      for (const mode of ["bare", "pipeline"] as const) {
        list.push({
          name: `${workload}/${policy.type.replace("/", "-")}/${mode}`,
          policy: policy.type,
          description:
            `${workload === "w3" ? "W3" : "W3E (epoch stamps)"} through ${policy.type} ` +
            (mode === "bare" ? "alone" : "in UserSource -> Combiner -> Sink with drop reporting"),
          standard: true,
          defaultN: W3_DEFAULT_N,
          prepare: (n) =>
            mode === "bare" ? bareCase(policy, workload, n) : pipelineCase(policy, workload, n),
        });
      }
    }
  }
  for (const policy of W3_OTHER_POLICIES) {
    list.push({
      name: `w3-other/${policy.type.replace("/", "-")}/pipeline`,
      policy: policy.type,
      description: `W3 through ${policy.type} in UserSource -> Combiner -> Sink with drop reporting`,
      standard: true,
      defaultN: W3_DEFAULT_N,
      prepare: (n) => pipelineCase(policy, "w3", n),
    });
  }
  return list;
}

// The generated stream is shared by every benchmark of the same N (only the latest N is kept).
let cachedData: W3Data | undefined;
function w3Data(n: number): W3Data {
  if (cachedData?.stamps.length !== n) {
    cachedData = undefined;
    cachedData = generateW3(n);
  }
  return cachedData;
}

function timeBaseOf(workload: Workload): TimeBase {
  return workload === "w3e" ? w3eTimeBase() : new TimeBase(0);
}

function offsetOf(workload: Workload): bigint {
  return workload === "w3e" ? W3E_OFFSET_NS : 0n;
}

/** Fails early, at prepare time, for a policy that this build cannot create. */
function probe(policy: PolicyConfig): void {
  createPolicy(policy, 3, new TimeBase(0));
}

/**
 * The policy alone. W3: stamps are fed as they are. W3E: each stamp is converted from its
 * `{sec, nsec}` parts by the TimeBase inside the timed loop, as a real pipeline must.
 */
function bareCase(policyConfig: PolicyConfig, workload: Workload, n: number): BenchmarkCase {
  probe(policyConfig);
  const { topics, stamps } = w3Data(n);
  const base = timeBaseOf(workload);
  const epoch = workload === "w3e" ? w3eSecNsec(stamps) : undefined;
  const out = new Float64Array(n);
  return {
    n,
    run(): RunResult {
      const policy = createPolicy<number>(policyConfig, 3, base);
      let count = 0;
      let drops = 0;
      // The items are the messages' indices: the set's stamps are read through them, as the
      // C++ bare emitter reads them from its messages (so the policy builds no stamps array).
      policy.bind({
        emit: (items) => {
          out[count] = stamps[items[0]!]!;
          out[count + 1] = stamps[items[1]!]!;
          out[count + 2] = stamps[items[2]!]!;
          count += 3;
        },
        drop: () => {
          drops++;
        },
        readsStamps: false,
      });
      const c0 = cpuNowNs();
      const t0 = nowNs();
      if (epoch == undefined) {
        deliverPlain(policy, topics, stamps);
      } else {
        deliverEpoch(policy, base, topics, epoch.secs, epoch.nsecs);
      }
      const elapsedNs = nowNs() - t0;
      const cpuNs = cpuNowNs() - c0;
      return {
        elapsedNs,
        cpuNs,
        tuples: count / 3,
        outputHash: outputHash(out, count, offsetOf(workload)),
        extra: { drops },
      };
    },
  };
}

function deliverPlain(
  policy: CombinerPolicy<number>,
  topics: Uint8Array,
  stamps: Float64Array,
): void {
  for (let i = 0; i < stamps.length; i++) {
    const s = stamps[i]!;
    policy.add(topics[i]!, s, i, s);
  }
}

function deliverEpoch(
  policy: CombinerPolicy<number>,
  base: TimeBase,
  topics: Uint8Array,
  secs: Float64Array,
  nsecs: Uint32Array,
): void {
  for (let i = 0; i < topics.length; i++) {
    const s = base.fromSecNsec(secs[i]!, nsecs[i]!);
    policy.add(topics[i]!, s, i, s);
  }
}

/** Collects the sets into a preallocated array (no allocation per set). */
class CollectingSink extends Sink<[StampedMessage, StampedMessage, StampedMessage]> {
  public count = 0;
  readonly #out: StampedMessage[];

  public constructor(out: StampedMessage[]) {
    super();
    this.#out = out;
  }

  protected override receive(a: StampedMessage, b: StampedMessage, c: StampedMessage): void {
    const out = this.#out;
    const k = this.count;
    out[k] = a;
    out[k + 1] = b;
    out[k + 2] = c;
    this.count = k + 3;
  }
}

// Message objects of the latest (workload, N), shared by that workload's pipeline benchmarks.
let cachedMessages: { key: string; messages: StampedMessage[] } | undefined;
function messagesOf(workload: Workload, data: W3Data): StampedMessage[] {
  const key = `${workload}:${data.stamps.length}`;
  if (cachedMessages?.key !== key) {
    cachedMessages = undefined;
    const { secs, nsecs } =
      workload === "w3e" ? w3eSecNsec(data.stamps) : splitSecNsec(data.stamps);
    const messages = new Array<StampedMessage>(secs.length);
    for (let i = 0; i < secs.length; i++) {
      messages[i] = { header: { stamp: { sec: secs[i]!, nsec: nsecs[i]! } } };
    }
    cachedMessages = { key, messages };
  }
  return cachedMessages.messages;
}

function splitSecNsec(stamps: Float64Array): { secs: Float64Array; nsecs: Uint32Array } {
  const secs = new Float64Array(stamps.length);
  const nsecs = new Uint32Array(stamps.length);
  for (let i = 0; i < stamps.length; i++) {
    const sec = Math.floor(stamps[i]! / 1e9);
    secs[i] = sec;
    nsecs[i] = stamps[i]! - sec * 1e9;
  }
  return { secs, nsecs };
}

/**
 * The timed loop of a pipeline run, in a function of its own as the bare case's `deliverPlain`:
 * V8 inlines what a loop calls within a budget per compiled function, which the hash loop after
 * the run would otherwise share.
 */
function pushAll(
  sources: W3Graph["sources"],
  topics: Uint8Array,
  messages: readonly StampedMessage[],
): void {
  for (let i = 0; i < messages.length; i++) {
    sources[topics[i]!]!.push(messages[i]!);
  }
}

/** The full graph: three UserSources -> Combiner -> CollectingSink, drops counted by a listener. */
function pipelineCase(policyConfig: PolicyConfig, workload: Workload, n: number): BenchmarkCase {
  probe(policyConfig);
  const data = w3Data(n);
  const { topics } = data;
  const messages = messagesOf(workload, data);
  const base = timeBaseOf(workload);
  const out = new Array<StampedMessage>(n);
  // The sets' stamps for the hash, allocated once (grown if a policy emits more stamps than
  // messages, as LatestTime does): a buffer of this size allocated per run is garbage in V8's
  // old generation at the next one, and after a few runs V8 starts marking it concurrently,
  // during a timed run (the ROS pipeline: 27 ns per message → 32–43 in the processes where that
  // happened; see also the harness's turnOfEventLoop).
  let rel = new Float64Array(n);
  const stampOf = (m: StampedMessage): Stamp =>
    base.fromSecNsec(m.header.stamp.sec, m.header.stamp.nsec);
  return {
    n,
    run(): RunResult {
      const sink = new CollectingSink(out);
      const graph = connectW3Graph(policyConfig, base, stampOf, sink);
      const { sources } = graph;
      const c0 = cpuNowNs();
      const t0 = nowNs();
      pushAll(sources, topics, messages);
      const elapsedNs = nowNs() - t0;
      const cpuNs = cpuNowNs() - c0;
      const count = sink.count;
      if (rel.length < count) {
        rel = new Float64Array(count);
      }
      for (let i = 0; i < count; i++) {
        rel[i] = stampOf(out[i]!);
      }
      out.fill(undefined as unknown as StampedMessage, 0, count);
      return {
        elapsedNs,
        cpuNs,
        tuples: count / 3,
        outputHash: outputHash(rel, count, offsetOf(workload)),
        extra: { drops: graph.drops },
      };
    },
  };
}

/** The W3 pipeline graph: the three topics' sources, and the policy's drops counted so far. */
export interface W3Graph {
  readonly sources: readonly [
    UserSource<[StampedMessage]>,
    UserSource<[StampedMessage]>,
    UserSource<[StampedMessage]>,
  ];
  drops: number;
}

/**
 * Builds three UserSources -> Combiner (a fresh `policyConfig` policy) -> `sink`, with a drop
 * handler that only counts (`onDropArgs`: no allocation per drop).
 */
export function connectW3Graph(
  policyConfig: PolicyConfig,
  base: TimeBase,
  stampOf: (m: StampedMessage) => Stamp,
  sink: Sink<[StampedMessage, StampedMessage, StampedMessage]>,
): W3Graph {
  const combiner = new Combiner<[StampedMessage, StampedMessage, StampedMessage]>(
    createPolicy<StampedMessage>(policyConfig, 3, base),
    { stampOf },
  );
  const graph: W3Graph = {
    sources: [
      new UserSource<[StampedMessage]>(),
      new UserSource<[StampedMessage]>(),
      new UserSource<[StampedMessage]>(),
    ],
    drops: 0,
  };
  combiner.connectToSources(...graph.sources);
  combiner.connectToSink(sink);
  combiner.onDropArgs(() => {
    graph.drops++;
  });
  return graph;
}
