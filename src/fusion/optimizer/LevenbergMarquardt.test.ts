import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { LevenbergMarquardt } from "./LevenbergMarquardt";
import { Problem } from "./Problem";
import { AbsoluteCost } from "../math/AbsoluteCost";
import { AbsolutePose2DCost } from "../math/AbsolutePose2DCost";
import type { CostFunction } from "../math/CostFunction";
import type { PatternedCost } from "../math/JacobianPattern";
import { RelativeCost } from "../math/RelativeCost";
import { RelativePose2DCost } from "../math/RelativePose2DCost";
import { Unicycle2DStateCost } from "../math/Unicycle2DStateCost";
import { wrapAngle } from "../math/angles";
import { HuberLoss } from "../math/losses";

const I3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];
/**
 * Ceres' default tolerances stop when the *cost* change is below 1e-6 relative, which leaves the
 * parameters ~1e-8 from the optimum; exactness checks use tighter ones.
 */
const TIGHT = { functionTolerance: 0, parameterTolerance: 1e-13 };

/** Oracle: solves the dense symmetric system M·x = v by Gaussian elimination (partial pivoting). */
function solveDense(m: number[][], v: number[]): number[] {
  const n = v.length;
  const a = m.map((row, i) => [...row, v[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) {
      if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) {
        p = r;
      }
    }
    [a[c], a[p]] = [a[p]!, a[c]!];
    for (let r = 0; r < n; r++) {
      if (r !== c) {
        const f = a[r]![c]! / a[c]![c]!;
        for (let k = c; k <= n; k++) {
          a[r]![k] = a[r]![k]! - f * a[c]![k]!;
        }
      }
    }
  }
  return a.map((row, i) => row[n]! / row[i]!);
}

describe("LevenbergMarquardt", () => {
  it("solves a chain of relative 2D poses plus one prior exactly", () => {
    // Truth: (0,0,0) → (1,0,π/2) → (1,1,π) → (0,1,−π/2); each step is (1, 0, π/2) in frame i.
    const truth = [
      [0, 0, 0],
      [1, 0, Math.PI / 2],
      [1, 1, -Math.PI],
      [0, 1, -Math.PI / 2],
    ];
    const problem = new Problem();
    const pos: number[] = [];
    const yaw: number[] = [];
    const vars = truth.map(([x, y, t], i) => ({
      p: Float64Array.of(x! + 0.3 * (i % 2), y! - 0.2 * i),
      t: Float64Array.of(wrapAngle(t! + 0.25)),
    }));
    for (const v of vars) {
      pos.push(problem.addParameterBlock(v.p));
      yaw.push(problem.addParameterBlock(v.t, { angular: [true] }));
    }
    problem.addResidualBlock(new AbsolutePose2DCost([0, 0, 0], [100, 0, 0, 0, 100, 0, 0, 0, 100]), undefined, [
      pos[0]!,
      yaw[0]!,
    ]);
    for (let i = 0; i < 3; i++) {
      problem.addResidualBlock(new RelativePose2DCost([1, 0, Math.PI / 2], I3), undefined, [
        pos[i]!,
        yaw[i]!,
        pos[i + 1]!,
        yaw[i + 1]!,
      ]);
    }
    const summary = new LevenbergMarquardt().solve(problem);
    expect(summary.usable).toBe(true);
    expect(summary.termination).toBe("convergence");
    expect(summary.finalCost).toBeLessThan(1e-12);
    vars.forEach((v, i) => {
      expect(v.p[0]).toBeCloseTo(truth[i]![0]!, 7);
      expect(v.p[1]).toBeCloseTo(truth[i]![1]!, 7);
      expect(Math.abs(wrapAngle(v.t[0]! - truth[i]![2]!))).toBeLessThan(1e-7);
    });
  });

  it("finds the weighted mean of two conflicting absolute measurements", () => {
    // σ1 = 1 at z = 1, σ2 = 2 at z = 3: x = (1·1 + 3/4) / (1 + 1/4) = 1.4, variance 1/(1.25) = 0.8
    const problem = new Problem();
    const x = Float64Array.of(-10);
    const b = problem.addParameterBlock(x);
    problem.addResidualBlock(new AbsoluteCost([1], [1]), undefined, [b]);
    problem.addResidualBlock(new AbsoluteCost([3], [0.5]), undefined, [b]);
    const lm = new LevenbergMarquardt(TIGHT);
    expect(lm.solve(problem).usable).toBe(true);
    expect(x[0]).toBeCloseTo(1.4, 9);
    expect(lm.covariance(problem, [b])![0]).toBeCloseTo(0.8, 9);
  });

  it("matches the normal-equation solution and covariance of random linear problems", () => {
    // A random chain of 2D positions with relative and absolute measurements (a linear problem),
    // solved independently by dense Gaussian elimination on JᵀJ x = Jᵀz.
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 7 }),
        fc.array(fc.double({ min: -5, max: 5, noNaN: true }), { minLength: 64, maxLength: 64 }),
        (count, noise) => {
          const problem = new Problem();
          const data = Array.from({ length: count }, () => new Float64Array(2));
          const blocks = data.map((d) => problem.addParameterBlock(d));
          const n = 2 * count;
          const jtj = Array.from({ length: n }, () => new Array<number>(n).fill(0));
          const jtz = new Array<number>(n).fill(0);
          let k = 0;
          const next = (): number => noise[k++ % noise.length]!;
          const addRow = (coeffs: [number, number][], z: number): void => {
            for (const [i, ci] of coeffs) {
              jtz[i] = jtz[i]! + ci * z;
              for (const [j, cj] of coeffs) {
                jtj[i]![j] = jtj[i]![j]! + ci * cj;
              }
            }
          };
          // prior on x0 with weight w
          const w = 1 + Math.abs(next());
          const z0 = [next(), next()];
          problem.addResidualBlock(new AbsoluteCost(z0, [w, 0, 0, w]), undefined, [blocks[0]!]);
          addRow([[0, w]], w * z0[0]!);
          addRow([[1, w]], w * z0[1]!);
          for (let i = 1; i < count; i++) {
            const d = [next(), next()];
            const s = 0.5 + Math.abs(next());
            problem.addResidualBlock(new RelativeCost(d, [s, 0, 0, s]), undefined, [blocks[i - 1]!, blocks[i]!]);
            for (let c = 0; c < 2; c++) {
              addRow(
                [
                  [2 * i + c, s],
                  [2 * (i - 1) + c, -s],
                ],
                s * d[c]!,
              );
            }
            if (i % 2 === 0) {
              // an absolute measurement on every other state (partial: x only)
              const z = next();
              problem.addResidualBlock(new AbsoluteCost([z, 0], [2, 0]), undefined, [blocks[i]!]);
              addRow([[2 * i, 2]], 2 * z);
            }
          }
          const lm = new LevenbergMarquardt(TIGHT);
          const summary = lm.solve(problem);
          expect(summary.usable).toBe(true);
          const want = solveDense(jtj, jtz);
          data.forEach((d, i) => {
            expect(d[0]).toBeCloseTo(want[2 * i]!, 6);
            expect(d[1]).toBeCloseTo(want[2 * i + 1]!, 6);
          });
          // Covariance of the last block: columns of (JᵀJ)⁻¹.
          const last = count - 1;
          const cov = lm.covariance(problem, [blocks[last]!])!;
          for (let c = 0; c < 2; c++) {
            const e = new Array<number>(n).fill(0);
            e[2 * last + c] = 1;
            const col = solveDense(jtj, e);
            expect(cov[0 * 2 + c]).toBeCloseTo(col[2 * last]!, 8);
            expect(cov[1 * 2 + c]).toBeCloseTo(col[2 * last + 1]!, 8);
          }
        },
      ),
      { seed: 99, numRuns: 60 },
    );
  });

  it("solves identically whatever order a residual block lists its blocks in (held ones among them)", () => {
    // x_{i+1} − x_i = d as RelativeCost over [x_i, x_{i+1}], or over [x_{i+1}, x_i] with −d (the
    // negated residual: the same JᵀJ and Jᵀr, term by term), plus one three-block difference.
    const build = (order: "forward" | "reversed"): { problem: Problem; data: Float64Array[] } => {
      const reversed = order === "reversed";
      const problem = new Problem();
      const data = Array.from({ length: 6 }, (_, i) => Float64Array.of(0.3 * i, -0.2 * i));
      const blocks = data.map((d, i) => problem.addParameterBlock(d, { constant: i === 2 }));
      problem.addResidualBlock(new AbsoluteCost([0.1, -0.1], [2, 0.5, 0, 3]), undefined, [blocks[0]!]);
      for (let i = 0; i + 1 < data.length; i++) {
        const d = [1 + 0.1 * i, 0.5 - 0.2 * i];
        const a = [1.5, 0.2, 0, 0.7 + 0.1 * i];
        if (reversed) {
          problem.addResidualBlock(new RelativeCost(d.map((v) => -v), a), undefined, [blocks[i + 1]!, blocks[i]!]);
        } else {
          problem.addResidualBlock(new RelativeCost(d, a), undefined, [blocks[i]!, blocks[i + 1]!]);
        }
      }
      problem.addResidualBlock(
        reversed ? new RelativeCost([-2.4, -0.3], [1, 0, 0, 1]) : new RelativeCost([2.4, 0.3], [1, 0, 0, 1]),
        undefined,
        reversed ? [blocks[5]!, blocks[1]!] : [blocks[1]!, blocks[5]!],
      );
      return { problem, data };
    };
    const forward = build("forward");
    const backward = build("reversed");
    const a = new LevenbergMarquardt(TIGHT).solve(forward.problem);
    const b = new LevenbergMarquardt(TIGHT).solve(backward.problem);
    expect(a.usable).toBe(true);
    expect(a.successfulSteps).toBeGreaterThan(0);
    expect(b).toEqual(a);
    expect(backward.data.map((d) => Array.from(d))).toEqual(forward.data.map((d) => Array.from(d)));
    expect(Array.from(forward.data[2]!)).toEqual([0.6, -0.4]);
  });

  it("keeps held (constant) blocks bit-exact and solves the rest", () => {
    const problem = new Problem();
    const a = Float64Array.of(0.123456789, -2);
    const b = Float64Array.of(0, 0);
    const ia = problem.addParameterBlock(a, { constant: true });
    const ib = problem.addParameterBlock(b);
    problem.addResidualBlock(new AbsoluteCost([0.123456789, -2], [1, 0, 0, 1]), undefined, [ia]);
    problem.addResidualBlock(new RelativeCost([1, 1], [1, 0, 0, 1]), undefined, [ia, ib]);
    const lm = new LevenbergMarquardt(TIGHT);
    expect(lm.solve(problem).usable).toBe(true);
    expect(Array.from(a)).toEqual([0.123456789, -2]);
    expect(b[0]).toBeCloseTo(1.123456789, 9);
    expect(b[1]).toBeCloseTo(-1, 9);
    const cov = lm.covariance(problem, [ia, ib])!;
    expect(cov[0]).toBe(0); // held block: zero covariance
    expect(cov[2 * 4 + 2]).toBeCloseTo(1, 9); // b's x variance: one unit relative measurement
  });

  it("reaches the minimum of a robust (Huber) cost despite an outlier", () => {
    // Three measurements of one scalar at 0, 0.2 and 10 with Huber(a = 1). The minimizer x*
    // satisfies Σ ψ(x − z) = 0 with ψ(e) = e for |e| ≤ 1 and sign(e) otherwise:
    // (x − 0) + (x − 0.2) − 1 = 0 → x* = 0.6 (and |x* − 10| > 1, |x*| < 1, |x* − 0.2| < 1).
    const problem = new Problem();
    const x = Float64Array.of(5);
    const b = problem.addParameterBlock(x);
    for (const z of [0, 0.2, 10]) {
      problem.addResidualBlock(new AbsoluteCost([z], [1]), new HuberLoss(1), [b]);
    }
    const summary = new LevenbergMarquardt({ functionTolerance: 1e-12 }).solve(problem);
    expect(summary.usable).toBe(true);
    expect(x[0]).toBeCloseTo(0.6, 5);
  });

  it("wraps orientation updates into [-π, π)", () => {
    const problem = new Problem();
    const t = Float64Array.of(Math.PI - 0.05);
    const b = problem.addParameterBlock(t, { angular: [true] });
    problem.addResidualBlock(new AbsoluteCost([-Math.PI + 0.05], [1], [true]), undefined, [b]);
    new LevenbergMarquardt().solve(problem);
    expect(t[0]).toBeCloseTo(-Math.PI + 0.05, 9);
  });

  it("reports an unconstrained direction as a missing covariance, not a crash", () => {
    const problem = new Problem();
    const b = problem.addParameterBlock(Float64Array.of(0, 0));
    problem.addResidualBlock(new AbsoluteCost([1, 0], [1, 0]), undefined, [b]); // y unobserved
    const lm = new LevenbergMarquardt();
    expect(lm.solve(problem).usable).toBe(true);
    expect(lm.covariance(problem, [b])).toBeUndefined();
  });

  it("takes a cost's Jacobian pattern to the same bits as the general path (shuffled blocks, a held one, a block named twice)", () => {
    // A chain of Unicycle2D states, its blocks added in a shuffled order (so a residual block's
    // columns neither ascend nor stay together), with priors on the first state (AbsoluteCost,
    // dense A on the 2-vectors), relative constraints between the states' velocities
    // (RelativeCost, A with a zero entry) and absolute poses (AbsolutePose2DCost); once with the costs as they are, once behind a wrapper
    // that hides their pattern.
    const hidden = (cost: CostFunction): CostFunction => ({
      numResiduals: cost.numResiduals,
      parameterBlockSizes: cost.parameterBlockSizes,
      evaluate: (p, r, j) => cost.evaluate(p, r, j),
    });
    // The pattern without evaluatePattern: the solver's buffer gets evaluate's full writes.
    const patternOnly = (cost: CostFunction & PatternedCost): CostFunction & PatternedCost => ({
      numResiduals: cost.numResiduals,
      parameterBlockSizes: cost.parameterBlockSizes,
      jacobianPattern: cost.jacobianPattern,
      evaluate: (p, r, j) => cost.evaluate(p, r, j),
    });
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 40, maxLength: 40 }),
        fc.array(fc.nat(), { minLength: 20, maxLength: 20 }),
        fc.boolean(),
        (seed, shuffle, hold) => {
          const solve = (
            how: "patterned" | "pattern only" | "general",
          ): { data: Float64Array[]; summary: unknown; cov: unknown } => {
            const states = 4;
            const sizes = [2, 1, 2, 1, 2];
            const data: Float64Array[] = [];
            let at = 0;
            for (let s = 0; s < states; s++) {
              for (const size of sizes) {
                data.push(
                  Float64Array.from({ length: size }, () => seed[at++ % seed.length]! * (s + 1)),
                );
              }
            }
            const order = data.map((_, i) => i);
            for (let i = order.length - 1; i > 0; i--) {
              const k = shuffle[i % shuffle.length]! % (i + 1);
              [order[i], order[k]] = [order[k]!, order[i]!];
            }
            const problem = new Problem();
            const index: number[] = [];
            for (const i of order) {
              index[i] = problem.addParameterBlock(data[i]!, {
                angular: i % 5 === 1 ? [true] : undefined,
                constant: hold && i === 7,
              });
            }
            const a = new Float64Array(64);
            for (let i = 0; i < 8; i++) {
              a[i * 9] = 1 + 0.25 * i;
            }
            const wrap = (cost: CostFunction & PatternedCost): CostFunction =>
              how === "patterned" ? cost : how === "pattern only" ? patternOnly(cost) : hidden(cost);
            for (let b = 0; b < 5; b++) {
              problem.addResidualBlock(
                wrap(
                  new AbsoluteCost(
                    new Array<number>(sizes[b]!).fill(0.5),
                    Array.from({ length: sizes[b]! ** 2 }, (_, k) =>
                      k % (sizes[b]! + 1) === 0 ? 3 : 0.5 + 0.25 * k,
                    ),
                  ),
                ),
                undefined,
                [index[b]!],
              );
            }
            for (let s = 0; s + 1 < states; s++) {
              problem.addResidualBlock(
                wrap(new RelativeCost([0.1, -0.2], [2, 0, -0.5, 1.5])),
                undefined,
                [index[5 * s + 2]!, index[5 * s + 7]!],
              );
            }
            // A patterned cost naming one block twice: the general path, as with its pattern hidden.
            problem.addResidualBlock(wrap(new RelativeCost([0.1, -0.2], [2, 0, -0.5, 1.5])), undefined, [index[2]!, index[2]!]);
            // Absolute poses: yaw only (A's position columns zero), and all three components.
            problem.addResidualBlock(wrap(new AbsolutePose2DCost([0.2, -0.1, 0.3], [0, 0, 2])), undefined, [index[5]!, index[6]!]);
            problem.addResidualBlock(
              wrap(new AbsolutePose2DCost([0.2, -0.1, 0.3], [1, 0.5, 0, 0, 2, 0.25, 0, 0, 3])),
              undefined,
              [index[10]!, index[11]!],
            );
            for (let s = 0; s + 1 < states; s++) {
              const cost = new Unicycle2DStateCost(0.1 + 0.05 * s, a);
              problem.addResidualBlock(
                wrap(cost),
                undefined,
                Array.from({ length: 10 }, (_, k) => index[5 * s + k]!),
              );
            }
            const lm = new LevenbergMarquardt();
            const summary = lm.solve(problem);
            const cov = lm.covariance(problem, [index[15]!, index[16]!]);
            return { data, summary, cov };
          };
          const general = solve("general");
          const patterned = solve("patterned");
          expect(solve("pattern only")).toEqual(patterned);
          expect(patterned.summary).toEqual(general.summary);
          patterned.data.forEach((d, i) => {
            d.forEach((v, k) => {
              if (!Object.is(v, general.data[i]![k])) {
                expect.fail(`block ${i}[${k}] = ${v}, the general path's ${general.data[i]![k]!}`);
              }
            });
          });
          expect(patterned.cov).toEqual(general.cov);
        },
      ),
      { seed: 7, numRuns: 60 },
    );
  });

  it("stops at the iteration cap with a usable, not converged, summary", () => {
    const problem = new Problem();
    problem.addResidualBlock(new RelativePose2DCost([1, 2, 0.3], I3), undefined, [
      problem.addParameterBlock(Float64Array.of(0, 0)),
      problem.addParameterBlock(Float64Array.of(0.1), { angular: [true] }),
      problem.addParameterBlock(Float64Array.of(100, -100)),
      problem.addParameterBlock(Float64Array.of(2), { angular: [true] }),
    ]);
    const summary = new LevenbergMarquardt({ maxIterations: 1 }).solve(problem);
    expect(summary.termination).toBe("no-convergence");
    expect(summary.usable).toBe(true);
    expect(summary.iterations).toBe(1);
  });
});
