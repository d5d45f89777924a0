import { describe, expect, it } from "vitest";

import { nsecOf, parseStampJson } from "./stamps";

describe("parseStampJson", () => {
  it("accepts decimal strings and ROS 1 / ROS 2 time objects", () => {
    expect(parseStampJson("1700000000123456789")).toBe(1700000000123456789n);
    expect(parseStampJson({ sec: 1700000000, nsec: 5 })).toBe(1700000000000000005n);
    expect(parseStampJson({ sec: 1700000000, nanosec: 5 })).toBe(1700000000000000005n);
  });

  it("rejects floats, numbers, negatives and bad nanoseconds, naming the field", () => {
    expect(() => parseStampJson("1.5", "line 3: stamp")).toThrow(
      /line 3: stamp: "1.5" is not a stamp/,
    );
    expect(() => parseStampJson(12, "stamp")).toThrow(/is not a stamp/);
    expect(() => parseStampJson("-1", "stamp")).toThrow(/non-negative/);
    expect(() => parseStampJson({ sec: 1, nsec: 1e9 }, "stamp")).toThrow(/not a ROS time/);
    expect(() => parseStampJson({ sec: 1.5, nsec: 0 }, "stamp")).toThrow(/not a ROS time/);
  });

  it("rejects a time object with both nsec and nanosec, or with keys a ROS time does not have, naming them", () => {
    expect(() => parseStampJson({ sec: 1, nsec: 2, nanosec: 2 }, "stamp")).toThrow(
      /stamp: .* has both "nsec" and "nanosec"/,
    );
    expect(() => parseStampJson({ sec: 1, nsec: 2, frame_id: "base" }, "stamp")).toThrow(
      /stamp: .* has "frame_id", which a ROS time does not have/,
    );
    expect(() => parseStampJson({ sec: 1, nanosec: 2, secs: 1, nsecs: 2 }, "stamp")).toThrow(/has "secs", "nsecs", which/);
  });

  it("reads both time shapes", () => {
    expect(nsecOf({ sec: 3, nsec: 4 })).toBe(4);
    expect(nsecOf({ sec: 3, nanosec: 5 })).toBe(5);
  });
});
