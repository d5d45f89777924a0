import { describe, expect, it } from "vitest";

import { RecentByNumbers } from "./RecentByNumbers";

describe("RecentByNumbers", () => {
  it("finds a value by numbers equal to the bit and the same tag", () => {
    const cache = new RecentByNumbers<string>(4);
    cache.remember(Float64Array.of(1, 0, NaN), 3, "a");
    expect(cache.find([1, 0, NaN], 3)).toBe("a");
    expect(cache.find([1, -0, NaN], 3)).toBeUndefined();
    expect(cache.find([1, 0, NaN], 2)).toBeUndefined();
    expect(cache.find([1, 0], 3)).toBeUndefined();
  });

  it("forgets the oldest entry once full", () => {
    const cache = new RecentByNumbers<number>(2);
    for (const v of [1, 2, 3]) {
      cache.remember(Float64Array.of(v), 0, v);
    }
    expect(cache.find([1], 0)).toBeUndefined();
    expect(cache.find([2], 0)).toBe(2);
    expect(cache.find([3], 0)).toBe(3);
  });
});
