import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { AbsoluteOrientation3DEulerCost } from "./AbsoluteOrientation3DEulerCost";
import { AbsolutePose3DCost } from "./AbsolutePose3DCost";
import type { CostFunction } from "./CostFunction";
import { Omnidirectional3DStateCost } from "./Omnidirectional3DStateCost";
import { RelativePose3DCost } from "./RelativePose3DCost";
import { centralDifferenceJacobians, evaluateWithJacobians } from "./finiteDifference";
import { QUATERNION_MANIFOLD, type Manifold } from "./manifold";
import { quaternionOfRpy } from "./rotation3d";
import { omnidirectional3DPredictState } from "./testing3d";

const Q = QUATERNION_MANIFOLD;

function expectJacobiansMatch(cost: CostFunction, params: Float64Array[], manifolds: (Manifold | undefined)[], tol = 1e-5): void {
  const local = cost.parameterBlockSizes.map((s, b) => manifolds[b]?.tangentSize ?? s);
  const { jacobians, ok } = evaluateWithJacobians(cost, params, local);
  expect(ok).toBe(true);
  const numeric = centralDifferenceJacobians(cost, params, 1e-6, manifolds);
  jacobians.forEach((j, b) => {
    const n = numeric[b]!;
    for (let i = 0; i < j.length; i++) {
      const scale = Math.max(1, Math.abs(n[i]!));
      expect(Math.abs(j[i]! - n[i]!) / scale, `block ${b} entry ${i}: ${j[i]!} vs ${n[i]!}`).toBeLessThan(tol);
    }
  });
}

const quat = (r: number, p: number, y: number): Float64Array => {
  const q = new Float64Array(4);
  quaternionOfRpy(r, p, y, q, 0);
  return q;
};
const coord = fc.double({ min: -20, max: 20, noNaN: true });
const small = fc.double({ min: -2, max: 2, noNaN: true });
const roll = fc.double({ min: -3.1, max: 3.1, noNaN: true });
/** Pitch including the neighbourhood of ±π/2 (the Euler singularity), short of it. */
const pitch = fc.oneof(fc.double({ min: -1.4, max: 1.4, noNaN: true }), fc.double({ min: 1.45, max: 1.5, noNaN: true }), fc.double({ min: -1.5, max: -1.45, noNaN: true }));
const vec3 = fc.tuple(coord, coord, coord).map((v) => Float64Array.from(v));
const rot = fc.tuple(roll, pitch, roll).map(([r, p, y]) => quat(r, p, y));
/** Away from the Euler singularity: the kinematic residual compares roll/pitch/yaw. */
const rotModerate = fc.tuple(roll, fc.double({ min: -1.3, max: 1.3, noNaN: true }), roll).map(([r, p, y]) => quat(r, p, y));
/** A quaternion near a rotation of π (where the log map's branch matters) or near identity. */
const rotNearSingular = fc.oneof(
  fc.tuple(small, small, small).map(([a, b, c]) => quat(a * 1e-4, b * 1e-4, c * 1e-4)),
  fc.tuple(small, small).map(([a, b]) => quat(Math.PI - 1e-3 + a * 1e-4, b * 1e-3, 0)),
);
const sqrtInfo = (k: number, n: number) =>
  fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: k * n, maxLength: k * n }).map((v) => {
    const a = Float64Array.from(v);
    for (let r = 0; r < k; r++) {a[r * n + r] = 1 + Math.abs(a[r * n + r]!);}
    return a;
  });
const RUNS = { seed: 7, numRuns: 100 };

describe("3D cost functions: residuals and analytic Jacobians (tangent space) vs finite differences", () => {
  it("AbsolutePose3D: zero at the mean; Jacobians match, near identity and near π too", () => {
    const mean = Float64Array.of(1, 2, 3, ...quat(0.1, -0.2, 0.3));
    const zero = evaluateWithJacobians(new AbsolutePose3DCost(mean, sqrtInfoIdentity(6)), [mean.slice(0, 3), mean.slice(3)], [3, 3]);
    expect(Math.max(...zero.residuals.map(Math.abs))).toBeLessThan(1e-12);
    fc.assert(
      fc.property(vec3, rot, fc.oneof(rot, rotNearSingular), sqrtInfo(6, 6), (p, qm, q, a) => {
        const cost = new AbsolutePose3DCost([0.5, -1, 2, ...qm], a);
        expectJacobiansMatch(cost, [p, q], [undefined, Q]);
      }),
      RUNS,
    );
  });

  it("AbsolutePose3D: a partial (position z, roll) measurement", () => {
    const a = new Float64Array(2 * 6);
    a[2] = 2;
    a[6 + 3] = 3;
    const cost = new AbsolutePose3DCost([0, 0, 1, 1, 0, 0, 0], a);
    const { residuals } = evaluateWithJacobians(cost, [Float64Array.of(5, 5, 1.5), quat(0.2, 0, 0)], [3, 3]);
    expect(residuals[0]).toBeCloseTo(1, 12);
    expect(residuals[1]).toBeCloseTo(0.6, 12);
    expectJacobiansMatch(cost, [Float64Array.of(5, 5, 1.5), quat(0.2, 0.1, 0)], [undefined, Q]);
  });

  it("RelativePose3D: zero at the true delta; Jacobians match", () => {
    fc.assert(
      fc.property(vec3, rot, vec3, fc.oneof(rot, rotNearSingular), rot, sqrtInfo(6, 6), (p1, q1, p2, q2, dq, a) => {
        const cost = new RelativePose3DCost([0.3, 0.1, -0.2, ...dq], a);
        expectJacobiansMatch(cost, [p1, q1, p2, q2], [undefined, Q, undefined, Q]);
      }),
      RUNS,
    );
  });

  it("AbsoluteOrientation3DEuler: the selected axes; Jacobians match near pitch ±π/2 too", () => {
    fc.assert(
      fc.property(rot, sqrtInfo(3, 3), (q, a) => {
        expectJacobiansMatch(new AbsoluteOrientation3DEulerCost([0.1, -0.2, 2.9], a), [q], [Q], 1e-4);
      }),
      RUNS,
    );
  });

  it("Omnidirectional3D kinematic: zero on the prediction; Jacobians match", () => {
    fc.assert(
      fc.property(
        fc.tuple(vec3, rotModerate, vec3, vec3, vec3),
        fc.double({ min: 0.01, max: 0.5, noNaN: true }),
        fc.tuple(vec3, rotModerate, vec3, vec3, vec3),
        ([p1, q1, v1, w1, a1], dt, [p2, q2, v2, w2, a2]) => {
          const scale = (v: Float64Array, k: number) => v.map((x) => x * k);
          const s1 = [p1, q1, scale(v1, 0.1), scale(w1, 0.05), scale(a1, 0.05)];
          const a = sqrtInfoIdentity(15);
          const cost = new Omnidirectional3DStateCost(dt, a);
          const predicted = omnidirectional3DPredictState(s1, dt);
          const zero = evaluateWithJacobians(cost, [...s1, ...predicted], Array(10).fill(3) as number[]);
          expect(Math.max(...zero.residuals.map(Math.abs))).toBeLessThan(1e-7);
          const m = [undefined, Q, undefined, undefined, undefined, undefined, Q, undefined, undefined, undefined];
          expectJacobiansMatch(cost, [...s1, p2, q2, scale(v2, 0.1), scale(w2, 0.05), scale(a2, 0.05)], m, 1e-4);
        },
      ),
      { seed: 7, numRuns: 60 },
    );
  });
});

describe("Omnidirectional3D kinematic: the Jacobian pattern it states", () => {
  const state = fc.tuple(vec3, rot, vec3, vec3, vec3);
  /** A diagonal square-root information (finite and non-zero on the diagonal, as a diagonal whitening takes it). */
  const diagonal = fc.array(fc.oneof(fc.double({ min: 1e-6, max: 30, noNaN: true }), fc.double({ min: -30, max: -1e-6, noNaN: true })), {
    minLength: 15,
    maxLength: 15,
  });

  it("with a diagonal A, every Jacobian entry outside the pattern is ±0, whatever the states (Euler singularity and ±π included)", () => {
    fc.assert(
      fc.property(diagonal, fc.double({ min: -2, max: 2, noNaN: true }), state, fc.tuple(vec3, fc.oneof(rot, rotNearSingular), vec3, vec3, vec3), (d, dt, s1, s2) => {
        const a = new Float64Array(15 * 15);
        d.forEach((v, i) => (a[i * 16] = v));
        const cost = new Omnidirectional3DStateCost(dt, a);
        const pattern = cost.jacobianPattern!;
        expect(pattern.numResiduals).toBe(15);
        const jacobians = Array.from({ length: 10 }, () => new Float64Array(45).fill(NaN));
        expect(cost.evaluate([...s1, ...s2], new Float64Array(15), jacobians)).toBe(true);
        jacobians.forEach((j, b) => {
          for (let q = 0; q < 15; q++) {
            for (let c = 0; c < 3; c++) {
              const inside = ((pattern.rowMasks[b]![c]! >>> q) & 1) === 1;
              if (!inside && j[q * 3 + c] !== 0) {
                expect.fail(`block ${b} (${q}, ${c}) = ${j[q * 3 + c]!} outside the pattern`);
              }
            }
          }
        });
      }),
      RUNS,
    );
  });

  it("names no entry that is zero for every state (each mask bit is reached by some state)", () => {
    const cost = new Omnidirectional3DStateCost(0.1, sqrtInfoIdentity(15));
    const reached = Array.from({ length: 10 }, () => [0, 0, 0]);
    fc.assert(
      fc.property(state, state, (s1, s2) => {
        const jacobians = Array.from({ length: 10 }, () => new Float64Array(45));
        cost.evaluate([...s1, ...s2], new Float64Array(15), jacobians);
        jacobians.forEach((j, b) => {
          for (let q = 0; q < 15; q++) {
            for (let c = 0; c < 3; c++) {
              if (j[q * 3 + c] !== 0) {
                reached[b]![c] = reached[b]![c]! | (1 << q);
              }
            }
          }
        });
      }),
      RUNS,
    );
    expect(reached).toEqual(cost.jacobianPattern!.rowMasks);
  });

  it("states none for a dense A, nor for a zero on the diagonal (both take the general whitening)", () => {
    const a = sqrtInfoIdentity(15);
    a[1] = 1e-300;
    expect(new Omnidirectional3DStateCost(0.1, a).jacobianPattern).toBeUndefined();
    const b = sqrtInfoIdentity(15);
    b[16] = 0;
    expect(new Omnidirectional3DStateCost(0.1, b).jacobianPattern).toBeUndefined();
  });
});

describe("AbsoluteOrientation3DEuler: the Jacobian pattern it states", () => {
  const diagonal = fc.array(fc.oneof(fc.double({ min: 1e-6, max: 30, noNaN: true }), fc.double({ min: -30, max: -1e-6, noNaN: true })), {
    minLength: 3,
    maxLength: 3,
  });
  const mean = fc.tuple(roll, pitch, roll);

  it("with a diagonal A, every Jacobian entry outside the pattern is ±0, whatever the orientation (Euler singularity, ±π and NaN included)", () => {
    const anyRot = fc.oneof(rot, rotNearSingular, fc.constant(Float64Array.of(NaN, 0, 0, 0)), fc.constant(quat(0.3, Math.PI / 2, -1)));
    fc.assert(
      fc.property(diagonal, mean, anyRot, (d, m, q) => {
        const a = new Float64Array(9);
        d.forEach((v, i) => (a[i * 4] = v));
        const cost = new AbsoluteOrientation3DEulerCost(m, a);
        const pattern = cost.jacobianPattern!;
        expect(pattern.numResiduals).toBe(3);
        const j = new Float64Array(9).fill(NaN);
        expect(cost.evaluate([q], new Float64Array(3), [j])).toBe(true);
        for (let row = 0; row < 3; row++) {
          for (let c = 0; c < 3; c++) {
            const inside = ((pattern.rowMasks[0]![c]! >>> row) & 1) === 1;
            if (!inside && j[row * 3 + c] !== 0) {
              expect.fail(`(${row}, ${c}) = ${j[row * 3 + c]!} outside the pattern`);
            }
          }
        }
      }),
      RUNS,
    );
  });

  it("names no entry that is zero for every orientation (each mask bit is reached by some orientation)", () => {
    const cost = new AbsoluteOrientation3DEulerCost([0.1, -0.2, 2.9], sqrtInfoIdentity(3));
    const reached = [0, 0, 0];
    fc.assert(
      fc.property(rot, (q) => {
        const j = new Float64Array(9);
        cost.evaluate([q], new Float64Array(3), [j]);
        for (let row = 0; row < 3; row++) {
          for (let c = 0; c < 3; c++) {
            if (j[row * 3 + c] !== 0) {
              reached[c] = reached[c]! | (1 << row);
            }
          }
        }
      }),
      RUNS,
    );
    expect([reached]).toEqual(cost.jacobianPattern!.rowMasks);
  });

  it("states none for a dense A, a partial (two-axis) A, or a zero on the diagonal", () => {
    const dense = sqrtInfoIdentity(3);
    dense[1] = 0.5;
    expect(new AbsoluteOrientation3DEulerCost([0, 0, 0], dense).jacobianPattern).toBeUndefined();
    expect(new AbsoluteOrientation3DEulerCost([0, 0, 0], Float64Array.of(1, 0, 0, 0, 0, 1)).jacobianPattern).toBeUndefined();
    const zero = sqrtInfoIdentity(3);
    zero[4] = 0;
    expect(new AbsoluteOrientation3DEulerCost([0, 0, 0], zero).jacobianPattern).toBeUndefined();
  });
});

describe("quaternion manifold", () => {
  it("keeps the norm at 1 over many steps, and minus inverts plus", () => {
    const q = quat(0.3, 0.2, -1);
    const out = new Float64Array(3);
    fc.assert(
      fc.property(fc.array(fc.tuple(small, small, small), { minLength: 1, maxLength: 2000 }), (steps) => {
        const x = Float64Array.from(q);
        for (const s of steps) {
          Q.plus(x, s, 0, x);
        }
        expect(Math.abs(Math.hypot(...x) - 1)).toBeLessThan(1e-12);
        const y = new Float64Array(4);
        const d = Float64Array.of(0.1, -0.2, 0.3);
        Q.plus(x, d, 0, y);
        Q.minus(y, x, out, 0);
        for (let i = 0; i < 3; i++) {expect(out[i]).toBeCloseTo(d[i]!, 10);}
      }),
      { seed: 3, numRuns: 50 },
    );
  });
});

function sqrtInfoIdentity(n: number): Float64Array {
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {a[i * n + i] = 1;}
  return a;
}
