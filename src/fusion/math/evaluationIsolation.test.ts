import { describe, expect, it } from "vitest";

import { AbsoluteOrientation3DEulerCost } from "./AbsoluteOrientation3DEulerCost";
import { AbsolutePose3DCost } from "./AbsolutePose3DCost";
import type { CostFunction } from "./CostFunction";
import { Omnidirectional3DStateCost } from "./Omnidirectional3DStateCost";
import { RelativePose3DCost } from "./RelativePose3DCost";
import { Unicycle2DStateCost } from "./Unicycle2DStateCost";
import { quaternionOfRpy } from "./rotation3d";
import { stream } from "../core/testing";

/** An upper-triangular square-root information with a positive diagonal. */
function upper(n: number, rand: () => number): Float64Array {
  const a = new Float64Array(n * n);
  for (let r = 0; r < n; r++) {
    a[r * n + r] = 1.5 + rand();
    for (let c = r + 1; c < n; c++) {
      a[r * n + c] = 0.3 * rand();
    }
  }
  return a;
}

/** Parameter blocks of the given ambient sizes; size 4 is a unit quaternion. */
function params(sizes: readonly number[], rand: () => number): Float64Array[] {
  return sizes.map((s) => {
    if (s === 4) {
      const q = new Float64Array(4);
      quaternionOfRpy(rand(), 0.5 * rand(), 3 * rand(), q, 0);
      return q;
    }
    return Float64Array.from({ length: s }, () => 2 * rand());
  });
}

/** Residuals and the requested Jacobians (`want[b]`) as strings of every entry. */
function run(cost: CostFunction, p: readonly Float64Array[], local: readonly number[], want: readonly boolean[]): string[] {
  const m = cost.numResiduals;
  const r = new Float64Array(m).fill(NaN);
  const j = local.map((l, b) => (want[b] === true ? new Float64Array(m * l).fill(NaN) : null));
  expect(cost.evaluate(p, r, j)).toBe(true);
  return [r, ...j.filter((x) => x != null)].map((x) => Array.from(x, String).join(","));
}

interface Case {
  readonly name: string;
  readonly make: (rand: () => number) => CostFunction;
  readonly local: readonly number[];
}

const CASES: readonly Case[] = [
  { name: "Unicycle2DStateCost", make: (rand) => new Unicycle2DStateCost(0.1 + Math.abs(rand()), upper(8, rand)), local: [2, 1, 2, 1, 2, 2, 1, 2, 1, 2] },
  { name: "Omnidirectional3DStateCost", make: (rand) => new Omnidirectional3DStateCost(0.1 + Math.abs(rand()), upper(15, rand)), local: Array<number>(10).fill(3) },
  { name: "AbsolutePose3DCost", make: (rand) => new AbsolutePose3DCost([rand(), rand(), rand(), ...params([4], rand)[0]!], upper(6, rand)), local: [3, 3] },
  { name: "RelativePose3DCost", make: (rand) => new RelativePose3DCost([rand(), rand(), rand(), ...params([4], rand)[0]!], upper(6, rand)), local: [3, 3, 3, 3] },
  { name: "AbsoluteOrientation3DEulerCost", make: (rand) => new AbsoluteOrientation3DEulerCost([rand(), rand(), rand()], upper(3, rand)), local: [3] },
];

describe("cost functions evaluate independently of one another", () => {
  for (const { name, make, local } of CASES) {
    it(`${name}: interleaved instances and Jacobian requests give each evaluation's own results`, () => {
      const rand = stream(name.length);
      const a = make(rand);
      const b = make(rand);
      const pa = params(a.parameterBlockSizes, rand);
      const pb = params(b.parameterBlockSizes, rand);
      const all = local.map(() => true);
      const patterns = [all, local.map((_, i) => i % 3 === 1), local.map(() => false)];
      for (const want of patterns) {
        // The reference: right after the same instance filled every working buffer with its own
        // values. Then the same request right after the other instance did: any stale read shows.
        for (const [self, ps, other, po] of [[a, pa, b, pb], [b, pb, a, pa]] as const) {
          run(self, ps, local, all);
          const reference = run(self, ps, local, want);
          run(other, po, local, all);
          expect(run(self, ps, local, want)).toEqual(reference);
        }
      }
      expect(run(a, pa, local, all)).not.toEqual(run(b, pb, local, all));
    });
  }
});
