import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { Reservoir } from "./Reservoir";

/** Nearest-rank quantile, brute force. */
function oracle(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (p <= 0) {
    return s[0]!;
  }
  if (p >= 1) {
    return s[s.length - 1]!;
  }
  return s[Math.max(0, Math.ceil(p * s.length) - 1)]!;
}

describe("Reservoir", () => {
  it("is exact below capacity", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1e9, max: 1e9 }), { minLength: 1, maxLength: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, p) => {
          const r = new Reservoir(256);
          values.forEach((v) => { r.add(v); });
          expect(r.quantile(p)).toBe(oracle(values, p));
          expect(r.min).toBe(Math.min(...values));
          expect(r.max).toBe(Math.max(...values));
          expect(r.exact).toBe(true);
        },
      ),
    );
  });

  it("stays bounded and close beyond capacity; min/max exact", () => {
    const r = new Reservoir(1000);
    for (let i = 0; i < 100_000; i++) {
      r.add(i);
    }
    expect(r.count).toBe(100_000);
    expect(r.exact).toBe(false);
    expect(r.min).toBe(0);
    expect(r.max).toBe(99_999);
    expect(Math.abs(r.median - 50_000)).toBeLessThan(5_000);
    expect(Math.abs(r.quantile(0.95) - 95_000)).toBeLessThan(3_000);
    expect(new Reservoir().quantile(0.5)).toBeNaN();
  });
});
