import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { nanosecondsText, secNsecText } from "./secNsecText";

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

describe("nanosecondsText", () => {
  it("writes JSON's nanosecond strings as secNsecText does, and leaves anything else as it was", () => {
    expect(nanosecondsText("1432235893331706030")).toBe("1432235893.331706030");
    expect(nanosecondsText("5")).toBe("0.000000005");
    expect(nanosecondsText("")).toBe("");
    expect(nanosecondsText("-5")).toBe("-5");
    expect(nanosecondsText("1.5")).toBe("1.5");
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n }), (ns) => {
        const text = nanosecondsText(ns.toString());
        expect(text).toMatch(/^\d+\.\d{9}$/);
        expect(BigInt(text.replace(".", ""))).toBe(ns);
      }),
    );
  });
});
