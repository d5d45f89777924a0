
import type { Immutable, MessageEvent } from "@foxglove/extension";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

import { AnalysisEngine, dropCode } from "./AnalysisEngine";
import { EngineClient } from "./EngineClient";
import { localEnginePort } from "./EngineServer";
import type { EnginePort } from "./engineProtocol";
import type { EngineDelta, EngineInput } from "./engineTypes";
import { analyzeRange, findRangeSubscribe, mergeByReceiveTime } from "./rangeAnalysis";
import { slimMessage, SLIM_MAX_ELEMENTS } from "./slimMessage";
import { recordingEvents } from "./testing";
import { openRecordingFile } from "../../recording/node";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BAG = [`${ROOT}samples/husky-2015.bag`, `${ROOT}../shared/data/husky-2015.bag`].find((p) => existsSync(p))!;
/** The husky preset without its fusion section (fusion is exercised separately: it is slow). */
const HUSKY = JSON.parse(readFileSync(`${ROOT}config/husky.json`, "utf8")) as { inputs: { topic: string }[]; fusion?: unknown };
delete HUSKY.fusion;
const TURTLEBOT = `${ROOT}../shared/data/fuse-tutorial-turtlebot3.bag`;

let events: EngineInput[] = [];

beforeAll(async () => {
  events = await recordingEvents(BAG);
});

function runAll(engine: AnalysisEngine, batch = 500): EngineDelta[] {
  const deltas: EngineDelta[] = [];
  for (let i = 0; i < events.length; i += batch) {
    engine.ingest(events.slice(i, i + batch));
    deltas.push(engine.takeDelta());
  }
  return deltas;
}

describe("AnalysisEngine on the husky recording", () => {
  it("accounts for every input message: matched, dropped once, or still held", () => {
    const engine = new AnalysisEngine(HUSKY);
    const deltas = runAll(engine);
    const last = deltas[deltas.length - 1]!;
    const tuples = deltas.flatMap((d) => d.tuples);
    const drops = deltas.flatMap((d) => d.drops);
    expect(last.stats.tuples).toBe(tuples.length);
    expect(tuples.map((t) => t.index)).toEqual(tuples.map((_, i) => i));
    for (const [slot, topic] of HUSKY.inputs.map((i) => i.topic).entries()) {
      const messages = events.filter((e) => e.topic === topic).length;
      const t = last.stats.topics[slot]!;
      expect(t.messages).toBe(messages);
      expect(t.matched).toBe(tuples.length);
      expect(t.dropped).toBe(drops.filter((d) => d.topic === topic).length);
      const held = messages - t.matched - t.dropped;
      expect(held).toBeGreaterThanOrEqual(0);
      expect(held).toBeLessThanOrEqual(21); // maxQueueSize 20 + the head
    }
    // Each message is used at most once, drops are unique, and sets respect maxTimespan (50 ms).
    const used = new Set<number>();
    for (const t of tuples) {
      for (const seq of t.seqs) {
        expect(used.has(seq)).toBe(false);
        used.add(seq);
      }
      expect(Math.max(...t.stamps) - Math.min(...t.stamps)).toBe(t.timespan);
      expect(t.timespan).toBeLessThanOrEqual(50e6);
    }
    const dropped = new Set(drops.map((d) => d.seq));
    expect(dropped.size).toBe(drops.length);
    for (const seq of dropped) {
      expect(used.has(seq)).toBe(false);
    }
    // Timeline marks: one "received" per stamped input message, one per matched and per drop.
    const codes = deltas.flatMap((d) => d.marks.codes);
    expect(codes.filter((c) => c === 0).length).toBe(events.filter((e) => HUSKY.inputs.some((i) => i.topic === e.topic)).length);
    expect(codes.filter((c) => c === 1).length).toBe(tuples.length * 3);
    expect(codes.filter((c) => c >= 2).length).toBe(drops.filter((d) => !Number.isNaN(d.stamp)).length);
    expect(dropCode("queue-overflow")).toBe(2);
    // Raw odometry poses for the trajectory view.
    expect(deltas.flatMap((d) => d.rawPoses).length).toBe(events.filter((e) => e.topic === "/husky_velocity_controller/odom").length);
    expect(last.hints.length).toBeGreaterThan(0);
  });

  it("reset starts over and gives the same result; a comparison policy runs on the same data", () => {
    const engine = new AnalysisEngine(HUSKY, { type: "ros/approximate-time", queueSize: 10 });
    const first = runAll(engine).at(-1)!;
    engine.reset();
    expect(engine.takeDelta().stats.tuples).toBe(0);
    const second = runAll(engine, 3000).at(-1)!;
    expect(second.stats).toEqual(first.stats);
    expect(second.compare?.policyType).toBe("ros/approximate-time");
    expect(second.compare!.tuples).toBeGreaterThan(0);
    expect(second.compare!.topics.map((t) => t.messages)).toEqual(second.stats.topics.map((t) => t.messages));
  });

  it("rejects invalid configs with the JSON path", () => {
    expect(() => new AnalysisEngine({ ...HUSKY, policy: { type: "fkie/approximate-time", maxAge: "soon" } })).toThrow(/\/policy\/maxAge/);
    expect(() => new AnalysisEngine({ inputs: [], policy: { type: "fkie/fifo" } })).toThrow(/inputs/);
  });

  it("reports messages without a usable stamp as drops", () => {
    const engine = new AnalysisEngine({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: { type: "fkie/approximate-time" } });
    engine.ingest([
      { seq: 0, topic: "/a", schemaName: "x", receiveTime: { sec: 5, nsec: 0 }, message: { data: 1 } },
      { seq: 1, topic: "/a", schemaName: "x", receiveTime: { sec: 5, nsec: 0 }, message: { header: { stamp: { sec: 0, nsec: 0 } } } },
      { seq: 2, topic: "/b", schemaName: "x", receiveTime: { sec: 5, nsec: 0 }, message: { header: { stamp: { sec: 5, nsec: 0 } } } },
    ]);
    const d = engine.takeDelta();
    expect(d.drops.map((x) => [x.seq, x.reason])).toEqual([
      [0, "no-header"],
      [1, "zero-stamp"],
    ]);
  });
});

describe("AnalysisEngine on bad stamps", () => {
  it("a stamp from another clock first and mid-stream, and nsec >= 1e9, are invalid-stamp drops; every later message is analyzed", () => {
    const engine = new AnalysisEngine({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: { type: "fkie/exact-time" } });
    const T = 1_700_000_000;
    const at = (seq: number, topic: string, sec: number, nsec = 0): EngineInput => ({
      seq,
      topic,
      schemaName: "x",
      receiveTime: { sec: T + Math.floor(seq / 2), nsec: 0 },
      message: { header: { stamp: { sec, nsec } } },
    });
    const input: EngineInput[] = [at(0, "/a", 1)];
    for (let i = 1; i <= 40; i++) {
      input.push(at(2 * i, "/a", T + i), at(2 * i + 1, "/b", T + i));
    }
    const transform = (sec: number, child: string): unknown => ({
      header: { stamp: { sec, nsec: 0 }, frame_id: "odom" },
      child_frame_id: child,
      transform: { translation: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
    });
    // a tf message with one transform stamped on another clock: one drop, the other transform kept
    const tf: EngineInput = { seq: 104, topic: "/tf", schemaName: "tf2_msgs/TFMessage", receiveTime: { sec: T + 52, nsec: 0 }, message: { transforms: [transform(1, "x"), transform(T + 52, "y")] } };
    input.push(at(100, "/b", 2), at(101, "/a", T + 50, 1_500_000_000), at(102, "/a", T + 51), at(103, "/b", T + 51), tf);
    engine.ingest(input);
    const d = engine.takeDelta();
    expect(d.drops.map((x) => [x.seq, x.reason])).toEqual([
      [0, "invalid-stamp"],
      [100, "invalid-stamp"],
      [101, "invalid-stamp"],
      [104, "invalid-stamp"],
    ]);
    expect(d.drops.at(-1)!.detail).toMatch(/^1 of its 2 transforms skipped: topic \/tf: header stamp 1\.000000000 cannot be used/);
    expect(d.stats.drops).toEqual({ "invalid-stamp": 4 });
    expect(d.stats.tuples).toBe(41);
    // every message is in a set or a drop (exact time holds nothing that matched; tf is one drop)
    expect(d.stats.tuples * 2 + d.drops.length).toBe(input.length);
  });
});

describe.runIf(existsSync(TURTLEBOT))("AnalysisEngine with fusion (fuse tutorial preset)", () => {
  it("hands out the fusion transactions (DESIGN §3.4 JSON) and the fused trajectory", async () => {
    const config = JSON.parse(readFileSync(`${ROOT}config/fuse-simple-tutorial.json`, "utf8")) as unknown;
    const engine = new AnalysisEngine(config);
    const rec = await openRecordingFile(TURTLEBOT);
    let seq = 0;
    const batch: EngineInput[] = [];
    for await (const m of rec.messages()) {
      batch.push({ seq: seq++, topic: m.topic, schemaName: m.schemaName, receiveTime: m.receiveTime, message: m.message });
      if (seq >= 1500) {
        break;
      }
    }
    await rec.close();
    engine.ingest(batch.slice(0, 750));
    const d1 = engine.takeDelta();
    engine.ingest(batch.slice(750));
    const d2 = engine.takeDelta();
    const txs = [...d1.transactions, ...d2.transactions] as { stamp: string; source: string; addedVariables: { type: string }[] }[];
    expect(txs.length).toBeGreaterThan(0);
    expect(new Set(txs.map((t) => t.source))).toContain("odometry_sensor");
    expect(txs.every((t) => /^\d+$/.test(t.stamp))).toBe(true);
    expect(txs.flatMap((t) => t.addedVariables.map((v) => v.type))).toContain("fuse_variables::Position2DStamped");
    const poses = [...d1.fusedPoses, ...d2.fusedPoses];
    expect(poses.length).toBeGreaterThan(0);
    expect(poses.every((p) => Number.isFinite(p.x) && Number.isFinite(p.y) && Number.isFinite(p.yaw))).toBe(true);
    // Nothing is handed out twice.
    expect(engine.takeDelta().transactions).toEqual([]);
  });
});

describe("whole-range analysis", () => {
  const ev = (topic: string, ns: number): Immutable<MessageEvent> => ({
    topic,
    schemaName: "s",
    receiveTime: { sec: Math.floor(ns / 1e9), nsec: ns % 1e9 },
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- a required field of the type
    sizeInBytes: 0,
    message: { header: { stamp: { sec: Math.floor(ns / 1e9), nsec: ns % 1e9 } } },
  });
  async function* batches(list: Immutable<MessageEvent>[], size: number): AsyncGenerator<Immutable<MessageEvent[]>> {
    for (let i = 0; i < list.length; i += size) {
      yield list.slice(i, i + size);
    }
    yield [];
  }

  it("merges per-topic iterators into receive-time order (ties keep topic order)", async () => {
    const a = [1, 3, 5, 7, 9].map((t) => ev("/a", t * 1e8));
    const b = [2, 3, 4, 10].map((t) => ev("/b", t * 1e8));
    const out: string[] = [];
    for await (const batch of mergeByReceiveTime([batches(a, 2), batches(b, 3)])) {
      out.push(...batch.map((m) => `${m.topic}${m.receiveTime.nsec / 1e8 + m.receiveTime.sec * 10}`));
    }
    expect(out).toEqual(["/a1", "/b2", "/a3", "/b3", "/b4", "/a5", "/a7", "/a9", "/b10"]);
  });

  it("merges epoch receive times by their exact nanoseconds, even those closer than a double's 256 ns", async () => {
    const at = (topic: string, nsec: number): Immutable<MessageEvent> => ({ ...ev(topic, 0), receiveTime: { sec: 1_700_000_000, nsec } });
    const out: string[] = [];
    for await (const batch of mergeByReceiveTime([batches([at("/a", 20), at("/a", 40)], 1), batches([at("/b", 10), at("/b", 30)], 1)])) {
      out.push(...batch.map((m) => `${m.topic}${m.receiveTime.nsec}`));
    }
    expect(out).toEqual(["/b10", "/a20", "/b30", "/a40"]);
  });

  it("feeds the engine through a host's range subscription under any of its names, with progress and cancel", async () => {
    const msgs = { "/a": [1, 2, 3].map((t) => ev("/a", t * 1e9)), "/b": [1, 2, 3].map((t) => ev("/b", t * 1e9)) } as Record<string, Immutable<MessageEvent>[]>;
    let unsubscribed = 0;
    const ctx = {
      unstable_subscribeMessageRange: (args: { topic: string; onNewRangeIterator: (it: AsyncIterable<Immutable<MessageEvent[]>>) => Promise<void> }) => {
        void args.onNewRangeIterator(batches(msgs[args.topic]!, 1));
        return () => {
          unsubscribed++;
        };
      },
    };
    const subscribe = findRangeSubscribe(ctx as never)!;
    expect(subscribe).toBeDefined();
    expect(findRangeSubscribe({} as never)).toBeUndefined();
    const got: EngineInput[] = [];
    const progress: number[] = [];
    const n = await analyzeRange(subscribe, ["/a", "/b"], async (e) => { got.push(...e); }, {
      start: { sec: 1, nsec: 0 },
      end: { sec: 3, nsec: 0 },
      signal: new AbortController().signal,
      onProgress: (f) => progress.push(f),
    });
    expect(n).toBe(6);
    expect(got.map((e) => `${e.topic}@${e.receiveTime.sec}#${e.seq}`)).toEqual(["/a@1#0", "/b@1#1", "/a@2#2", "/b@2#3", "/a@3#4", "/b@3#5"]);
    expect(progress.at(-1)).toBe(1);
    expect(unsubscribed).toBe(2);
    const abort = new AbortController();
    abort.abort();
    expect(await analyzeRange(subscribe, ["/a"], async () => undefined, { signal: abort.signal, onProgress: () => undefined })).toBeLessThanOrEqual(1);
  });
});

describe("EngineClient (inline fallback) and slimMessage", () => {
  it("runs the protocol without a worker: configure, ingest with ack, flush, errors", async () => {
    const deltas: EngineDelta[] = [];
    const errors: string[] = [];
    const client = new EngineClient({ onDelta: (d) => deltas.push(d), onError: (m) => errors.push(m) }, { inPage: localEnginePort });
    expect(client.inWorker).toBe(false);
    client.configure(HUSKY);
    await client.ingest(events.slice(0, 2000));
    await client.flush();
    expect(deltas.at(-1)!.ingested).toBe(2000);
    client.configure({ inputs: [{ topic: "/a" }], policy: { type: "nope" } });
    await client.flush();
    expect(errors.at(-1)).toMatch(/policy/);
    client.dispose();
  });

  /** A worker that never runs its script and fires `error` (what a host forbidding blob: workers does). */
  function refusedWorker(message: string | undefined, opts: { afterReady: boolean }): EnginePort & { fail(): void; posted: number } {
    const port = {
      onmessage: null as EnginePort["onmessage"],
      onerror: null as EnginePort["onerror"],
      posted: 0,
      postMessage: () => {
        port.posted++;
      },
      terminate: () => undefined,
      fail: () => {
        port.onerror?.({ message });
      },
    };
    if (opts.afterReady) {
      setTimeout(() => port.onmessage?.({ data: { type: "ready" } }), 0);
    }
    return port;
  }

  it("falls back to the in-page engine on the worker's error event, replaying everything sent before", async () => {
    const deltas: EngineDelta[] = [];
    const fallbacks: string[] = [];
    const worker = refusedWorker(undefined, { afterReady: false });
    const client = new EngineClient(
      { onDelta: (d) => deltas.push(d), onError: () => undefined, onFallback: (r) => fallbacks.push(r) },
      { worker, inPage: localEnginePort },
    );
    expect(client.inWorker).toBe(true);
    client.configure(HUSKY);
    const done = client.ingest(events.slice(0, 500));
    expect(worker.posted).toBe(2);
    worker.fail();
    await done;
    await client.flush();
    expect(client.inWorker).toBe(false);
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]).toMatch(/Content-Security-Policy/);
    expect(client.fallbackReason).toBe(fallbacks[0]);
    // Nothing sent before the failure is lost: the in-page engine saw all 500 messages.
    expect(deltas.at(-1)!.ingested).toBe(500);
    client.dispose();
  });

  it("a worker failing after it started: pending work is released, the config is replayed in the page", async () => {
    const worker = refusedWorker("boom", { afterReady: true });
    const deltas: EngineDelta[] = [];
    const client = new EngineClient({ onDelta: (d) => deltas.push(d), onError: () => undefined }, { worker, inPage: localEnginePort });
    client.configure(HUSKY);
    await new Promise((r) => setTimeout(r, 5));
    const lost = client.ingest(events.slice(0, 10));
    worker.fail();
    await lost;
    expect(client.fallbackReason).toMatch(/boom/);
    await client.ingest(events.slice(10, 30));
    await client.flush();
    expect(deltas.at(-1)!.ingested).toBe(20);
    expect(deltas.at(-1)!.stats.topics.map((t) => t.topic)).toEqual(HUSKY.inputs.map((i) => i.topic));
    client.dispose();
  });

  it("replaces only large arrays and leaves ordinary messages uncopied", () => {
    const small = { header: { stamp: { sec: 1, nsec: 2 } }, covariance: new Float64Array(36) };
    expect(slimMessage(small)).toBe(small);
    const big = { header: { stamp: { sec: 1, nsec: 2 } }, data: new Uint8Array(SLIM_MAX_ELEMENTS + 1), ranges: [1, 2] };
    expect(slimMessage(big)).toEqual({ header: { stamp: { sec: 1, nsec: 2 } }, data: { length: SLIM_MAX_ELEMENTS + 1 }, ranges: [1, 2] });
  });
});

describe("AnalysisEngine diagnosis (the Diagnosis view's data)", () => {
  it("diagnoses the stamps it saw: the same sets as its own run, and suggestions that give more", () => {
    const engine = new AnalysisEngine({ inputs: HUSKY.inputs.slice(0, 2), policy: { type: "fkie/approximate-time", maxTimespan: "2ms" } });
    const deltas = runAll(engine);
    const tuples = deltas.reduce((n, d) => n + d.tuples.length, 0);
    const d = engine.diagnose()!;
    expect(d.tuples).toBe(tuples);
    expect(d.causes[0]!.id).toBe("timespan-limit-too-small");
    // Applying the first suggestion (what "Apply" does) and re-running gives its predicted sets.
    const applied = new AnalysisEngine({ inputs: HUSKY.inputs.slice(0, 2), policy: d.suggestions[0]!.policy });
    expect(runAll(applied).reduce((n, x) => n + x.tuples.length, 0)).toBe(d.suggestions[0]!.tuples);
  }, 120_000);
});
