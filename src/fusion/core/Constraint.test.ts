import { describe, expect, it } from "vitest";

import { Constraint, whiten } from "./Constraint";
import { zeros, type Matrix } from "./Matrix";
import { choleskyUpper, inverse, transpose } from "./linalg";
import { bits, spd, stream } from "./testing";

describe("whiten", () => {
  /** The definition: A = chol_upper(Σ_S⁻¹) scattered to `indices`, covariance scattered likewise. */
  function reference(cov: Matrix, indices: readonly number[], n: number): { a: Matrix; full: Matrix } {
    const u = choleskyUpper(inverse(cov)!)!;
    const k = indices.length;
    const a = zeros(k, n);
    const full = zeros(n, n);
    for (let r = 0; r < k; r++) {
      for (let c = 0; c < k; c++) {
        a.data[r * n + indices[c]!] = u.data[r * k + c]!;
        full.data[indices[r]! * n + indices[c]!] = cov.data[r * k + c]!;
      }
    }
    return { a, full };
  }

  it("matches the definition bit for bit for full and partial measurements of every size, in any order", () => {
    const rand = stream(11);
    const cases: { indices: number[]; n: number }[] = [
      { indices: [0, 1, 2, 3, 4, 5, 6, 7], n: 8 },
      { indices: [2], n: 3 },
      { indices: Array.from({ length: 15 }, (_, i) => i), n: 15 },
      { indices: [0, 2, 5], n: 6 },
      { indices: [1, 0], n: 2 },
      { indices: [5, 3, 4], n: 6 },
    ];
    for (const { indices, n } of cases) {
      for (const diag of [true, false]) {
        const cov = spd(indices.length, rand, { diagonal: diag });
        const got = whiten(cov, indices, n, "test");
        const want = reference(cov, indices, n);
        expect(bits(got.sqrtInformation.data)).toEqual(bits(want.a.data));
        expect([got.sqrtInformation.rows, got.sqrtInformation.cols]).toEqual([indices.length, n]);
        expect(bits(got.covariance.data)).toEqual(bits(want.full.data));
        expect(transpose(got.covariance).data).toEqual(got.covariance.data);
      }
    }
  });

  it("rejects a covariance that is not positive definite, and one of the wrong size", () => {
    const bad = zeros(2, 2);
    bad.data.set([1, 2, 2, 1]);
    expect(() => whiten(bad, [0, 1], 2, "thing")).toThrow(/thing: covariance is not positive definite/);
    expect(() => whiten(zeros(2, 2), [0, 1], 2, "zero")).toThrow(/not positive definite/);
    expect(() => whiten(zeros(3, 3), [0, 1], 2, "size")).toThrow(/3x3, expected 2x2/);
    const c = Constraint.fromCovariance({
      type: "t",
      source: "s",
      variables: [],
      mean: [1, 2, 3],
      partialCovariance: spd(2, stream(3)),
      indices: [2, 0],
    });
    expect(bits(c.sqrtInformation.data)).toEqual(bits(reference(spd(2, stream(3)), [2, 0], 3).a.data));
  });
});

describe("Constraint.covariance", () => {
  const base = {
    type: "t",
    source: "s",
    variables: ["00000000-0000-0000-0000-000000000001"],
    mean: [0, 0],
    sqrtInformation: { rows: 2, cols: 2, data: Float64Array.of(1, 0, 0, 2) },
  };

  it("is the matrix given, or the given function's result, computed once on the first read", () => {
    const given: Matrix = { rows: 2, cols: 2, data: Float64Array.of(1, 0, 0, 0.25) };
    expect(new Constraint({ ...base, covariance: given }).covariance).toBe(given);
    let calls = 0;
    const lazy = new Constraint({
      ...base,
      covariance: () => {
        calls++;
        return { rows: 2, cols: 2, data: Float64Array.of(1, 0, 0, 0.25) };
      },
    });
    expect(calls).toBe(0);
    const first = lazy.covariance;
    expect(lazy.covariance).toBe(first);
    expect(calls).toBe(1);
    expect(Array.from(first.data)).toEqual([1, 0, 0, 0.25]);
  });
});
