import { describe, expect, it } from "vitest";

import { DiagonalNoiseCache } from "./DiagonalNoiseCache";
import { diagonalSqrtInformation } from "./diagonalSqrtInformation";
import { diagonal } from "../core";

describe("DiagonalNoiseCache", () => {
  it("returns diag(q) and its whitening, shared for an equal q", () => {
    const cache = new DiagonalNoiseCache(2);
    const q = Float64Array.of(0.1, 0.2, 0.3);
    const a = cache.get(q);
    expect(a.covariance).toEqual(diagonal(q));
    expect(a.sqrtInformation).toEqual(diagonalSqrtInformation(q));
    q[0] = 9; // the cache keeps its own copy of the key
    expect(cache.get([0.1, 0.2, 0.3])).toBe(a);
    expect(cache.get(q).covariance.data[0]).toBe(9);
  });

  it("tells entries apart to the bit, and forgets the oldest beyond its size", () => {
    const cache = new DiagonalNoiseCache(2);
    const zero = cache.get([0, 1]);
    const negativeZero = cache.get([-0, 1]);
    expect(negativeZero).not.toBe(zero);
    expect(Object.is(negativeZero.covariance.data[0], -0)).toBe(true);
    expect(negativeZero.sqrtInformation).toBeUndefined();
    expect(cache.get([0, 1])).toBe(zero);
    const third = cache.get([1, 2]); // evicts [0, 1], the oldest inserted
    expect(cache.get([1, 2])).toBe(third);
    expect(cache.get([0, 1])).not.toBe(zero);
    expect(cache.get([1, 2, 3]).covariance.rows).toBe(3);
  });
});
