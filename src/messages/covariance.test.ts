import { describe, expect, it } from "vitest";

import { covarianceBlock, isCovarianceProblem, isCovarianceUnknown, readCovariance } from "./covariance";

describe("readCovariance", () => {
  it("reads a row-major 3x3 and picks blocks", () => {
    const rows = readCovariance(new Float64Array([1, 2, 3, 2, 5, 6, 3, 6, 9]), 3);
    expect(rows).toEqual([
      [1, 2, 3],
      [2, 5, 6],
      [3, 6, 9],
    ]);
    expect(covarianceBlock(rows as number[][], [0, 2])).toEqual([
      [1, 3],
      [3, 9],
    ]);
    expect(() => covarianceBlock(rows as number[][], [3])).toThrow(/outside the 3×3/);
  });

  it("explains every invalid covariance", () => {
    const cases: [unknown, RegExp][] = [
      [undefined, /missing/],
      [[1, 0, 0], /3 values, expected 4/],
      [[1, NaN, NaN, 1], /not a finite number/],
      [[-1, 0, 0, 1], /negative/],
      [[1, 0.5, 0.4, 1], /not symmetric/],
    ];
    for (const [values, re] of cases) {
      const r = readCovariance(values, 2);
      expect(isCovarianceProblem(r)).toBe(true);
      expect((r as { problem: string }).problem).toMatch(re);
    }
  });

  it("recognizes the -1 'not provided' marker", () => {
    expect(isCovarianceUnknown([-1, 0, 0])).toBe(true);
    expect(isCovarianceUnknown([0, 0, 0])).toBe(false);
    expect(isCovarianceUnknown(undefined)).toBe(false);
  });
});
