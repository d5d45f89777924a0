import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { RingBuffer } from "./RingBuffer";

describe("RingBuffer", () => {
  it("keeps the newest `capacity` items, oldest first", () => {
    const ring = new RingBuffer<number>(3);
    ring.push(1).push(2);
    expect(ring.toArray()).toEqual([1, 2]);
    ring.push(3).push(4).push(5);
    expect(ring.toArray()).toEqual([3, 4, 5]);
    expect(ring.at(0)).toBe(3);
    expect(ring.last()).toBe(5);
    expect(ring.at(3)).toBeUndefined();
    expect(ring.totalPushed).toBe(5);
    expect(ring.evicted).toBe(2);
    ring.clear();
    expect(ring.size).toBe(0);
    expect(ring.totalPushed).toBe(0);
  });

  it("rejects a non-positive capacity", () => {
    expect(() => new RingBuffer(0)).toThrow(/positive integer/);
  });

  it("float64 keeps numbers the same way, in a Float64Array that clear keeps", () => {
    const ring = RingBuffer.float64(2);
    ring.push(0.5).push(-1).push(3);
    expect(ring.toArray()).toEqual([-1, 3]);
    expect([ring.at(0), ring.last(), ring.at(2), ring.totalPushed, ring.evicted]).toEqual([-1, 3, undefined, 3, 1]);
    ring.clear();
    expect([ring.size, ring.totalPushed, ring.last()]).toEqual([0, 0, undefined]);
    ring.push(7);
    expect(ring.toArray()).toEqual([7]);
    expect(() => RingBuffer.float64(1.5)).toThrow(/positive integer/);
  });

  it("matches a plain array truncated to the last N (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer(), { maxLength: 100 }), (cap, xs) => {
        const ring = new RingBuffer<number>(cap);
        for (const x of xs) {
          ring.push(x);
        }
        expect(ring.toArray()).toEqual(xs.slice(Math.max(0, xs.length - cap)));
        expect(ring.size).toBe(Math.min(cap, xs.length));
      }),
    );
  });
});
