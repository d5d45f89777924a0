import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { copyNumbers } from "./copyNumbers";

describe("copyNumbers", () => {
  it("gives Float64Array.from's values to the bit, for arrays and typed arrays, in a new array", () => {
    fc.assert(
      fc.property(fc.array(fc.double()), (values) => {
        for (const source of [values, Float64Array.from(values)]) {
          const copy = copyNumbers(source);
          expect(copy).not.toBe(source);
          const expected = Float64Array.from(source);
          expect(copy.length).toBe(expected.length);
          for (let i = 0; i < copy.length; i++) {
            expect(Object.is(copy[i], expected[i])).toBe(true);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
