import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { isAtBottom, tupleColumns, tupleGridTemplate, visibleRange } from "./TuplesTable";

describe("TuplesTable layout", () => {
  it("follows new rows only while the last row is in view", () => {
    // 100 rows of 20 px in a 200 px view: the bottom is at 1800.
    expect(isAtBottom(1800, 200, 2000)).toBe(true);
    expect(isAtBottom(1785, 200, 2000)).toBe(true);
    expect(isAtBottom(1700, 200, 2000)).toBe(false);
    expect(isAtBottom(0, 200, 100)).toBe(true);
  });

  it("columns fit the panel's width whenever 48 px per stamp column can", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 200, max: 3000 }), (slots, width) => {
        const c = tupleColumns(slots, width);
        const total = c.index + slots * c.stamp + c.timespan + c.lag + 8 * (slots + 2);
        if (width >= 36 + 48 * slots + 120 + 8 * (slots + 2)) {
          expect(total).toBeLessThanOrEqual(width);
        }
        expect(c.stamp).toBeGreaterThanOrEqual(48);
      }),
    );
    // A narrow panel (3 inputs, 420 px) keeps every column on screen.
    const c = tupleColumns(3, 420);
    expect(c.index + 3 * c.stamp + c.timespan + c.lag + 40).toBeLessThanOrEqual(420);
  });

  it("the grid template is valid CSS with no input yet (the header's columns stay side by side)", () => {
    // `repeat(0, …)` is invalid: the browser then drops the whole template and stacks the columns.
    expect(tupleGridTemplate(0, 500)).not.toMatch(/repeat\(0/);
    expect(tupleGridTemplate(0, 500).trim().split(/\s+/)).toHaveLength(3);
  });

  it("the fixed columns and gaps fit a 300 px panel, so the lag column is never cut", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 200, max: 3000 }), (slots, width) => {
        const fixed = tupleGridTemplate(slots, width)
          .split(/\s+/)
          .filter((t) => /^\d+px$/.test(t))
          .reduce((s, t) => s + Number(t.slice(0, -2)), 0);
        // Stamp columns shrink to what is left (minmax(0, 1fr)), clipped with an ellipsis.
        expect(fixed + 8 * (slots + 2)).toBeLessThanOrEqual(width);
      }),
    );
  });

  it("renders the rows in view plus the overscan", () => {
    expect(visibleRange(0, 200, 1000)).toEqual([0, 20]);
    expect(visibleRange(2000, 200, 1000)).toEqual([90, 120]);
    expect(visibleRange(0, 200, 5)).toEqual([0, 5]);
  });
});
