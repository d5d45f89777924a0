import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { MAX_RELATIVE_NS, StampRangeError, TimeBase, parseNanoseconds } from "./TimeBase";

const EPOCH_NS = 1_700_000_000n * 1_000_000_000n;

describe("TimeBase", () => {
  it("uses base 0 for stamps that are exact on their own, so relative equals absolute", () => {
    const base = TimeBase.forFirstStamp(999_311_789n);
    expect(base.baseSec).toBe(0);
    expect(base.zero).toBe(0);
    expect(base.fromString("999311789")).toBe(999_311_789);
    expect(base.format(0)).toBe("0");
  });

  it("uses the first stamp's whole second for epoch-scale stamps; absolute 0 is out of reach", () => {
    const base = TimeBase.forFirstStamp(EPOCH_NS + 123n);
    expect(base.baseSec).toBe(1_700_000_000);
    expect(base.zero).toBe(-Infinity);
    expect(base.fromNanoseconds(EPOCH_NS + 123n)).toBe(123);
  });

  it("keeps two stamps 1 ns apart at epoch scale distinct and their difference exact", () => {
    const base = TimeBase.forFirstSecNsec(1_700_000_000, 0);
    const a = base.fromString("1700000000123456789");
    const b = base.fromString("1700000000123456790");
    expect(b - a).toBe(1);
    expect(a).not.toBe(b);
    expect(base.format(a)).toBe("1700000000123456789");
    expect(base.format(b)).toBe("1700000000123456790");
    // a plain float would have merged them
    expect(Number(1700000000123456789n)).toBe(Number(1700000000123456790n));
  });

  it("round-trips every stamp in the exact window through string, bigint and {sec, nsec}", () => {
    const base = new TimeBase(1_700_000_000);
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 52n), max: 2n ** 52n }), (rel) => {
        const abs = EPOCH_NS + rel;
        const s = base.fromNanoseconds(abs);
        expect(BigInt(s)).toBe(rel);
        expect(base.toNanoseconds(s)).toBe(abs);
        expect(base.fromString(base.format(s))).toBe(s);
        const { sec, nsec } = base.toSecNsec(s);
        expect(base.fromSecNsec(sec, nsec)).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it("formatSeconds reads as seconds.nanoseconds: the same digits as format, a point before the last nine", () => {
    for (const base of [new TimeBase(1_700_000_000), new TimeBase(0)]) {
      fc.assert(
        fc.property(fc.bigInt({ min: base.baseSec === 0 ? 0n : -(2n ** 52n), max: 2n ** 52n }), (rel) => {
          const s = Number(rel);
          const text = base.formatSeconds(s);
          expect(text).toMatch(/^\d+\.\d{9}$/);
          expect(BigInt(text.replace(".", ""))).toBe(BigInt(base.format(s)));
        }),
        { numRuns: 1000 },
      );
    }
    expect(new TimeBase(1_432_235_497).formatSeconds(988_949_113)).toBe("1432235497.988949113");
    expect(new TimeBase(0).formatSeconds(5)).toBe("0.000000005");
    expect(new TimeBase(0).formatSeconds(-1_500_000_005)).toBe("-1.500000005");
  });

  it("orders relative stamps exactly as the absolute stamps", () => {
    const base = new TimeBase(1_700_000_000);
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 51n), max: 2n ** 51n }),
        fc.bigInt({ min: -(2n ** 51n), max: 2n ** 51n }),
        (x, y) => {
          const a = base.fromNanoseconds(EPOCH_NS + x);
          const b = base.fromNanoseconds(EPOCH_NS + y);
          expect(Math.sign(a - b)).toBe(x === y ? 0 : x < y ? -1 : 1);
          expect(BigInt(a - b)).toBe(x - y);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("rejects stamps outside the window instead of rounding them", () => {
    const base = new TimeBase(1_700_000_000);
    expect(() => base.fromNanoseconds(EPOCH_NS + BigInt(MAX_RELATIVE_NS) + 1n)).toThrow(
      StampRangeError,
    );
    expect(() => base.fromSecNsec(0, 0)).toThrow(/days from the time base/);
    expect(() => base.fromSecNsec(1_700_000_000, 1_000_000_000)).toThrow(StampRangeError);
    expect(() => base.fromSecNsec(1_700_000_000, -1)).toThrow(StampRangeError);
    expect(() => base.fromSecNsec(1_700_000_000.5, 0)).toThrow(StampRangeError);
    expect(() => TimeBase.forFirstStamp(-1n)).toThrow(/negative/);
    expect(() => new TimeBase(-1)).toThrow(StampRangeError);
  });

  it("parses only integer decimal nanoseconds", () => {
    expect(parseNanoseconds("-5")).toBe(-5n);
    for (const bad of ["1.5", "1e9", "", "abc", " 12"]) {
      expect(() => parseNanoseconds(bad)).toThrow(/not an integer number of nanoseconds/);
    }
  });
});
