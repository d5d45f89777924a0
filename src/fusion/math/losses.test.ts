import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { Corrector } from "./Corrector";
import {
  ArctanLoss,
  CauchyLoss,
  HuberLoss,
  SoftLOneLoss,
  TolerantLoss,
  TrivialLoss,
  TukeyLoss,
  WelschLoss,
  createLoss,
  type LossFunction,
} from "./losses";

const rhoOf = (loss: LossFunction, s: number): number[] => {
  const rho = new Float64Array(3);
  loss.evaluate(s, rho);
  return Array.from(rho);
};

describe("robust losses: closed forms", () => {
  it("Trivial is s, 1, 0", () => {
    expect(rhoOf(new TrivialLoss(), 2.5)).toEqual([2.5, 1, 0]);
  });

  it("Huber: quadratic inside a², linear outside", () => {
    expect(rhoOf(new HuberLoss(1), 0.25)).toEqual([0.25, 1, 0]);
    // s = 4, a = 1: 2·1·2 − 1 = 3; ρ' = a/√s = 0.5; ρ'' = −ρ'/(2s) = −1/16
    expect(rhoOf(new HuberLoss(1), 4)).toEqual([3, 0.5, -1 / 16]);
    // a = 2 and s = 9: 2·2·3 − 4 = 8
    expect(rhoOf(new HuberLoss(2), 9)[0]).toBe(8);
  });

  it("Cauchy: a²·log(1 + s/a²)", () => {
    const [r0, r1, r2] = rhoOf(new CauchyLoss(2), 4);
    expect(r0).toBeCloseTo(4 * Math.log(2), 14);
    expect(r1).toBeCloseTo(0.5, 14);
    expect(r2).toBeCloseTo(-1 / 16, 14);
  });

  it("Tukey: a²/3·(1 − (1 − s/a²)³) inside, constant a²/3 outside", () => {
    const [r0, r1, r2] = rhoOf(new TukeyLoss(2), 2);
    expect(r0).toBeCloseTo((4 / 3) * (1 - 0.125), 14);
    expect(r1).toBeCloseTo(0.25, 14);
    expect(r2).toBeCloseTo(-0.25, 14);
    expect(rhoOf(new TukeyLoss(2), 5)).toEqual([4 / 3, 0, 0]);
  });

  it("Soft L1, Arctan, Welsch, Tolerant match their formulas", () => {
    expect(rhoOf(new SoftLOneLoss(1), 3)[0]).toBeCloseTo(2 * (Math.sqrt(4) - 1), 14);
    expect(rhoOf(new ArctanLoss(2), 3)[0]).toBeCloseTo(2 * Math.atan2(3, 2), 14);
    expect(rhoOf(new WelschLoss(2), 3)[0]).toBeCloseTo(4 * (1 - Math.exp(-3 / 4)), 14);
    const tol = rhoOf(new TolerantLoss(1, 0.5), 2)[0]!;
    expect(tol).toBeCloseTo(0.5 * Math.log(1 + Math.exp(2)) - 0.5 * Math.log(1 + Math.exp(-2)), 12);
  });

  it("ρ(0) = 0 and ρ'(0) = 1 for every loss (small residuals behave like least squares)", () => {
    const all = [
      new TrivialLoss(),
      new HuberLoss(0.7),
      new CauchyLoss(0.7),
      new TukeyLoss(0.7),
      new SoftLOneLoss(0.7),
      new ArctanLoss(0.7),
      new WelschLoss(0.7),
    ];
    for (const loss of all) {
      const [r0, r1] = rhoOf(loss, 0);
      expect(Math.abs(r0!), loss.type).toBeLessThan(1e-15);
      expect(r1, loss.type).toBeCloseTo(1, 12);
    }
  });

  it("ρ' and ρ'' are the derivatives of ρ and ρ' (finite differences)", () => {
    const losses = [
      new HuberLoss(1.3),
      new CauchyLoss(1.3),
      new TukeyLoss(1.3),
      new SoftLOneLoss(1.3),
      new ArctanLoss(1.3),
      new WelschLoss(1.3),
      new TolerantLoss(1.3, 0.8),
    ];
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 10, noNaN: true }), (s) => {
        for (const loss of losses) {
          // Stay away from Huber's and Tukey's kinks at s = a².
          if (Math.abs(s - 1.69) < 1e-3) {
            continue;
          }
          const h = 1e-6;
          const p = rhoOf(loss, s + h);
          const m = rhoOf(loss, s - h);
          const [, r1, r2] = rhoOf(loss, s);
          expect(Math.abs((p[0]! - m[0]!) / (2 * h) - r1!), loss.type).toBeLessThan(1e-6);
          expect(Math.abs((p[1]! - m[1]!) / (2 * h) - r2!), loss.type).toBeLessThan(1e-6);
        }
      }),
      { seed: 3, numRuns: 300 },
    );
  });

  it("createLoss accepts fuse names and short names and rejects unknown types", () => {
    expect(createLoss({ type: "fuse_loss::HuberLoss", parameters: { a: 2 } })).toBeInstanceOf(HuberLoss);
    expect(createLoss({ type: "cauchy" })).toBeInstanceOf(CauchyLoss);
    expect(createLoss({ type: "TukeyLoss" })).toBeInstanceOf(TukeyLoss);
    expect(createLoss(null)).toBeUndefined();
    expect(() => createLoss({ type: "fuse_loss::Bogus" })).toThrow(/unknown loss type "fuse_loss::Bogus"/);
    expect(() => createLoss({ type: "huber", parameters: { a: -1 } })).toThrow(/HuberLoss a/);
    expect(() => createLoss({ type: "huber", parameters: { k: 1 } })).toThrow(/no parameter "k"/);
  });
});

describe("Corrector", () => {
  // For the corrected block, J̃ᵀr̃ must equal the true gradient ρ'·Jᵀr of ½ρ(‖r‖²), and J̃ᵀJ̃ must
  // equal ρ'·JᵀJ + 2ρ''·(Jᵀr)(Jᵀr)ᵀ when ρ'' > 0 (Ceres' second-order correction), else ρ'·JᵀJ.
  const m = 3;
  const n = 2;
  const check = (loss: LossFunction, r: number[], j: number[]): void => {
    const s = r.reduce((acc, v) => acc + v * v, 0);
    const rho = new Float64Array(3);
    loss.evaluate(s, rho);
    const res = Float64Array.from(r);
    const jac = Float64Array.from(j);
    const corr = new Corrector().reset(s, rho);
    corr.correctJacobian(res, m, jac, n);
    corr.correctResiduals(res, m);
    const jtr = [0, 1].map((c) => r.reduce((acc, v, k) => acc + v * j[k * n + c]!, 0));
    for (let c = 0; c < n; c++) {
      const got = [0, 1, 2].reduce((acc, k) => acc + res[k]! * jac[k * n + c]!, 0);
      expect(got).toBeCloseTo(rho[1]! * jtr[c]!, 10);
    }
    const useSecond = rho[2]! > 0;
    for (let a = 0; a < n; a++) {
      for (let b = 0; b < n; b++) {
        const got = [0, 1, 2].reduce((acc, k) => acc + jac[k * n + a]! * jac[k * n + b]!, 0);
        const jtj = [0, 1, 2].reduce((acc, k) => acc + j[k * n + a]! * j[k * n + b]!, 0);
        const want = rho[1]! * jtj + (useSecond ? 2 * rho[2]! * jtr[a]! * jtr[b]! : 0);
        expect(got).toBeCloseTo(want, 9);
      }
    }
  };

  it("reproduces the robust gradient and Hessian model", () => {
    const j = [1, 0.5, -0.3, 2, 0.7, 0.1];
    check(new HuberLoss(1), [2, -1, 0.5], j); // outlier: ρ'' < 0, plain √ρ' scaling
    check(new HuberLoss(10), [2, -1, 0.5], j); // inlier: identity
    check(new CauchyLoss(1), [0.3, 0.1, -0.2], j);
    check(new TolerantLoss(1, 1), [0.3, 0.1, -0.2], j); // ρ'' > 0: curvature correction used
    check(new TukeyLoss(1), [5, 5, 5], j); // rejected outlier: zero weight
  });
});
