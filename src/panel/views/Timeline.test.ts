import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { axisTicks } from "./Timeline";

/** Whether a step (ns) is 1, 2 or 5 times a power of ten. */
function isNiceStep(step: number): boolean {
  const pow = 10 ** Math.floor(Math.log10(step) + 1e-9);
  return [1, 2, 5, 10].some((m) => Math.abs(step - m * pow) <= 1e-6 * step);
}

describe("axisTicks", () => {
  it("labels seconds since the origin on whole steps", () => {
    const ticks = axisTicks({ from: 0, to: 10e9 }, 400, 0);
    expect(ticks.map((t) => t.label)).toEqual(["+0 s", "+2 s", "+4 s", "+6 s", "+8 s", "+10 s"]);
    expect(axisTicks({ from: 1.2e9, to: 1.7e9 }, 480, 1e9).map((t) => t.label)).toEqual(["+0.2 s", "+0.3 s", "+0.4 s", "+0.5 s", "+0.6 s", "+0.7 s"]);
    expect(axisTicks({ from: -3e9, to: 1e9 }, 160, 0).map((t) => t.label)).toEqual(["−2 s", "+0 s"]);
  });

  it("gives nothing for an empty window or plot", () => {
    expect(axisTicks({ from: 5, to: 5 }, 400, 0)).toEqual([]);
    expect(axisTicks({ from: 0, to: 1e9 }, 0, 0)).toEqual([]);
  });

  it("every tick of a 1-2-5 step inside the window (at least one given 240 px), none missing, at least 80 px apart, label = position", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e12, max: 1e12, noNaN: true }),
        fc.double({ min: 1e3, max: 1e13, noNaN: true }),
        fc.integer({ min: 80, max: 4000 }),
        fc.double({ min: -1e12, max: 1e12, noNaN: true }),
        (from, span, plotWidth, origin) => {
          const w = { from, to: from + span };
          const ticks = axisTicks(w, plotWidth, origin);
          const wanted = Math.floor(plotWidth / 80);
          // A 1-2-5 step is at most 2.5 × span / wanted: with room for 3 labels, one tick at least.
          if (wanted >= 3) {
            expect(ticks.length).toBeGreaterThan(0);
          }
          expect(ticks.length).toBeLessThanOrEqual(wanted + 2);
          for (const t of ticks) {
            expect(t.stamp).toBeGreaterThanOrEqual(w.from - 1e-6 * span);
            expect(t.stamp).toBeLessThanOrEqual(w.to + 1e-6 * span);
            const shown = Number(t.label.replace("−", "-").replace(/ s$/, "")) * 1e9;
            expect(Math.abs(shown - (t.stamp - origin))).toBeLessThanOrEqual(Math.abs(t.stamp - origin) * 1e-9 + 1);
          }
          if (ticks.length >= 2) {
            const step = ticks[1]!.stamp - ticks[0]!.stamp;
            expect(isNiceStep(step)).toBe(true);
            expect((step / span) * plotWidth).toBeGreaterThanOrEqual(80 * (1 - 1e-9));
            // None missing at either end (up to float rounding of the positions).
            expect(ticks[0]!.stamp - step).toBeLessThan(w.from + 1e-6 * span);
            expect(ticks[ticks.length - 1]!.stamp + step).toBeGreaterThan(w.to - 1e-6 * span);
          }
        },
      ),
    );
  });
});
