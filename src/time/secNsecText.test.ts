import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { secNsecText } from "./secNsecText";

describe("secNsecText", () => {
  it("writes whole seconds, a point and nine digits of nanoseconds", () => {
    expect(secNsecText(1432235497, 988949113)).toBe("1432235497.988949113");
    expect(secNsecText(12, 5)).toBe("12.000000005");
    expect(secNsecText(0, 0)).toBe("0.000000000");
  });

  it("is the time's nanoseconds with a point before the last nine digits, for every ROS time", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 999_999_999 }), (sec, nsec) => {
        const text = secNsecText(sec, nsec);
        expect(text).toMatch(/^\d+\.\d{9}$/);
        expect(BigInt(text.replace(".", ""))).toBe(BigInt(sec) * 1_000_000_000n + BigInt(nsec));
      }),
    );
  });

  it("shows a damaged nsec as it was read instead of carrying it into the seconds", () => {
    expect(secNsecText(7, 1_500_000_000)).toBe("7.1500000000");
  });
});
