import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { wrapAngle } from "./angles";
import { predictUnicycle2D } from "./unicycle2d";

const chain = (state: number[], dt: number, steps: number): Float64Array => {
  const s = Float64Array.from(state);
  for (let i = 0; i < steps; i++) {
    predictUnicycle2D(s, dt, s);
  }
  return s;
};

describe("predictUnicycle2D", () => {
  it("moves a constant-velocity state along its heading exactly", () => {
    const out = new Float64Array(8);
    predictUnicycle2D([1, 2, Math.PI / 2, 3, 0, 0, 0, 0], 2, out);
    expect(out[0]).toBeCloseTo(1, 12);
    expect(out[1]).toBeCloseTo(8, 12);
    expect(out[2]).toBeCloseTo(Math.PI / 2, 15);
    expect(Array.from(out.subarray(3))).toEqual([3, 0, 0, 0, 0]);
  });

  it("is exact for constant acceleration however the interval is split", () => {
    // x(t) = v t + ½ a t² along yaw 0.3: 20 steps of 0.1 s equal one step of 2 s.
    const whole = new Float64Array(8);
    predictUnicycle2D([0, 0, 0.3, 1, 0, 0, 0.5, 0], 2, whole);
    const split = chain([0, 0, 0.3, 1, 0, 0, 0.5, 0], 0.1, 20);
    const dist = 1 * 2 + 0.5 * 0.5 * 4;
    expect(whole[0]).toBeCloseTo(dist * Math.cos(0.3), 12);
    expect(whole[1]).toBeCloseTo(dist * Math.sin(0.3), 12);
    for (let i = 0; i < 8; i++) {
      expect(split[i]).toBeCloseTo(whole[i]!, 10);
    }
    expect(whole[3]).toBeCloseTo(2, 14);
  });

  it("follows a constant turn exactly as the discrete model's closed form says", () => {
    // With body velocity v, yaw rate ω and step dt, p_k = p_0 + v·dt·Σ_{j<k} e^{i(θ0 + jωdt)}:
    // a geometric series, summed here in closed form (independent of the step-by-step code).
    fc.assert(
      fc.property(
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: 0.05, max: 2, noNaN: true }),
        fc.double({ min: -2, max: 2, noNaN: true }).filter((w) => Math.abs(w) > 1e-3),
        fc.integer({ min: 1, max: 60 }),
        (theta0, v, w, k) => {
          const dt = 0.05;
          const s = chain([0, 0, theta0, v, 0, w, 0, 0], dt, k);
          const phi = w * dt;
          // Σ_{j<k} e^{ijφ} = (1 − e^{ikφ}) / (1 − e^{iφ})
          const nr = 1 - Math.cos(k * phi);
          const ni = -Math.sin(k * phi);
          const dr = 1 - Math.cos(phi);
          const di = -Math.sin(phi);
          const den = dr * dr + di * di;
          const sr = (nr * dr + ni * di) / den;
          const si = (ni * dr - nr * di) / den;
          const c = Math.cos(theta0);
          const sn = Math.sin(theta0);
          expect(s[0]).toBeCloseTo(v * dt * (c * sr - sn * si), 9);
          expect(s[1]).toBeCloseTo(v * dt * (sn * sr + c * si), 9);
          expect(Math.abs(wrapAngle(s[2]! - (theta0 + k * phi)))).toBeLessThan(1e-9);
          expect(s[3]).toBe(v);
          expect(s[5]).toBe(w);
        },
      ),
      { seed: 11, numRuns: 200 },
    );
  });

  it("wraps the predicted yaw into [-π, π)", () => {
    const out = new Float64Array(8);
    predictUnicycle2D([0, 0, Math.PI - 0.1, 0, 0, 1, 0, 0], 0.2, out);
    expect(out[2]).toBeCloseTo(-Math.PI + 0.1, 12);
  });

  it("returns F = ∂f/∂s matching finite differences", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 8, maxLength: 8 }),
        fc.double({ min: 0.001, max: 1.5, noNaN: true }),
        (state, dt) => {
          // Keep the predicted yaw away from the wrap discontinuity for the difference quotient.
          state[2] = wrapAngle(state[2]!);
          if (Math.abs(Math.abs(state[2] + state[5]! * dt) - Math.PI) < 1e-3) {
            return;
          }
          const fJ = new Float64Array(64);
          predictUnicycle2D(state, dt, new Float64Array(8), fJ);
          const plus = new Float64Array(8);
          const minus = new Float64Array(8);
          const h = 1e-6;
          for (let c = 0; c < 8; c++) {
            const sp = state.slice();
            const sm = state.slice();
            sp[c] = sp[c]! + h;
            sm[c] = sm[c]! - h;
            predictUnicycle2D(sp, dt, plus);
            predictUnicycle2D(sm, dt, minus);
            for (let r = 0; r < 8; r++) {
              const d = r === 2 ? wrapAngle(plus[r]! - minus[r]!) : plus[r]! - minus[r]!;
              expect(Math.abs(d / (2 * h) - fJ[r * 8 + c]!)).toBeLessThan(1e-6);
            }
          }
        },
      ),
      { seed: 5, numRuns: 200 },
    );
  });
});
