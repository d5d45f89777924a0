import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { fmtStamp } from "./format";
import { absoluteTime, formatStampAs, relativeSeconds, relativeStamp, secondsAfterStart } from "./timeFormat";

const BASE = 1_716_319_898;

describe("the panel's stamps and absolute times", () => {
  it("rounds a stamp read between two nanoseconds into the next second instead of writing nsec = 1e9", () => {
    expect(absoluteTime(1_999_999_999.6, BASE)).toEqual({ sec: BASE + 2, nsec: 0 });
    expect(fmtStamp(1_999_999_999.6, BASE)).toBe(`${BASE + 2}.000000000`);
    expect(fmtStamp(1_500_000_007, BASE)).toBe(`${BASE + 1}.500000007`);
  });

  it("gives absolute times before the base for negative stamps", () => {
    expect(absoluteTime(-1, BASE)).toEqual({ sec: BASE - 1, nsec: 999_999_999 });
    expect(formatStampAs(-1, BASE, "SEC", undefined)).toBe(`${BASE - 1}.999`);
  });

  it("takes an absolute time to its stamp and back, for every time within 52 days of the base", () => {
    fc.assert(
      fc.property(fc.integer({ min: -4_000_000, max: 4_000_000 }), fc.integer({ min: 0, max: 999_999_999 }), (dSec, nsec) => {
        const time = { sec: BASE + dSec, nsec };
        const stamp = relativeStamp(time, BASE);
        expect(BigInt(stamp)).toBe(BigInt(dSec) * 1_000_000_000n + BigInt(nsec));
        expect(absoluteTime(stamp, BASE)).toEqual(time);
      }),
    );
  });

  it("measures seconds from the recording's start, which need not lie on the base's second", () => {
    const start = { sec: BASE + 2, nsec: 250_000_000 };
    expect(secondsAfterStart(3_750_000_000, BASE, start)).toBeCloseTo(1.5, 9);
    expect(relativeSeconds(2_000_000_000, BASE, start)).toBe("−0.250 s");
  });
});
