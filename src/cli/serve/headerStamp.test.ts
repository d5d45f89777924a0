import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { shiftHeaderStamp, startsWithHeader } from "./headerStamp";

const NS = 1_000_000_000n;

function message(layout: "ros1" | "cdr-le" | "cdr-be", sec: number, nsec: number): Uint8Array {
  const data = new Uint8Array(20);
  const v = new DataView(data.buffer);
  const le = layout !== "cdr-be";
  if (layout === "ros1") {
    v.setUint32(0, 7, true); // seq
  } else {
    data[1] = layout === "cdr-le" ? 1 : 0;
  }
  v.setUint32(4, sec, le);
  v.setUint32(8, nsec, le);
  return data;
}

function stampOf(layout: "ros1" | "cdr-le" | "cdr-be", data: Uint8Array): bigint {
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const le = layout !== "cdr-be";
  return BigInt(v.getUint32(4, le)) * NS + BigInt(v.getUint32(8, le));
}

describe("header stamps", () => {
  it("recognizes definitions that start with a header (ROS 1 and ROS 2 spellings)", () => {
    expect(startsWithHeader("# comment\nHeader header\nfloat64 x")).toBe(true);
    expect(startsWithHeader("std_msgs/Header header\n")).toBe(true);
    expect(startsWithHeader("std_msgs/msg/Header header\n")).toBe(true);
    expect(startsWithHeader("float64 x\nHeader header")).toBe(false);
    expect(startsWithHeader("")).toBe(false);
  });

  it("moves the stamp by exactly the offset in ROS 1 and CDR (both byte orders), leaving the rest", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("ros1" as const, "cdr-le" as const, "cdr-be" as const),
        fc.integer({ min: 1, max: 1_900_000_000 }),
        fc.integer({ min: 0, max: 999_999_999 }),
        fc.bigInt({ min: -1_000_000_000n * NS, max: 200_000_000n * NS }),
        (layout, sec, nsec, offset) => {
          const data = message(layout, sec, nsec);
          const before = new Uint8Array(data);
          const out = shiftHeaderStamp(layout === "ros1" ? "ros1" : "cdr", data, offset);
          expect(data).toEqual(before); // input untouched
          const expected = BigInt(sec) * NS + BigInt(nsec) + offset;
          expect(stampOf(layout, out)).toBe(expected >= 0n ? expected : stampOf(layout, before));
          expect(out.subarray(0, 4)).toEqual(before.subarray(0, 4));
          expect(out.subarray(12)).toEqual(before.subarray(12));
        },
      ),
    );
  });

  it("keeps unset stamps, short data and unknown CDR encapsulations as they are", () => {
    const unset = message("ros1", 0, 0);
    expect(shiftHeaderStamp("ros1", unset, 5n)).toEqual(unset);
    const short = new Uint8Array(8);
    expect(shiftHeaderStamp("ros1", short, 5n)).toEqual(short);
    const xcdr = message("cdr-le", 10, 0);
    xcdr[1] = 7;
    expect(shiftHeaderStamp("cdr", xcdr, 5n)).toEqual(xcdr);
    const same = message("ros1", 10, 0);
    expect(shiftHeaderStamp("ros1", same, 0n)).toBe(same);
  });
});
