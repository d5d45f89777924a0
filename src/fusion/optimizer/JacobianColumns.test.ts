import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { JacobianColumns } from "./JacobianColumns";

/**
 * The solver's normal-equation loop as it was before the row masks (the oracle): every pair
 * p ≥ t of non-zero columns over the intersection of their non-zero row ranges, Jᵀr over a
 * column's row range.
 */
function addToSkylineByRanges(
  columns: JacobianColumns,
  count: number,
  m: number,
  h: Float64Array,
  rowBase: Int32Array,
  g: Float64Array,
  cols: Int32Array,
  r: Float64Array,
): void {
  const local = columns.values;
  const lo = columns.firstRows;
  const hi = columns.lastRows;
  for (let pi = 0; pi < count; pi++) {
    const loI = lo[pi]!;
    const hiI = hi[pi]!;
    if (hiI < loI) {
      continue;
    }
    const gi = cols[pi]!;
    let accR = 0;
    for (let q = loI; q <= hiI; q++) {
      accR += local[pi * m + q]! * r[q]!;
    }
    g[gi] = g[gi]! + accR;
    const row = rowBase[gi]!;
    const bi = pi * m;
    for (let pj = 0; pj <= pi; pj++) {
      const qLo = loI > lo[pj]! ? loI : lo[pj]!;
      const qHi = hiI < hi[pj]! ? hiI : hi[pj]!;
      if (qHi < qLo) {
        continue;
      }
      const bj = pj * m;
      let acc = 0;
      for (let q = qLo; q <= qHi; q++) {
        acc += local[bi + q]! * local[bj + q]!;
      }
      const gj = cols[pj]!;
      h[row + gj] = h[row + gj]! + acc;
    }
  }
}

/** Entries that stress the skipped terms: zeros of both signs, products that underflow, and (rarely) non-finite values. */
const entry = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(0, -0) },
  { weight: 4, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(1e-200, -1e-200, 1e-170, -3e-160, 1e300, -1e300) },
  { weight: 1, arbitrary: fc.constantFrom(Infinity, -Infinity, NaN) },
);

/** One residual block: m rows, parameter blocks of the given sizes, Jacobians and residuals. */
const residualBlock = fc
  .record({
    m: fc.integer({ min: 1, max: 40 }),
    sizes: fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 }),
    finiteOnly: fc.boolean(),
    seed: fc.array(entry, { minLength: 1, maxLength: 300 }),
    residualSeed: fc.array(entry, { minLength: 1, maxLength: 40 }),
    gaps: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 48 }),
  })
  .map(({ m, sizes, finiteOnly, seed, residualSeed, gaps }) => {
    const pick = (values: readonly number[], i: number): number => {
      const v = values[i % values.length]!;
      return finiteOnly && !Number.isFinite(v) ? 0 : v;
    };
    let at = 0;
    const jacobians = sizes.map((s) => Float64Array.from({ length: m * s }, () => pick(seed, at++)));
    const r = Float64Array.from({ length: m }, (_, q) => pick(residualSeed, q));
    const count = sizes.reduce((a, b) => a + b, 0);
    // Ascending global columns (a repeat: a parameter block used twice).
    const cols = new Int32Array(count);
    for (let p = 1; p < count; p++) {
      cols[p] = cols[p - 1]! + gaps[p % gaps.length]!;
    }
    return { m, sizes, jacobians, r, cols, count };
  });

type Block = typeof residualBlock extends fc.Arbitrary<infer T> ? T : never;

/** The columns of a block gathered by hand. */
function plainColumns({ m, sizes, jacobians }: Block): Float64Array[] {
  const plain: Float64Array[] = [];
  jacobians.forEach((j, a) => {
    for (let i = 0; i < sizes[a]!; i++) {
      plain.push(Float64Array.from({ length: m }, (_, q) => j[q * sizes[a]! + i]!));
    }
  });
  return plain;
}

function gather(columns: JacobianColumns, b: Block): number {
  const order = Int32Array.from({ length: b.count }, (_, i) => i);
  return columns.gather(b.jacobians, b.jacobians.length, b.sizes, b.m, order, 0);
}

function expectSameBits(actual: Float64Array, expected: Float64Array, what: string): void {
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i])) {
      expect.fail(`${what}[${i}] = ${actual[i]!}, the oracle's ${expected[i]!}`);
    }
  }
}

describe("JacobianColumns", () => {
  it("states the masks and partners exactly", () => {
    const columns = new JacobianColumns();
    fc.assert(
      fc.property(residualBlock, (b) => {
        expect(gather(columns, b)).toBe(b.count);
        const plain = plainColumns(b);
        const finite = b.jacobians.every((j) => j.every((v) => Number.isFinite(v)));
        expect(columns.masked).toBe(finite && b.m <= 32);
        expect(columns.paired).toBe(finite && b.m <= 32 && b.count <= 32);
        for (let p = 0; p < b.count; p++) {
          if (columns.masked) {
            for (let q = 0; q < b.m; q++) {
              expect(((columns.rowMasks[p]! >>> q) & 1) === 1).toBe(plain[p]![q] !== 0);
            }
          }
          if (columns.paired) {
            for (let t = 0; t < b.count; t++) {
              const shares = plain[p]!.some((v, q) => v !== 0 && plain[t]![q] !== 0);
              expect(((columns.partners[p]! >>> t) & 1) === 1).toBe(shares);
            }
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it("addToSkyline gives the row-range loop's JᵀJ and Jᵀr bit for bit, block after block", () => {
    const columns = new JacobianColumns();
    fc.assert(
      fc.property(fc.array(residualBlock, { minLength: 1, maxLength: 3 }), (blocks) => {
        let n = 1;
        for (const b of blocks) {
          n = Math.max(n, b.cols[b.count - 1]! + 1);
        }
        // Full lower triangle as a skyline: (i, j) at i(i+1)/2 + j.
        const rowBase = Int32Array.from({ length: n }, (_, i) => (i * (i + 1)) / 2);
        const size = (n * (n + 1)) / 2;
        const h = new Float64Array(size);
        const g = new Float64Array(n);
        const hOracle = new Float64Array(size);
        const gOracle = new Float64Array(n);
        for (const b of blocks) {
          gather(columns, b);
          addToSkylineByRanges(columns, b.count, b.m, hOracle, rowBase, gOracle, b.cols, b.r);
          columns.addToSkyline(h, rowBase, g, b.cols, 0, b.r);
        }
        expectSameBits(h, hOracle, "h");
        expectSameBits(g, gOracle, "g");
      }),
      { numRuns: 1000 },
    );
  });

  it("dot, dotResidual and dotFiniteResidual are the sums over the row ranges, bit for bit", () => {
    const columns = new JacobianColumns();
    fc.assert(
      fc.property(residualBlock, (b) => {
        gather(columns, b);
        const plain = plainColumns(b);
        const range = (col: Float64Array): [number, number] => {
          const nz = Array.from(col, (v, q) => (v !== 0 ? q : -1)).filter((q) => q >= 0);
          return nz.length === 0 ? [b.m, -1] : [nz[0]!, nz[nz.length - 1]!];
        };
        const rFinite = b.r.every((v) => Number.isFinite(v));
        for (let p = 0; p < b.count; p++) {
          const [loP, hiP] = range(plain[p]!);
          let expectedR = 0;
          for (let q = loP; q <= hiP; q++) {
            expectedR += plain[p]![q]! * b.r[q]!;
          }
          expect(Object.is(columns.dotResidual(p, b.r), expectedR)).toBe(true);
          if (rFinite) {
            expect(Object.is(columns.dotFiniteResidual(p, b.r), expectedR)).toBe(true);
          }
          for (let t = 0; t < b.count; t++) {
            const [loT, hiT] = range(plain[t]!);
            let expected = 0;
            for (let q = Math.max(loP, loT); q <= Math.min(hiP, hiT); q++) {
              expected += plain[p]![q]! * plain[t]![q]!;
            }
            expect(Object.is(columns.dot(p, t), expected)).toBe(true);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
