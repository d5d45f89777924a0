import { setFlagsFromString } from "node:v8";
import { describe, expect, it } from "vitest";

import { SlotRing } from "./SlotRing";
import { packedDoubles, packedSlots } from "./packedArrays";

// V8's own answer about an array's elements kind: natives syntax is accepted in code compiled
// after the flag is set, so these two functions are compiled from text afterwards.
setFlagsFromString("--allow-natives-syntax");
// eslint-disable-next-line no-new-func, @typescript-eslint/no-implied-eval -- natives syntax, see above
const isHoley = new Function("a", "return %HasHoleyElements(a)") as (a: unknown) => boolean;
// eslint-disable-next-line no-new-func, @typescript-eslint/no-implied-eval -- natives syntax, see above
const hasDoubles = new Function("a", "return %HasDoubleElements(a)") as (a: unknown) => boolean;

describe("packedArrays", () => {
  it("the probes tell a holey array from a packed one", () => {
    expect(isHoley(new Array<number>(4).fill(0.5))).toBe(true);
    expect(isHoley([0.5, 0.5])).toBe(false);
    expect(hasDoubles([0.5, 0.5])).toBe(true);
    expect(hasDoubles([1, 2])).toBe(false);
  });

  it("packedDoubles: n doubles without holes, still doubles after integers and NaN are stored", () => {
    for (const n of [2, 3, 16, 48]) {
      const a = packedDoubles(n);
      expect(a).toEqual(new Array<number>(n).fill(0.5));
      a[0] = 7;
      a[n - 1] = NaN;
      expect(isHoley(a)).toBe(false);
      expect(hasDoubles(a)).toBe(true);
      expect(a[0]).toBe(7);
    }
    expect(hasDoubles(packedDoubles(3).fill(0))).toBe(true);
  });

  it("packedSlots: n undefined positions without holes, whatever is stored", () => {
    for (const n of [1, 3, 16]) {
      const a = packedSlots<{ id: number }>(n);
      expect(a).toEqual(new Array<undefined>(n).fill(undefined));
      a[0] = { id: 1 };
      a[0] = undefined;
      expect(isHoley(a)).toBe(false);
    }
  });

  it("a SlotRing keeps packed stamps and items through pushes, growth and clear", () => {
    const ring = new SlotRing<number>(2);
    for (let k = 0; k < 37; k++) {
      ring.push(1e12 + k * 3, k);
    }
    expect(ring.len).toBe(37);
    expect(ring.stampAt(36)).toBe(1e12 + 108);
    expect(ring.itemAt(0)).toBe(0);
    for (const a of [ring.st, ring.it]) {
      expect(isHoley(a)).toBe(false);
    }
    expect(hasDoubles(ring.st)).toBe(true);
    ring.clear();
    expect(isHoley(ring.it)).toBe(false);
  });
});
