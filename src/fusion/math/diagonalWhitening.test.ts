import fc from "fast-check";
import { describe, expect, it } from "vitest";

import type { CostFunction } from "./CostFunction";
import { Omnidirectional3DStateCost } from "./Omnidirectional3DStateCost";
import { quaternionOfRpy } from "./rotation3d";

/** Every output entry of one evaluation, as bit-exact keys (Object.is semantics: −0 ≠ +0). */
function outputs(cost: CostFunction, params: readonly Float64Array[], local: readonly number[], want: readonly boolean[], fill: number): string[] {
  const m = cost.numResiduals;
  const r = new Float64Array(m).fill(fill);
  const j = local.map((l, b) => (want[b] === true ? new Float64Array(m * l).fill(fill) : null));
  expect(cost.evaluate(params, r, want.some((w) => w) ? j : null)).toBe(true);
  return [r, ...j.filter((x) => x != null)].flatMap((x) => Array.from(x, (v) => (Object.is(v, -0) ? "-0" : String(v))));
}

const component = fc.oneof(
  fc.double({ min: -5, max: 5, noNaN: true }),
  fc.constantFrom(0, -0, 1e-300, -1e-300, 5e-324, NaN, Infinity, -Infinity),
);
const vec3 = fc.tuple(component, component, component).map((v) => Float64Array.from(v));
const angle = fc.double({ min: -3.2, max: 3.2, noNaN: true });
const quaternion = fc
  .oneof(
    fc.tuple(angle, fc.double({ min: -1.57, max: 1.57, noNaN: true }), angle),
    fc.constantFrom<[number, number, number]>([0, 0, 0], [Math.PI, 0, 0], [0, Math.PI / 2, 0], [0, 0, -Math.PI]),
  )
  .map(([r, p, y]) => {
    const q = new Float64Array(4);
    quaternionOfRpy(r, p, y, q, 0);
    return q;
  });
/** A diagonal square-root information: finite, non-zero entries of either sign and wide range. */
const diagonal = (n: number) =>
  fc.array(
    fc.oneof(fc.double({ min: 1e-3, max: 1e3, noNaN: true }), fc.double({ min: -1e3, max: -1e-3, noNaN: true }), fc.constantFrom(1e-310, 1e300)),
    { minLength: n, maxLength: n },
  );
const toMatrix = (d: readonly number[], offDiagonal: number): Float64Array => {
  const n = d.length;
  const a = new Float64Array(n * n).fill(offDiagonal);
  d.forEach((v, i) => (a[i * n + i] = v));
  return a;
};

describe("cost functions on a diagonal A give the general whitening's bits", () => {
  it("Omnidirectional3DStateCost", () => {
    const sizes = [3, 4, 3, 3, 3, 3, 4, 3, 3, 3];
    const local = Array<number>(10).fill(3);
    const blocks = fc.tuple(...sizes.map((s) => (s === 4 ? quaternion : vec3)));
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 2, noNaN: true }),
        diagonal(15),
        fc.constantFrom(0, -0),
        blocks,
        fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
        (dt, d, offDiagonal, params, want) => {
          const a = toMatrix(d, offDiagonal);
          const fast = new Omnidirectional3DStateCost(dt, a);
          const general = new Omnidirectional3DStateCost(dt, a, { diagonalPath: false });
          expect(outputs(fast, params, local, want, NaN)).toEqual(outputs(general, params, local, want, 7));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
