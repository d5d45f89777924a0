import type { Immutable, MessageEvent } from "@foxglove/extension";
import { describe, expect, it } from "vitest";

import { IngestWindow } from "./IngestWindow";
import { PreloadIngest, type PreloadSink } from "./PreloadIngest";
import type { EngineInput } from "./engineTypes";
import { MERGE_BATCH } from "./rangeAnalysis";

function event(topic: string, sec: number): Immutable<MessageEvent> {
  return { topic, schemaName: "x/Y", receiveTime: { sec, nsec: 0 }, message: { sec } } as unknown as Immutable<MessageEvent>;
}

/** A recording's allFrames: `n` messages alternating over /a, /b and /other (not an input). */
function frames(n: number): Immutable<MessageEvent>[] {
  return Array.from({ length: n }, (_, i) => event(["/a", "/b", "/other"][i % 3]!, i));
}

const label = (e: { topic: string; receiveTime: { sec: number } }): string => `${e.topic}@${e.receiveTime.sec}`;

/** An engine stand-in: acks on a later macrotask; what it holds (cleared by restart), and every batch. */
function fakeSink(): PreloadSink & { held: EngineInput[]; batches: number; restarts: number; maxUnacked: number } {
  let unacked = 0;
  const sink = {
    held: [] as EngineInput[],
    batches: 0,
    restarts: 0,
    maxUnacked: 0,
    ingest: async (events: EngineInput[]) => {
      sink.held.push(...events);
      sink.batches++;
      unacked++;
      sink.maxUnacked = Math.max(sink.maxUnacked, unacked);
      await new Promise((r) => setTimeout(r, 1));
      unacked--;
    },
    restart: async () => {
      await new Promise((r) => setTimeout(r, 1));
      sink.held = [];
      sink.restarts++;
    },
  };
  return sink;
}

const TOPICS = new Set(["/a", "/b"]);
/** The engine holds exactly one pass over the input messages of `final`, numbered from 0, and `finish` said how many. */
function expectOnePass(sink: { held: EngineInput[] }, n: number, final: readonly Immutable<MessageEvent>[]): void {
  const expected = final.filter((m) => TOPICS.has(m.topic));
  expect(n).toBe(expected.length);
  expect(sink.held.map(label)).toEqual(expected.map(label));
  expect(sink.held.map((e) => e.seq)).toEqual(expected.map((_, i) => i));
}

const wait = async (ms: number): Promise<void> => {
  await new Promise((r) => setTimeout(r, ms));
};

describe("PreloadIngest (whole-recording analysis over a growing allFrames)", () => {
  it("sends what each growing array adds while the host loads; the engine gets the final array's inputs in order, numbered from 0", async () => {
    const all = frames(3 * MERGE_BATCH + 7);
    const sink = fakeSink();
    const ingest = new PreloadIngest(sink, TOPICS, new AbortController().signal);
    for (const n of [10, 1000, 2500, 5000, all.length]) {
      ingest.update(all.slice(0, n));
      await wait(5);
      // whole batches while the host loads
      expect(sink.batches).toBe(Math.floor(n / MERGE_BATCH));
    }
    const n = await ingest.finish();
    expectOnePass(sink, n, all);
    expect(sink.restarts).toBe(0);
    expect(ingest.restarts).toBe(0);
    expect(sink.maxUnacked).toBeLessThanOrEqual(3);
  });

  it("a block loaded out of order (messages inserted before ones already sent): restarts once, then sends the final array whole", async () => {
    const all = frames(4 * MERGE_BATCH);
    const sink = fakeSink();
    const ingest = new PreloadIngest(sink, TOPICS, new AbortController().signal);
    const blocks13 = (): Immutable<MessageEvent>[] => [...all.slice(0, MERGE_BATCH), ...all.slice(3 * MERGE_BATCH)];
    ingest.update(blocks13());
    await wait(5);
    expect(sink.held.length).toBeGreaterThan(0);
    ingest.update(blocks13()); // the same content, a new array
    await wait(5);
    expect(ingest.restarts).toBe(0);
    ingest.update(all); // block 2 arrives
    await wait(5);
    expect(ingest.restarts).toBe(1);
    expect(sink.held).toEqual([]); // nothing more until the host is done
    const n = await ingest.finish();
    expectOnePass(sink, n, all);
    expect(sink.restarts).toBe(1);
  });

  it("an array that no longer starts with what was sent while finishing (blocks evicted) is sent whole; arrays after finish are ignored", async () => {
    const all = frames(5000);
    const sink = fakeSink();
    const ingest = new PreloadIngest(sink, TOPICS, new AbortController().signal);
    ingest.update(all.slice(0, 4000));
    ingest.update(all.slice(1000)); // before the first batch was acked
    const done = ingest.finish();
    ingest.update(all);
    const n = await done;
    expectOnePass(sink, n, all.slice(1000));
    expect(ingest.restarts).toBe(1);
  });

  it("abort stops sending; finish resolves with what was sent", async () => {
    const all = frames(6 * MERGE_BATCH);
    const sink = fakeSink();
    const abort = new AbortController();
    const ingest = new PreloadIngest(sink, TOPICS, abort.signal);
    ingest.update(all);
    abort.abort();
    const n = await ingest.finish();
    expect(n).toBe(sink.held.length);
    expect(n).toBeLessThan(all.filter((m) => TOPICS.has(m.topic)).length);
  });
});

describe("IngestWindow", () => {
  it("keeps at most `depth` batches unacknowledged, in order; drain waits for all", async () => {
    const acks: (() => void)[] = [];
    const order: number[] = [];
    const window = new IngestWindow(async (events) => {
      order.push(events[0]!.seq);
      await new Promise<void>((r) => acks.push(r));
    }, 2);
    const batch = (seq: number): EngineInput[] => [{ seq, topic: "/a", schemaName: "x", receiveTime: { sec: seq, nsec: 0 }, message: {} }];
    await window.push(batch(0)); // one in flight: returns at once
    let second = false;
    const p = window.push(batch(1)).then(() => (second = true));
    await wait(1);
    expect(second).toBe(false); // two in flight: waits for the oldest ack
    acks.shift()!();
    await p;
    expect(second).toBe(true);
    let drained = false;
    const d = window.drain().then(() => (drained = true));
    await wait(1);
    expect(drained).toBe(false);
    acks.shift()!();
    await d;
    expect(drained).toBe(true);
    expect(order).toEqual([0, 1]);
  });
});
