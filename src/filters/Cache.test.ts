import { describe, expect, it } from "vitest";

import { Cache } from "./Cache";
import type { DropEvent } from "./DropReason";

function filled(stamps: number[], cacheSize = 10) {
  const drops: DropEvent<string>[] = [];
  const cache = new Cache<string>({ cacheSize, onDrop: (d) => drops.push(d) });
  for (const t of stamps) {
    cache.add(t, `m${t}`);
  }
  return { cache, drops };
}

// Semantics of ROS 2 message_filters C++ Cache (cache.hpp, 8.0.2) and its msg_cache_unittest.
describe("Cache", () => {
  it("keeps the newest cacheSize messages and reports evictions as queue-overflow", () => {
    // upstream "easy" case: size 10, messages 0..4 then 5..9 fill it; 10.. evict the oldest
    const { cache, drops } = filled([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(cache.size).toBe(10);
    expect(cache.getOldestTime()).toBe(2);
    expect(cache.getLatestTime()).toBe(11);
    expect(drops.map((d) => [d.stamp, d.reason])).toEqual([
      [0, "queue-overflow"],
      [1, "queue-overflow"],
    ]);
  });

  it("keeps messages sorted even when they arrive out of order", () => {
    const { cache } = filled([5, 1, 3, 2, 4]);
    expect(cache.getInterval(0, 10)).toEqual(["m1", "m2", "m3", "m4", "m5"]);
  });

  it("evicts the oldest stamp before inserting, even if the new message is older still", () => {
    const { cache, drops } = filled([5, 6, 7], 3);
    cache.add(1, "old");
    expect(drops.map((d) => d.stamp)).toEqual([5]);
    expect(cache.getInterval(0, 10)).toEqual(["old", "m6", "m7"]);
  });

  it("getInterval is inclusive at both ends; empty when nothing or reversed", () => {
    const { cache } = filled([10, 20, 30, 40, 50]);
    expect(cache.getInterval(20, 40)).toEqual(["m20", "m30", "m40"]);
    expect(cache.getInterval(21, 39)).toEqual(["m30"]);
    expect(cache.getInterval(41, 49)).toEqual([]);
    expect(cache.getInterval(0, 9)).toEqual([]);
    expect(cache.getInterval(60, 70)).toEqual([]);
    expect(cache.getInterval(40, 20)).toEqual([]);
  });

  it("getSurroundingInterval takes one message beyond each end (or what exists)", () => {
    const { cache } = filled([10, 20, 30, 40, 50]);
    // last <= start is one before lower_bound(start); first >= end included
    expect(cache.getSurroundingInterval(25, 35)).toEqual(["m20", "m30", "m40"]);
    // exact hits: lower_bound(20) = m20, one before = m10; lower_bound(40) = m40 included
    expect(cache.getSurroundingInterval(20, 40)).toEqual(["m10", "m20", "m30", "m40"]);
    // beyond both ends: the closest there is
    expect(cache.getSurroundingInterval(0, 100)).toEqual(["m10", "m20", "m30", "m40", "m50"]);
    expect(cache.getSurroundingInterval(55, 60)).toEqual(["m50"]);
    expect(cache.getSurroundingInterval(0, 5)).toEqual(["m10"]);
    expect(new Cache<string>({ cacheSize: 3 }).getSurroundingInterval(0, 1)).toEqual([]);
  });

  it("getElemBeforeTime / getElemAfterTime are strict", () => {
    const { cache } = filled([10, 20, 30]);
    expect(cache.getElemBeforeTime(20)).toBe("m10");
    expect(cache.getElemBeforeTime(21)).toBe("m20");
    expect(cache.getElemBeforeTime(10)).toBeUndefined();
    expect(cache.getElemAfterTime(20)).toBe("m30");
    expect(cache.getElemAfterTime(19)).toBe("m20");
    expect(cache.getElemAfterTime(30)).toBeUndefined();
  });

  it("an equal stamp goes before the cached ones (lower_bound insertion)", () => {
    const cache = new Cache<string>({ cacheSize: 5 });
    cache.add(10, "first");
    cache.add(10, "second");
    expect(cache.getInterval(10, 10)).toEqual(["second", "first"]);
  });

  it("empty cache: time getters return zero (ROS Time()), queries are empty", () => {
    const cache = new Cache<string>({ cacheSize: 2, zero: -Infinity });
    expect(cache.getLatestTime()).toBe(-Infinity);
    expect(cache.getOldestTime()).toBe(-Infinity);
    expect(cache.getElemAfterTime(0)).toBeUndefined();
    expect(cache.getInterval(0, 1)).toEqual([]);
  });

  it("setCacheSize(0) is ignored; shrinking evicts at the next add", () => {
    const { cache, drops } = filled([1, 2, 3, 4], 4);
    expect(cache.setCacheSize(0).cacheSize).toBe(4);
    cache.setCacheSize(2);
    expect(cache.size).toBe(4);
    cache.add(5, "m5");
    expect(drops.map((d) => d.stamp)).toEqual([1, 2, 3]);
    expect(cache.getInterval(0, 10)).toEqual(["m4", "m5"]);
    expect(() => cache.setCacheSize(-1)).toThrow(/cacheSize/);
  });

  it("headerless messages: refused (no-header) unless allowed, then cached by arrival", () => {
    const drops: DropEvent<string>[] = [];
    const strict = new Cache<string>({ cacheSize: 2, onDrop: (d) => drops.push(d) });
    strict.add(NaN, "h", 7);
    expect(drops.map((d) => d.reason)).toEqual(["no-header"]);
    const lax = new Cache<string>({ cacheSize: 2, allowHeaderless: true });
    lax.add(NaN, "h", 7);
    expect(lax.getLatestTime()).toBe(7);
  });

  it("signals listeners with each added message; grows past its initial buffer", () => {
    const cache = new Cache<string>({ cacheSize: 5000 });
    const seen: string[] = [];
    const off = cache.addListener((m) => seen.push(m));
    for (let i = 0; i < 3000; i++) {
      cache.add(3000 - i, `m${3000 - i}`);
    }
    off();
    cache.add(0, "late");
    expect(seen.length).toBe(3000);
    expect(cache.size).toBe(3001);
    expect(cache.getInterval(0, 2)).toEqual(["late", "m1", "m2"]);
  });
});
