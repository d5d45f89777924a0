import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { uuidPrefixKey } from "./uuidPrefixKey";

const hex = (n: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"), minLength: n, maxLength: n });
const canonical = fc
  .tuple(hex(8), hex(4), hex(4), hex(4), hex(12))
  .map((parts) => parts.join("-"));

describe("uuidPrefixKey", () => {
  it("orders canonical UUIDs as the strings do whenever the keys differ", () => {
    // Shared prefixes are likely with few digit choices: draw the second UUID from the first.
    const pair = fc.tuple(canonical, canonical, fc.nat(36)).map(([a, b, cut]) => [a, a.slice(0, cut) + b.slice(cut)] as const);
    fc.assert(
      fc.property(pair, ([a, b]) => {
        const ka = uuidPrefixKey(a);
        const kb = uuidPrefixKey(b);
        expect(Number.isInteger(ka) && Number.isInteger(kb)).toBe(true);
        if (ka !== kb) {
          expect(ka < kb).toBe(a < b);
        } else {
          expect(a.slice(0, 13)).toBe(b.slice(0, 13));
        }
      }),
      { numRuns: 5000 },
    );
  });

  it("is NaN for anything but a lower-case canonical prefix", () => {
    expect(uuidPrefixKey("A0000000-0000-0000-0000-000000000000")).toBeNaN();
    expect(uuidPrefixKey("x")).toBeNaN();
    expect(uuidPrefixKey("0000000-00000-0000-0000-000000000000")).toBeNaN();
    expect(uuidPrefixKey("ffffffff-ffff-0000-0000-000000000000")).toBe(2 ** 48 - 1);
  });
});
