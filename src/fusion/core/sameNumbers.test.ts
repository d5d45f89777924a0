import { describe, expect, it } from "vitest";

import { sameNumbers } from "./sameNumbers";

describe("sameNumbers", () => {
  it("compares length and every entry to the bit", () => {
    expect(sameNumbers([1, 2.5, NaN], Float64Array.of(1, 2.5, NaN))).toBe(true);
    expect(sameNumbers([], [])).toBe(true);
    expect(sameNumbers([0], [-0])).toBe(false);
    expect(sameNumbers([1, 2], [1, 2, 3])).toBe(false);
    expect(sameNumbers([0.1 + 0.2], [0.3])).toBe(false);
  });
});
