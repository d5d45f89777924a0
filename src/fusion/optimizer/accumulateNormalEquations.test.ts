import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { accumulateNormalEquations } from "./marginalizeVariables";

/** A residual block: its parameter blocks' Jacobians (m × size, row-major), columns at offs in H. */
interface Block {
  readonly m: number;
  readonly sizes: number[];
  readonly offs: number[];
  readonly jac: Float64Array[];
  readonly r: Float64Array;
}

/** Mostly zeros (whole rows and scattered entries, both signs), as kinematic Jacobians are. */
const entry = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(0, -0) },
  { weight: 3, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(1e-300, -1e-300, 1e200, 5e-324) },
);

/** Blocks over `d` columns of H; a block may name a variable twice (not distinct). */
const blocks = (d: number, variableSize: number) =>
  fc.array(
    fc
      .record({
        m: fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 30, max: 40 })),
        vars: fc.array(fc.integer({ min: 0, max: d / variableSize - 1 }), { minLength: 1, maxLength: 10 }),
        zeroRows: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
      })
      .chain(({ m, vars, zeroRows }) =>
        fc.record({
          m: fc.constant(m),
          sizes: fc.constant(vars.map(() => variableSize)),
          offs: fc.constant(vars.map((v) => v * variableSize)),
          jac: fc.tuple(
            ...vars.map(() =>
              fc
                .array(entry, { minLength: m * variableSize, maxLength: m * variableSize })
                .map((v) => Float64Array.from(v, (x, i) => (zeroRows[Math.floor(i / variableSize)] === true ? 0 : x))),
            ),
          ),
          r: fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: m, maxLength: m }).map((v) => Float64Array.from(v)),
        }),
      ),
    { minLength: 1, maxLength: 4 },
  );

/** The plain loops: every pair of columns, every row, in the order the accumulation adds. */
function plain(list: readonly Block[], d: number): { h: Float64Array; g: Float64Array } {
  const h = new Float64Array(d * d);
  const g = new Float64Array(d);
  for (const { m, sizes, offs, jac, r } of list) {
    const cols: { j: Float64Array; size: number; i: number; x: number }[] = [];
    sizes.forEach((size, a) => {
      for (let i = 0; i < size; i++) {
        cols.push({ j: jac[a]!, size, i, x: offs[a]! + i });
      }
    });
    for (const p of cols) {
      let s = 0;
      for (let q = 0; q < m; q++) {
        s += p.j[q * p.size + p.i]! * r[q]!;
      }
      g[p.x] = g[p.x]! + s;
      for (const t of cols) {
        let v = 0;
        for (let q = 0; q < m; q++) {
          v += p.j[q * p.size + p.i]! * t.j[q * t.size + t.i]!;
        }
        h[p.x * d + t.x] = h[p.x * d + t.x]! + v;
      }
    }
  }
  return { h, g };
}

describe("accumulateNormalEquations", () => {
  it("gives the plain loops' bits (structurally zero pairs skipped, repeated variables, > 32 rows)", () => {
    const variableSize = 3;
    const d = 12 * variableSize;
    fc.assert(
      fc.property(blocks(d, variableSize), (list) => {
        const h = new Float64Array(d * d);
        const g = new Float64Array(d);
        for (const { m, sizes, offs, jac, r } of list) {
          accumulateNormalEquations(h, g, d, r, m, jac, sizes, offs);
        }
        const expected = plain(list, d);
        for (let i = 0; i < d * d; i++) {
          expect(Object.is(h[i], expected.h[i]), `H entry ${i}: ${h[i]!} vs ${expected.h[i]!}`).toBe(true);
        }
        for (let i = 0; i < d; i++) {
          expect(Object.is(g[i], expected.g[i]), `g entry ${i}`).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
