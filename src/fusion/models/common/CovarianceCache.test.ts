import { describe, expect, it } from "vitest";

import { CovarianceCache } from "./CovarianceCache";
import { validateCovariance } from "./measurement";
import { fromRows, whiten } from "../../core";

const GOOD = [
  [0.04, 0.01, 0],
  [0.01, 0.09, 0.002],
  [0, 0.002, 0.25],
];

describe("CovarianceCache", () => {
  it("gives validateCovariance's verdict for every kind of covariance, again when asked again", () => {
    const cache = new CovarianceCache(2);
    const cases = [
      fromRows(GOOD),
      fromRows([[1, NaN], [NaN, 1]]),
      fromRows([[1, 0.5], [0.1, 1]]),
      fromRows([[1, 2], [2, 1]]),
      fromRows([[1, 1e-9], [0, 1]]),
    ];
    for (let round = 0; round < 2; round++) {
      for (const c of cases) {
        for (const precision of [1e-12, 1e-6]) {
          expect(cache.problem(c, precision)).toBe(validateCovariance(c, precision));
        }
      }
    }
    expect(cache.problem(fromRows([[1, 2], [2, 1]]))).toBe("not-positive-definite");
    expect(cache.problem(fromRows([[1, 1e-9], [0, 1]]), 1e-12)).toBe("non-symmetric");
    expect(cache.problem(fromRows([[1, 1e-9], [0, 1]]), 1e-6)).toBeUndefined();
  });

  it("whitens as core's whiten does, sharing the matrices of an equal covariance", () => {
    const cache = new CovarianceCache();
    const a = cache.whiten(fromRows(GOOD), [0, 2, 4], 6, "t");
    const expected = whiten(fromRows(GOOD), [0, 2, 4], 6, "t");
    expect(Array.from(a.sqrtInformation.data)).toEqual(Array.from(expected.sqrtInformation.data));
    expect(Array.from(a.covariance.data)).toEqual(Array.from(expected.covariance.data));
    expect([a.sqrtInformation.rows, a.sqrtInformation.cols]).toEqual([3, 6]);
    const same = fromRows(GOOD);
    expect(cache.whiten(same, [0, 2, 4], 6, "t")).toBe(a);
    expect(cache.whiten(same, [0, 1, 2], 3, "t")).not.toBe(a);
    same.data[0] = 0.05; // the cache compared entries, it kept a copy of its own
    expect(cache.whiten(same, [0, 2, 4], 6, "t")).not.toBe(a);
    expect(cache.whiten(fromRows(GOOD), [0, 2, 4], 6, "t")).toBe(a);
  });

  it("throws whiten's error for a covariance that is not positive definite, every time", () => {
    const cache = new CovarianceCache();
    for (let i = 0; i < 2; i++) {
      expect(() => cache.whiten(fromRows([[1, 2], [2, 1]]), [0, 1], 2, "the constraint")).toThrow(
        /the constraint: covariance is not positive definite/,
      );
    }
  });

  it("tells +0 from −0 and forgets the oldest covariance beyond its size", () => {
    const cache = new CovarianceCache(1);
    const plus = cache.whiten(fromRows([[1, 0], [0, 1]]), [0, 1], 2, "t");
    const minus = cache.whiten(fromRows([[1, -0], [-0, 1]]), [0, 1], 2, "t");
    expect(minus).not.toBe(plus);
    expect(Object.is(minus.covariance.data[1], -0)).toBe(true);
    expect(cache.whiten(fromRows([[1, 0], [0, 1]]), [0, 1], 2, "t")).not.toBe(plus);
  });
});
