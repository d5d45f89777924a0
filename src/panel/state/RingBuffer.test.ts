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
