import { describe, expect, it } from "vitest";

import { formatDuration, parseDuration, scaleDuration } from "./durations";

describe("parseDuration", () => {
  it.each([
    ["250ns", 250],
    ["40us", 40_000],
    ["33ms", 33_000_000],
    ["1.5s", 1_500_000_000],
    ["0.1s", 100_000_000],
    ["0.000000001s", 1],
    ["2.5ms", 2_500_000],
    [1000, 1000],
    ["1000", 1000],
    [0, 0],
  ])("%s -> %d ns exactly", (input, ns) => {
    expect(parseDuration(input)).toBe(ns);
  });

  it("names the parameter and the value in its errors", () => {
    expect(() => parseDuration("50 minutes", "/policy/maxAge")).toThrow(
      /\/policy\/maxAge: "50 minutes" is not a duration/,
    );
    expect(() => parseDuration(1.5, "epsilon")).toThrow(/epsilon: 1.5 is not an integer/);
    expect(() => parseDuration("0.5ns", "d")).toThrow(/not a whole number of nanoseconds/);
    expect(() => parseDuration("-1ms", "d")).toThrow(/negative/);
    expect(() => parseDuration(true, "d")).toThrow(/expected a duration string/);
    expect(parseDuration("-1ms", "d", { allowNegative: true })).toBe(-1_000_000);
  });

  it("formats with the largest exact unit and round-trips", () => {
    for (const ns of [0, 1, 999, 1000, 33_000_000, 1_500_000_000, 2_000_000_000, 123_456_789]) {
      expect(parseDuration(formatDuration(ns))).toBe(ns);
    }
    expect(formatDuration(33_000_000)).toBe("33ms");
    expect(formatDuration(1_500_000_000)).toBe("1500ms");
  });

  it("truncates duration × double toward zero like ROS", () => {
    expect(scaleDuration(15, 0.1)).toBe(1);
    expect(scaleDuration(-15, 0.1)).toBe(-1);
    expect(scaleDuration(1_000_000_007, 0.5)).toBe(500_000_003);
  });
});
