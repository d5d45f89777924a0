import { describe, expect, it } from "vitest";

import { zeros } from "./Matrix";
import { choleskyLower, choleskyLowerInto, inverse, inverseInto } from "./linalg";
import { bits, spd, stream } from "./testing";

describe("allocation-free inverse and Cholesky", () => {
  it("inverseInto and choleskyLowerInto give the allocating versions' results exactly, over dirty buffers", () => {
    const rand = stream(7);
    const inv = new Float64Array(15 * 15).fill(NaN);
    const work = new Float64Array(15 * 15).fill(NaN);
    const l = new Float64Array(15 * 15).fill(NaN);
    for (const n of [1, 2, 3, 8, 15, 6, 1]) {
      for (const diag of [false, true]) {
        const a = spd(n, rand, { diagonal: diag });
        expect(inverseInto(a.data, n, inv, work)).toBe(true);
        const want = inverse(a)!;
        expect(bits(inv.subarray(0, n * n))).toEqual(bits(want.data));
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < n; j++) {
            let s = 0;
            for (let k = 0; k < n; k++) {
              s += want.data[i * n + k]! * a.data[k * n + j]!;
            }
            expect(s).toBeCloseTo(i === j ? 1 : 0, 12);
          }
        }
        expect(choleskyLowerInto(want.data, n, l)).toBe(true);
        const lower = choleskyLower(want)!;
        for (let i = 0; i < n; i++) {
          for (let j = 0; j <= i; j++) {
            expect(bits([l[i * n + j]!])).toEqual(bits([lower.data[i * n + j]!]));
            let s = 0;
            for (let k = 0; k <= j; k++) {
              s += lower.data[i * n + k]! * lower.data[j * n + k]!;
            }
            expect(s).toBeCloseTo(want.data[i * n + j]!, 12);
          }
        }
      }
    }
  });

  it("report singular and indefinite matrices", () => {
    const singular = zeros(2, 2);
    singular.data.set([1, 2, 2, 4]);
    expect(inverseInto(singular.data, 2, new Float64Array(4), new Float64Array(4))).toBe(false);
    expect(inverse(singular)).toBeUndefined();
    const indefinite = zeros(2, 2);
    indefinite.data.set([1, 2, 2, 1]);
    expect(choleskyLowerInto(indefinite.data, 2, new Float64Array(4))).toBe(false);
    expect(choleskyLower(indefinite)).toBeUndefined();
  });
});
