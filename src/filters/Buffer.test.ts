import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { Buffer } from "./Buffer";
import { BufferPolicy } from "./BufferPolicy";
import type { DropEvent } from "./DropReason";
import { SimpleUserFilter } from "./SimpleUserFilter";
import { UserSource } from "./UserSource";
import { chain } from "./chain";

function rig(policy: BufferPolicy, size: number) {
  const src = new UserSource<[number]>();
  const buf = new Buffer<[number]>(policy, size, { stampOf: (n) => n * 10 });
  const out: number[] = [];
  const snk = new SimpleUserFilter<[number]>((n) => out.push(n) > 0);
  chain(src, buf, snk);
  const drops: DropEvent<number>[] = [];
  buf.onDrop((d) => drops.push(d));
  return { src, buf, out, drops };
}

describe("Buffer", () => {
  it("upstream test_buffer: overflow drops the oldest; processOne sends 1; spinOnce the rest", async () => {
    const src = new UserSource<[number]>();
    const buf = new Buffer<[number]>(BufferPolicy.Queue, 3);
    let calls = 0;
    const snk = new SimpleUserFilter<[number]>((i) => {
      calls++;
      if (i !== 0) {
        throw new Error("invalid value");
      }
      return true;
    });
    chain(src, buf, snk);
    const drops: DropEvent<number>[] = [];
    buf.onDrop((d) => drops.push(d));
    expect(buf.hasSome()).toBe(false);
    src.push(10000); // overflowed out by the fourth push
    src.push(0);
    src.push(0);
    src.push(0);
    expect(buf.hasSome()).toBe(true);
    expect(calls).toBe(0);
    expect(drops).toEqual([
      {
        slot: 0,
        stamp: NaN,
        reason: "queue-overflow",
        item: 10000,
        detail: "the Buffer queue holds at most 3 items; the oldest made room",
      },
    ]);
    await expect(buf.processOne()).resolves.toBe(true);
    expect(calls).toBe(1);
    buf.spinOnce();
    expect(buf.hasSome()).toBe(false);
    expect(calls).toBe(3);
    buf.spinOnce();
    expect(calls).toBe(3);
    src.push(0);
    buf.spinOnce();
    expect(calls).toBe(4);
  });

  it("defaults to Discard with capacity 1; Discard drops as discarded", () => {
    const src = new UserSource<[number]>();
    const buf = new Buffer<[number]>();
    expect([buf.policy, buf.maxQueueSize]).toEqual(["discard", 1]);
    const drops: string[] = [];
    buf.onDrop((d) => drops.push(`${d.item}:${d.reason}`));
    src.connectToSink(buf);
    src.push(7);
    expect(drops).toEqual(["7:discarded"]);
  });

  it("Passthru forwards at once; switching to Passthru flushes synchronously in order", () => {
    const { src, buf, out, drops } = rig(BufferPolicy.Queue, 5);
    src.push(1);
    src.push(2);
    expect(out).toEqual([]);
    buf.setPolicy(BufferPolicy.Passthru);
    expect(out).toEqual([1, 2]);
    src.push(3);
    expect(out).toEqual([1, 2, 3]);
    expect(buf.hasSome()).toBe(false);
    expect(drops).toEqual([]);
  });

  it("switching to Discard drops the queue as reset (with stamps), then drops arrivals", () => {
    const { src, buf, out, drops } = rig(BufferPolicy.Queue, 5);
    src.push(1);
    src.push(2);
    buf.setPolicy(BufferPolicy.Discard);
    src.push(3);
    expect(out).toEqual([]);
    expect(drops.map((d) => [d.item, d.stamp, d.reason])).toEqual([
      [1, 10, "reset"],
      [2, 20, "reset"],
      [3, 30, "discarded"],
    ]);
  });

  it("setPolicy(Queue, n) shrinks by dropping the oldest; 0 keeps the size; reset drops all", () => {
    const { src, buf, out, drops } = rig(BufferPolicy.Queue, 4);
    for (const n of [1, 2, 3, 4]) {
      src.push(n);
    }
    buf.setPolicy(BufferPolicy.Queue, 2);
    expect(buf.maxQueueSize).toBe(2);
    buf.setPolicy(BufferPolicy.Queue);
    expect(buf.maxQueueSize).toBe(2);
    expect(drops.map((d) => [d.item, d.reason])).toEqual([
      [1, "queue-overflow"],
      [2, "queue-overflow"],
    ]);
    buf.reset();
    expect(drops.map((d) => [d.item, d.reason]).slice(2)).toEqual([
      [3, "reset"],
      [4, "reset"],
    ]);
    expect(buf.policy).toBe("queue");
    buf.spinOnce();
    expect(out).toEqual([]);
  });

  it("a capacity of 0 keeps nothing (fkie): each queued item is dropped at once", () => {
    const { src, buf, drops } = rig(BufferPolicy.Queue, 0);
    src.push(1);
    expect(buf.hasSome()).toBe(false);
    expect(drops.map((d) => d.reason)).toEqual(["queue-overflow"]);
  });

  it("rejects bad arguments with the parameter named", () => {
    expect(() => new Buffer<[number]>(BufferPolicy.Queue, -1)).toThrow(
      "Buffer: maxQueueSize must be an integer >= 0 (items), got -1",
    );
    expect(() => new Buffer<[number]>("later" as BufferPolicy)).toThrow(/unknown policy "later"/);
  });

  it("wait and processOne wake when data arrives, and resolve false when the policy leaves Queue", async () => {
    const { src, buf, out } = rig(BufferPolicy.Queue, 5);
    const waiting = buf.wait();
    const processing = buf.processOne();
    src.push(1);
    await expect(waiting).resolves.toBe(true);
    await expect(processing).resolves.toBe(true);
    expect(out).toEqual([1]);

    const w2 = buf.wait();
    const p2 = buf.processOne();
    buf.setPolicy(BufferPolicy.Discard);
    await expect(w2).resolves.toBe(false);
    await expect(p2).resolves.toBe(false);
    await expect(buf.processOne()).resolves.toBe(false);
    await expect(buf.wait()).resolves.toBe(false);
  });

  it("timeouts resolve false when no data comes", async () => {
    const { buf } = rig(BufferPolicy.Queue, 5);
    const t0 = Date.now();
    await expect(buf.wait(20)).resolves.toBe(false);
    await expect(buf.processOne(0)).resolves.toBe(false);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(15);
    await expect(buf.wait(-1)).rejects.toThrow(/timeout must be >= 0 ms/);
  });

  it("processOne rejects with a sink's exception; the other items stay queued", async () => {
    const src = new UserSource<[number]>();
    const buf = new Buffer<[number]>(BufferPolicy.Queue, 5);
    src.connectToSink(buf);
    const out: number[] = [];
    buf.connectToSink(
      new SimpleUserFilter<[number]>((n) => {
        if (n === 2) {
          throw new Error("bad item");
        }
        return out.push(n) > 0;
      }),
    );
    src.push(2);
    src.push(3);
    await expect(buf.processOne()).rejects.toThrow("bad item");
    expect(buf.size).toBe(1);
    src.push(2);
    src.push(4);
    expect(() => {
      buf.spinOnce();
    }).toThrow("bad item");
    expect(out).toEqual([3]);
    expect(buf.size).toBe(1); // 4 kept, in order
    buf.spinOnce();
    expect(out).toEqual([3, 4]);
  });

  it("spin forwards batches until the policy leaves Queue, yielding between batches", async () => {
    const { src, buf, out } = rig(BufferPolicy.Queue, 100);
    const spinning = buf.spin();
    for (let i = 0; i < 10; i++) {
      src.push(i);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(out).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    src.push(10);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(out).toHaveLength(11);
    buf.setPolicy(BufferPolicy.Passthru);
    await expect(spinning).resolves.toBeUndefined();
  });

  it("property: the queue never exceeds its bound and no item is lost silently", () => {
    type Op =
      | { kind: "push" }
      | { kind: "one" }
      | { kind: "spin" }
      | { kind: "policy"; p: BufferPolicy; n: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 6, arbitrary: fc.constant<Op>({ kind: "push" }) },
      { weight: 1, arbitrary: fc.constant<Op>({ kind: "one" }) },
      { weight: 1, arbitrary: fc.constant<Op>({ kind: "spin" }) },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant("policy" as const),
          p: fc.constantFrom<BufferPolicy>("discard", "queue", "passthru"),
          n: fc.integer({ min: 0, max: 4 }),
        }),
      },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.array(op, { maxLength: 80 }), (size, ops) => {
        const { src, buf, out, drops } = rig(BufferPolicy.Queue, size);
        // Model: a plain list with explicit capacity handling.
        let policy: BufferPolicy = "queue";
        let cap = size;
        let queue: number[] = [];
        const expOut: number[] = [];
        const expDrops: [number, string][] = [];
        let next = 0;
        for (const o of ops) {
          if (o.kind === "push") {
            const n = next++;
            src.push(n);
            if (policy === "discard") {
              expDrops.push([n, "discarded"]);
            } else if (policy === "passthru") {
              expOut.push(n);
            } else {
              queue.push(n);
              while (queue.length > cap) {
                expDrops.push([queue.shift()!, "queue-overflow"]);
              }
            }
          } else if (o.kind === "one") {
            void buf.processOne(); // synchronous when data is queued
            if (policy === "queue" && queue.length > 0) {
              expOut.push(queue.shift()!);
            }
          } else if (o.kind === "spin") {
            buf.spinOnce();
            expOut.push(...queue);
            queue = [];
          } else {
            buf.setPolicy(o.p, o.n);
            policy = o.p;
            if (o.p === "discard") {
              expDrops.push(...queue.map((n): [number, string] => [n, "reset"]));
              queue = [];
            } else if (o.p === "passthru") {
              expOut.push(...queue);
              queue = [];
            } else if (o.n > 0) {
              cap = o.n;
              while (queue.length > cap) {
                expDrops.push([queue.shift()!, "queue-overflow"]);
              }
            }
          }
          expect(buf.size).toBeLessThanOrEqual(Math.max(cap, 0));
          expect(buf.size).toBe(queue.length);
        }
        expect(out).toEqual(expOut);
        expect(drops.map((d) => [d.item, d.reason])).toEqual(expDrops);
        // Conservation: everything pushed is out, dropped, or still queued.
        expect(out.length + drops.length + buf.size).toBe(next);
      }),
      { numRuns: 400 },
    );
  });

  it("spinOnce sends only what was queued at the call; spin yields when more data is waiting", async () => {
    const src = new UserSource<[number]>();
    let yields = 0;
    const buf = new Buffer<[number]>(BufferPolicy.Queue, 10, {
      yieldToEventLoop: async () => {
        yields++;
        await Promise.resolve();
      },
    });
    const out: number[] = [];
    // The sink feeds the buffer again (a loop that a Queue-mode Buffer makes legal).
    const echo = new SimpleUserFilter<[number]>((n) => {
      out.push(n);
      if (n < 3) {
        src.push(n + 1);
      }
      return true;
    });
    chain(src, buf, echo);
    src.push(0);
    buf.spinOnce();
    expect(out).toEqual([0]);
    expect(buf.size).toBe(1);
    const spinning = buf.spin();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(out).toEqual([0, 1, 2, 3]);
    expect(yields).toBe(2); // after the batches [1] and [2], each of which queued the next item
    buf.setPolicy(BufferPolicy.Discard);
    await spinning;
  });
});
