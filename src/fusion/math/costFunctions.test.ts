import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { AbsoluteCost } from "./AbsoluteCost";
import { AbsolutePose2DCost } from "./AbsolutePose2DCost";
import type { CostFunction } from "./CostFunction";
import { MarginalCost } from "./MarginalCost";
import { RelativeCost } from "./RelativeCost";
import { RelativePose2DCost } from "./RelativePose2DCost";
import { Unicycle2DStateCost } from "./Unicycle2DStateCost";
import { wrapAngle } from "./angles";
import { centralDifferenceJacobians, evaluateWithJacobians } from "./finiteDifference";
import { predictUnicycle2D } from "./unicycle2d";
import { diagonal } from "../core/Matrix";

const f = (...v: number[]): Float64Array => Float64Array.from(v);
/** A Unicycle2D state's 8 values as its 5 parameter blocks (position, yaw, velocity, yaw rate, acceleration). */
const split = (s: number[]): Float64Array[] => [
  f(s[0]!, s[1]!),
  f(s[2]!),
  f(s[3]!, s[4]!),
  f(s[5]!),
  f(s[6]!, s[7]!),
];

/** The 8 × 8 identity, row-major (a fresh array each call). */
const identity8 = (): Float64Array => diagonal(new Array<number>(8).fill(1)).data;

/** Asserts every analytic Jacobian block equals the central finite difference within tol. */
function expectJacobiansMatch(cost: CostFunction, params: Float64Array[], tol = 1e-6): void {
  const { jacobians, ok } = evaluateWithJacobians(cost, params);
  expect(ok).toBe(true);
  const numeric = centralDifferenceJacobians(cost, params);
  jacobians.forEach((j, b) => {
    const n = numeric[b]!;
    for (let i = 0; i < j.length; i++) {
      const scale = Math.max(1, Math.abs(n[i]!));
      expect(Math.abs(j[i]! - n[i]!) / scale, `block ${b} entry ${i}`).toBeLessThan(tol);
    }
  });
}

/** A random upper-triangular k × n sqrt-information with a healthy diagonal. */
const sqrtInfo = (k: number, n: number): fc.Arbitrary<Float64Array> =>
  fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: k * n, maxLength: k * n }).map(
    (v) => {
      const a = Float64Array.from(v);
      for (let r = 0; r < Math.min(k, n); r++) {
        a[r * n + r] = 1 + Math.abs(a[r * n + r]!);
      }
      return a;
    },
  );
const coord = fc.double({ min: -50, max: 50, noNaN: true });
/** Angles including the neighbourhood of ±π, where wrapping matters. */
const angle = fc.oneof(
  fc.double({ min: -Math.PI, max: Math.PI - 1e-9, noNaN: true }),
  fc.double({ min: Math.PI - 1e-3, max: Math.PI - 1e-5, noNaN: true }),
  fc.double({ min: -Math.PI + 1e-5, max: -Math.PI + 1e-3, noNaN: true }),
);
/** A small error, so that `wrap(base + offset)` puts the wrapped residual away from its ±π jump. */
const offset = fc.double({ min: -2.5, max: 2.5, noNaN: true });
const RUNS = { seed: 42, numRuns: 200 };

describe("AbsoluteCost", () => {
  it("computes A·(x − mean) on a worked example", () => {
    const cost = new AbsoluteCost([1, 2], [2, 0, 1, 3]);
    const { residuals, jacobians } = evaluateWithJacobians(cost, [f(2, 4)]);
    expect(Array.from(residuals)).toEqual([2, 7]);
    expect(Array.from(jacobians[0]!)).toEqual([2, 0, 1, 3]);
  });

  it("handles a partial (1 × 2) measurement", () => {
    const cost = new AbsoluteCost([5, 0], [0, 10]);
    expect(cost.numResiduals).toBe(1);
    expect(Array.from(evaluateWithJacobians(cost, [f(100, 1.5)]).residuals)).toEqual([15]);
  });

  it("wraps angular components across ±π", () => {
    const cost = new AbsoluteCost([Math.PI - 0.1], [2], [true]);
    const r = evaluateWithJacobians(cost, [f(-Math.PI + 0.1)]).residuals[0]!;
    expect(r).toBeCloseTo(0.4, 12);
  });

  it("rejects a mis-shaped A", () => {
    expect(() => new AbsoluteCost([1, 2], [1, 2, 3])).toThrow(/3 entries/);
  });

  it("has the finite-difference Jacobian", () => {
    fc.assert(
      fc.property(sqrtInfo(1, 1), angle, offset, (a, m, d) => {
        expectJacobiansMatch(new AbsoluteCost([m], a, [true]), [f(wrapAngle(m + d))]);
      }),
      RUNS,
    );
  });
});

describe("AbsolutePose2DCost", () => {
  it("computes A·[x−zx, y−zy, wrap(yaw−zyaw)] on a worked example", () => {
    const cost = new AbsolutePose2DCost([1, 2, Math.PI - 0.1], [2, 0, 0, 0, 3, 0, 0, 0, 4]);
    const { residuals, jacobians } = evaluateWithJacobians(cost, [f(1.5, 1), f(-Math.PI + 0.1)]);
    expect(residuals[0]).toBeCloseTo(1, 12);
    expect(residuals[1]).toBeCloseTo(-3, 12);
    expect(residuals[2]).toBeCloseTo(0.8, 12);
    expect(Array.from(jacobians[0]!)).toEqual([2, 0, 0, 3, 0, 0]);
    expect(Array.from(jacobians[1]!)).toEqual([0, 0, 4]);
  });

  it("supports an orientation-only partial pose (zero position columns)", () => {
    const cost = new AbsolutePose2DCost([0, 0, 0.5], [0, 0, 5]);
    const { residuals, jacobians } = evaluateWithJacobians(cost, [f(9, 9), f(0.7)]);
    expect(residuals[0]).toBeCloseTo(1, 12);
    expect(Array.from(jacobians[0]!)).toEqual([0, 0]);
  });

  it("has finite-difference Jacobians (including near ±π)", () => {
    fc.assert(
      fc.property(sqrtInfo(3, 3), coord, coord, angle, coord, coord, offset, (a, zx, zy, zt, x, y, d) => {
        const t = wrapAngle(zt + d);
        expectJacobiansMatch(new AbsolutePose2DCost([zx, zy, zt], a), [f(x, y), f(t)]);
      }),
      RUNS,
    );
  });
});

describe("RelativePose2DCost", () => {
  it("is zero when the measured delta matches (rotated frame)", () => {
    const cost = new RelativePose2DCost([2, 0, 0.3], [1, 0, 0, 0, 1, 0, 0, 0, 1]);
    const r = evaluateWithJacobians(cost, [f(1, 1), f(Math.PI / 2), f(1, 3), f(Math.PI / 2 + 0.3)])
      .residuals;
    for (const v of r) {
      expect(Math.abs(v)).toBeLessThan(1e-12);
    }
  });

  it("computes the frame-1 error on a worked example", () => {
    const cost = new RelativePose2DCost([1, 1, -0.2], [1, 0, 0, 0, 1, 0, 0, 0, 2]);
    const r = evaluateWithJacobians(cost, [f(1, 1), f(Math.PI / 2), f(1, 3), f(Math.PI / 2 + 0.3)])
      .residuals;
    expect(r[0]).toBeCloseTo(1, 12);
    expect(r[1]).toBeCloseTo(-1, 12);
    expect(r[2]).toBeCloseTo(1, 12);
  });

  it("wraps the yaw error across ±π", () => {
    const cost = new RelativePose2DCost([0, 0, 0.1], [1, 0, 0, 0, 1, 0, 0, 0, 1]);
    const r = evaluateWithJacobians(cost, [f(0, 0), f(Math.PI - 0.05), f(0, 0), f(-Math.PI + 0.05)])
      .residuals;
    expect(Math.abs(r[2]!)).toBeLessThan(1e-12);
  });

  it("has finite-difference Jacobians (full and partial A, including near ±π)", () => {
    fc.assert(
      fc.property(
        fc.oneof(sqrtInfo(3, 3), sqrtInfo(2, 3), sqrtInfo(1, 3)),
        fc.tuple(coord, coord, angle),
        fc.tuple(coord, coord, angle, coord, coord, offset),
        (a, [dx, dy, dt], [x1, y1, t1, x2, y2, e]) => {
          const t2 = wrapAngle(t1 + dt + e);
          const cost = new RelativePose2DCost([dx, dy, dt], a);
          expectJacobiansMatch(cost, [f(x1, y1), f(t1), f(x2, y2), f(t2)]);
        },
      ),
      RUNS,
    );
  });
});

describe("RelativeCost", () => {
  it("computes A·((x2 − x1) − delta), wrapping angular components", () => {
    const cost = new RelativeCost([0.2], [3], [true]);
    const r = evaluateWithJacobians(cost, [f(Math.PI - 0.1), f(-Math.PI + 0.1)]);
    expect(r.residuals[0]).toBeCloseTo(0, 12);
    expect(Array.from(r.jacobians[0]!)).toEqual([-3]);
    expect(Array.from(r.jacobians[1]!)).toEqual([3]);
  });

  it("has finite-difference Jacobians", () => {
    fc.assert(
      fc.property(sqrtInfo(2, 2), coord, coord, coord, coord, coord, coord, (a, d0, d1, a0, a1, b0, b1) => {
        expectJacobiansMatch(new RelativeCost([d0, d1], a), [f(a0, a1), f(b0, b1)]);
      }),
      RUNS,
    );
  });
});

describe("Unicycle2DStateCost", () => {

  it("is zero for a state that follows the model exactly", () => {
    // yaw 0.5, body velocity (1, 0.2), yaw rate 0.3, accel (0.4, -0.1), dt 0.5 — computed by hand:
    const c = Math.cos(0.5);
    const s = Math.sin(0.5);
    const dx = 1 * 0.5 + 0.5 * 0.4 * 0.25;
    const dy = 0.2 * 0.5 + 0.5 * -0.1 * 0.25;
    const s1 = [3, 4, 0.5, 1, 0.2, 0.3, 0.4, -0.1];
    const s2 = [3 + c * dx - s * dy, 4 + s * dx + c * dy, 0.65, 1.2, 0.15, 0.3, 0.4, -0.1];
    const cost = new Unicycle2DStateCost(0.5, identity8());
    const r = evaluateWithJacobians(cost, [...split(s1), ...split(s2)]).residuals;
    for (const v of r) {
      expect(Math.abs(v)).toBeLessThan(1e-12);
    }
  });

  it("weights the error s2 − f(s1) by A and wraps yaw", () => {
    const a = identity8();
    a[0] = 2; // x weighted by 2
    const s1 = [0, 0, Math.PI - 0.1, 0, 0, 0.4, 0, 0];
    // predicted yaw: wrap(π − 0.1 + 0.4·0.5) = −π + 0.1; state 2 yaw −π + 0.15 → error 0.05
    const s2 = [0.5, 0, -Math.PI + 0.15, 0, 0, 0.4, 0, 0];
    const r = evaluateWithJacobians(new Unicycle2DStateCost(0.5, a), [...split(s1), ...split(s2)])
      .residuals;
    expect(r[0]).toBeCloseTo(1, 12);
    expect(r[2]).toBeCloseTo(0.05, 12);
  });

  it("has finite-difference Jacobians for all 10 blocks (including yaw near ±π)", () => {
    const state = fc.tuple(coord, coord, angle, coord, coord, fc.double({ min: -3, max: 3, noNaN: true }), coord, coord);
    fc.assert(
      fc.property(sqrtInfo(8, 8), fc.double({ min: 0.001, max: 2, noNaN: true }), state, state, (a, dt, s1, s2) => {
        const cost = new Unicycle2DStateCost(dt, a);
        // Keep yaw2 near the prediction so the wrapped residual is away from its ±π discontinuity.
        const yaw2 = wrapAngle(s1[2] + s1[5] * dt + (s2[2] % 2.5));
        const p = [...split(s1), ...split([...s2.slice(0, 2), yaw2, ...s2.slice(3)])];
        expectJacobiansMatch(cost, p, 1e-5);
      }),
      RUNS,
    );
  });

  it("has finite-difference Jacobians on its diagonal-A fast path (what Unicycle2D builds)", () => {
    const state = fc.tuple(coord, coord, angle, coord, coord, fc.double({ min: -3, max: 3, noNaN: true }), coord, coord);
    const diag = fc.array(fc.double({ min: 0.1, max: 30, noNaN: true }), { minLength: 8, maxLength: 8 });
    fc.assert(
      fc.property(diag, fc.double({ min: 0.001, max: 2, noNaN: true }), state, state, (d, dt, s1, s2) => {
        const a = diagonal(d).data;
        const cost = new Unicycle2DStateCost(dt, a);
        const yaw2 = wrapAngle(s1[2] + s1[5] * dt + (s2[2] % 2.5));
        const p = [...split(s1), ...split([...s2.slice(0, 2), yaw2, ...s2.slice(3)])];
        expectJacobiansMatch(cost, p, 1e-5);
        // Same residuals as the general path (an A with a 1e-300 off-diagonal entry).
        const general = Float64Array.from(a);
        general[1] = 1e-300;
        const r1 = evaluateWithJacobians(cost, p).residuals;
        const r2 = evaluateWithJacobians(new Unicycle2DStateCost(dt, general), p).residuals;
        r1.forEach((v, i) => {
          expect(v).toBeCloseTo(r2[i]!, 9);
        });
      }),
      RUNS,
    );
  });
});

describe("Unicycle2DStateCost's Jacobian pattern", () => {
  const anyValue = fc.oneof(
    { weight: 8, arbitrary: fc.double({ min: -50, max: 50 }) },
    { weight: 1, arbitrary: fc.constantFrom(0, -0, Math.PI / 2, Infinity, -Infinity, NaN) },
  );
  const state = fc.array(anyValue, { minLength: 8, maxLength: 8 });

  it("writes ±0 outside its pattern with a diagonal A, whatever the states (non-finite included)", () => {
    const diag = fc.array(fc.oneof(fc.double({ min: 0, max: 30, noNaN: true }), fc.constant(-0)), {
      minLength: 8,
      maxLength: 8,
    });
    fc.assert(
      fc.property(
        diag,
        fc.double({ min: -2, max: 2, noNaN: true }),
        state,
        state,
        (d, dt, s1, s2) => {
          const a = new Float64Array(64).fill(-0);
          d.forEach((v, i) => (a[i * 9] = v));
          const cost = new Unicycle2DStateCost(dt, a);
          const pattern = cost.jacobianPattern!;
          expect(pattern.numResiduals).toBe(8);
          expect(pattern.rowMasks.map((b) => b.length)).toEqual([...cost.parameterBlockSizes]);
          // NaN marks what evaluate left unwritten: every entry must be written.
          const jacobians = cost.parameterBlockSizes.map((size) =>
            new Float64Array(8 * size).fill(NaN),
          );
          cost.evaluate([...split(s1), ...split(s2)], new Float64Array(8), jacobians);
          jacobians.forEach((j, b) => {
            const size = cost.parameterBlockSizes[b]!;
            for (let q = 0; q < 8; q++) {
              for (let i = 0; i < size; i++) {
                if (((pattern.rowMasks[b]![i]! >>> q) & 1) === 0 && j[q * size + i] !== 0) {
                  expect.fail(
                    `block ${b} row ${q} column ${i} is ${j[q * size + i]!} outside the pattern`,
                  );
                }
              }
            }
          });
        },
      ),
      RUNS,
    );
  });

  it("with a plain diagonal A (+0 elsewhere) writes −A·F and A exactly, zeros' signs included", () => {
    const diag = fc.array(fc.double({ min: 0.01, max: 30, noNaN: true }), { minLength: 8, maxLength: 8 });
    fc.assert(
      fc.property(diag, fc.double({ min: 0.001, max: 2, noNaN: true }), state, state, (d, dt, s1, s2) => {
        const a = diagonal(d).data;
        const cost = new Unicycle2DStateCost(dt, a);
        const jacobians = cost.parameterBlockSizes.map((size) => new Float64Array(8 * size).fill(NaN));
        cost.evaluate([...split(s1), ...split(s2)], new Float64Array(8), jacobians);
        // The product written out: ∂r/∂s1 = −A − (A·(F − I)), ∂r/∂s2 = A, F by predictUnicycle2D.
        const fm = new Float64Array(64);
        predictUnicycle2D(Float64Array.from(s1), dt, new Float64Array(8), fm);
        const offsets = [0, 2, 3, 5, 6];
        // F's entries off the identity that the model can make non-zero (row · 8 + column).
        const F_OFF_IDENTITY = new Set([2, 10, 3, 11, 4, 12, 6, 14, 7, 15, 21, 30, 39]);
        jacobians.forEach((j, b) => {
          const size = cost.parameterBlockSizes[b]!;
          const off = offsets[b % 5]!;
          for (let r = 0; r < 8; r++) {
            for (let c = 0; c < size; c++) {
              const col = off + c;
              let expected = b < 5 ? -a[r * 8 + col]! : a[r * 8 + col]!;
              if (b < 5 && F_OFF_IDENTITY.has(r * 8 + col)) {
                expected = expected - d[r]! * fm[r * 8 + col]!;
              }
              if (!Object.is(j[r * size + c], expected)) {
                expect.fail(`block ${b} (${r}, ${c}) = ${j[r * size + c]!}, expected ${expected}`);
              }
            }
          }
        });
      }),
      RUNS,
    );
  });

  it("evaluatePattern writes evaluate's values inside the pattern and nothing else", () => {
    const diag = fc.array(fc.oneof(fc.double({ min: 0, max: 30, noNaN: true }), fc.constant(-0)), {
      minLength: 8,
      maxLength: 8,
    });
    fc.assert(
      fc.property(diag, fc.boolean(), fc.double({ min: -2, max: 2, noNaN: true }), state, state, (d, minusZeros, dt, s1, s2) => {
        // Off-diagonal +0 (the plain diagonal) or −0 (a full copy of A is kept).
        const a = new Float64Array(64).fill(minusZeros ? -0 : 0);
        d.forEach((v, i) => (a[i * 9] = v));
        const cost = new Unicycle2DStateCost(dt, a);
        const pattern = cost.jacobianPattern!;
        const parameters = [...split(s1), ...split(s2)];
        const full = cost.parameterBlockSizes.map((size) => new Float64Array(8 * size));
        const rFull = new Float64Array(8);
        expect(cost.evaluate(parameters, rFull, full)).toBe(true);
        const marked = cost.parameterBlockSizes.map((size) => new Float64Array(8 * size).fill(12345));
        const rPattern = new Float64Array(8);
        expect(cost.evaluatePattern(parameters, rPattern, marked)).toBe(true);
        rPattern.forEach((v, i) => {
          expect(Object.is(v, rFull[i])).toBe(true);
        });
        marked.forEach((j, b) => {
          const size = cost.parameterBlockSizes[b]!;
          for (let q = 0; q < 8; q++) {
            for (let i = 0; i < size; i++) {
              const inside = ((pattern.rowMasks[b]![i]! >>> q) & 1) === 1;
              const want = inside ? full[b]![q * size + i]! : 12345;
              if (!Object.is(j[q * size + i], want)) {
                expect.fail(`block ${b} (${q}, ${i}) = ${j[q * size + i]!}, expected ${want}`);
              }
            }
          }
        });
      }),
      RUNS,
    );
  });

  it("states none for a dense A", () => {
    const a = identity8();
    a[3] = 1e-300;
    expect(new Unicycle2DStateCost(0.1, a).jacobianPattern).toBeUndefined();
  });
});

describe("AbsolutePose2DCost's Jacobian pattern", () => {
  it("writes ±0 outside A's pattern (position block: A's first two columns, orientation: the third)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.oneof(fc.constant(0), fc.constant(-0), fc.double()), { minLength: 9, maxLength: 9 }),
        fc.array(fc.double(), { minLength: 6, maxLength: 6 }),
        (k, entries, values) => {
          const a = entries.slice(0, 3 * k);
          const cost = new AbsolutePose2DCost(values.slice(0, 3), a);
          const pattern = cost.jacobianPattern!;
          expect(pattern.numResiduals).toBe(k);
          expect(pattern.rowMasks.map((b) => b.length)).toEqual([2, 1]);
          const jacobians = [new Float64Array(2 * k).fill(NaN), new Float64Array(k).fill(NaN)];
          cost.evaluate([Float64Array.of(values[3]!, values[4]!), Float64Array.of(values[5]!)], new Float64Array(k), jacobians);
          for (let q = 0; q < k; q++) {
            for (let c = 0; c < 3; c++) {
              const [b, i, size] = c < 2 ? [0, c, 2] : [1, 0, 1];
              const inside = ((pattern.rowMasks[b]![i]! >>> q) & 1) === 1;
              expect(inside).toBe(a[q * 3 + c] !== 0);
              expect(inside || jacobians[b]![q * size + i] === 0).toBe(true);
            }
          }
          expect(new AbsolutePose2DCost(values.slice(0, 3), a).jacobianPattern).toBe(pattern);
        },
      ),
      { seed: 12, numRuns: 300 },
    );
    expect(new AbsolutePose2DCost([0, 0, 0], new Array<number>(12).fill(1)).jacobianPattern).toBeUndefined();
  });
});

describe("AbsoluteCost and RelativeCost Jacobian patterns", () => {
  it("write ±0 outside A's pattern, whatever the values, and share the pattern of an equal A", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.oneof(fc.constant(0), fc.constant(-0), fc.double({ noNaN: false })), { minLength: 9, maxLength: 9 }),
        fc.array(fc.double(), { minLength: 6, maxLength: 6 }),
        (n, entries, values) => {
          const a = entries.slice(0, n * n);
          for (const cost of [new AbsoluteCost(values.slice(0, n), a), new RelativeCost(values.slice(0, n), a)]) {
            const pattern = cost.jacobianPattern!;
            expect(pattern.numResiduals).toBe(n);
            expect(pattern.rowMasks.map((b) => b.length)).toEqual([...cost.parameterBlockSizes]);
            const blocks = cost.parameterBlockSizes.length;
            const params = Array.from({ length: blocks }, (_, b) => Float64Array.from(values.slice(b * n, b * n + n)));
            const jacobians = Array.from({ length: blocks }, () => new Float64Array(n * n).fill(NaN));
            cost.evaluate(params, new Float64Array(n), jacobians);
            jacobians.forEach((j, b) => {
              for (let q = 0; q < n; q++) {
                for (let i = 0; i < n; i++) {
                  const inside = ((pattern.rowMasks[b]![i]! >>> q) & 1) === 1;
                  expect(inside || j[q * n + i] === 0).toBe(true);
                  expect(inside).toBe(a[q * n + i] !== 0);
                }
              }
            });
          }
          expect(new AbsoluteCost(values.slice(0, n), a).jacobianPattern).toBe(new AbsoluteCost(values.slice(0, n), a).jacobianPattern);
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });
});

describe("MarginalCost", () => {
  it("computes b + Σ A_i (x_i ⊟ x̄_i) on a worked example", () => {
    const cost = new MarginalCost(
      [1, -1],
      [
        { a: [1, 0, 0, 1], linearizationPoint: [10, 20] },
        { a: [2, 3], linearizationPoint: [Math.PI - 0.1], angular: [true] },
      ],
    );
    const { residuals, jacobians } = evaluateWithJacobians(cost, [f(11, 18), f(-Math.PI + 0.1)]);
    expect(residuals[0]).toBeCloseTo(1 + 1 + 2 * 0.2, 12);
    expect(residuals[1]).toBeCloseTo(-1 - 2 + 3 * 0.2, 12);
    expect(Array.from(jacobians[1]!)).toEqual([2, 3]);
  });

  it("rejects blocks whose shape disagrees with b", () => {
    expect(() => new MarginalCost([1, 2], [{ a: [1, 2, 3], linearizationPoint: [0, 0] }])).toThrow(
      /block 0/,
    );
  });

  it("has finite-difference Jacobians", () => {
    fc.assert(
      fc.property(sqrtInfo(3, 2), sqrtInfo(3, 1), coord, angle, coord, coord, offset, (a1, a2, x0, t0, y0, y1, d) => {
        const t1 = wrapAngle(t0 + d);
        const cost = new MarginalCost([0.5, 1, -2], [
          { a: a1, linearizationPoint: [x0, 1] },
          { a: a2, linearizationPoint: [t0], angular: [true] },
        ]);
        expectJacobiansMatch(cost, [f(y0, y1), f(t1)]);
      }),
      RUNS,
    );
  });
});
