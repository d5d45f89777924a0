import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { compareRosTimes, nsBetween } from "./rosTimeOrder";

const absolute = (t: { sec: number; nsec: number }): bigint => BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);
const rosTime = fc.record({ sec: fc.integer({ min: 0, max: 2 ** 32 - 1 }), nsec: fc.integer({ min: 0, max: 999_999_999 }) });

describe("compareRosTimes", () => {
  it("tells apart epoch times that are closer than a double's spacing in nanoseconds", () => {
    const a = { sec: 1_700_000_000, nsec: 10 };
    const b = { sec: 1_700_000_000, nsec: 20 };
    // The absolute nanoseconds as a number make these two the same time.
    expect(a.sec * 1e9 + a.nsec).toBe(b.sec * 1e9 + b.nsec);
    expect(compareRosTimes(a, b)).toBeLessThan(0);
    expect(compareRosTimes(b, a)).toBeGreaterThan(0);
    expect(compareRosTimes(a, { sec: 1_700_000_000, nanosec: 10 })).toBe(0);
  });

  it("orders every pair of ROS times as their absolute nanoseconds do", () => {
    fc.assert(
      fc.property(rosTime, rosTime, (a, b) => {
        const oracle = absolute(a) < absolute(b) ? -1 : absolute(a) > absolute(b) ? 1 : 0;
        expect(Math.sign(compareRosTimes(a, b))).toBe(oracle);
      }),
    );
  });
});

describe("nsBetween", () => {
  it("is the exact distance of two epoch times, where absolute nanoseconds as numbers round to 256 ns", () => {
    expect(nsBetween({ sec: 1_700_000_000, nsec: 10 }, { sec: 1_700_000_000, nsec: 20 })).toBe(10);
    expect(nsBetween({ sec: 1_700_000_001, nsec: 5 }, { sec: 1_700_000_000, nanosec: 999_999_999 })).toBe(-6);
  });

  it("is the difference of the absolute nanoseconds for every pair less than 104 days apart", () => {
    fc.assert(
      fc.property(rosTime, fc.integer({ min: -9_000_000, max: 9_000_000 }), fc.integer({ min: 0, max: 999_999_999 }), (a, dSec, nsec) => {
        const b = { sec: Math.min(2 ** 32 - 1, Math.max(0, a.sec + dSec)), nsec };
        expect(BigInt(nsBetween(a, b))).toBe(absolute(b) - absolute(a));
      }),
    );
  });
});
