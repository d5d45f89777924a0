import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { previewValue } from "./previewValue";

/** JSON values: their JSON text is the oracle. */
const json = fc.jsonValue({ maxDepth: 4, depthSize: "small" });

describe("previewValue", () => {
  it("is JSON.stringify for a value whose JSON fits, and a clipped prefix of it otherwise", () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 8, max: 120 }), (value, max) => {
        const full = JSON.stringify(value);
        const shown = previewValue(value, max);
        if (full.length <= max) {
          expect(shown).toBe(full);
        } else {
          expect(shown.length).toBe(max);
          expect(shown.endsWith("...")).toBe(true);
          // A string's last shown characters may differ where the clip cut an escape or a
          // surrogate pair, so compare up to the longest prefix that cannot.
          const kept = shown.slice(0, -3);
          let common = 0;
          while (common < kept.length && kept[common] === full[common]) {
            common++;
          }
          expect(common).toBeGreaterThanOrEqual(kept.length - 6);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("reads no more of a huge or deeply nested value than it shows, and never throws", () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) {
      deep = [deep];
    }
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(previewValue(deep)).toBe(`${"[".repeat(57)}...`);

    const wide: Record<string, number> = {};
    for (let i = 0; i < 100_000; i++) {
      wide[`k${i}`] = i;
    }
    expect(previewValue(wide, 30)).toBe('{"k0":0,"k1":1,"k2":2,"k3":...');
    expect(previewValue("x".repeat(5_000_000), 10)).toBe('"xxxxxx...');
  });

  it("shows what the reader parsed where JSON would write null or nothing", () => {
    expect(previewValue(NaN)).toBe("NaN");
    expect(previewValue(-Infinity)).toBe("-Infinity");
    expect(previewValue([1, Infinity])).toBe("[1,Infinity]");
    expect(previewValue(undefined)).toBe("undefined");
    expect(previewValue(12n)).toBe("12n");
    expect(previewValue(() => 1)).toBe("a function");
    expect(previewValue(new Uint8Array(1_000_000))).toBe("<1000000 bytes>");
    expect(previewValue(new Date(Date.UTC(2015, 0, 2)))).toBe('"2015-01-02T00:00:00.000Z"');
    expect(previewValue({ a: undefined, b: null })).toBe('{"b":null}');
  });
});
