import { describe, expect, it } from "vitest";

import { FLOOR_SPREAD_LIMIT, unsteadyFloors } from "./peersRun";

describe("unsteadyFloors", () => {
  it("warns about a floor whose rounds ranged beyond the limit, Lockstep's or a peer's, and about nothing else", () => {
    const figures = new Map([
      ["floor/w3/bare", { wall: [10.5, 10.4, 10.6] }],
      ["floor/w3/messages", { wall: [16.4, 23.6, 16.1] }],
      ["peer:floor/bare/js", { wall: [9.9, 17.5] }],
      // Not floors: their spread is the benchmark's own business.
      ["w3/ros-approximate-time/pipeline", { wall: [44.1, 72.3] }],
      // One round: nothing to compare.
      ["peer:floor/messages/js", { wall: [15.0] }],
    ]);
    const warnings = unsteadyFloors(figures);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^floor\/w3\/messages ranged 16\.1–23\.6 ns over the rounds \(1\.47×\)/);
    expect(warnings[1]).toMatch(/^peer floor\/bare\/js ranged 9\.9–17\.5 ns/);
  });

  it("takes a spread at the limit as steady and one just above it as not", () => {
    expect(unsteadyFloors(new Map([["floor/w3/bare", { wall: [10, 10 * FLOOR_SPREAD_LIMIT] }]]))).toEqual([]);
    expect(unsteadyFloors(new Map([["floor/w3/bare", { wall: [10, 10 * FLOOR_SPREAD_LIMIT + 0.01] }]]))).toHaveLength(1);
  });
});
