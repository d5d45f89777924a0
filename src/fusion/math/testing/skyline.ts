import fc from "fast-check";

/** A symmetric matrix with the given envelope (first[i] ≤ i), in skyline storage. */
export interface Skyline {
  readonly n: number;
  readonly first: Int32Array;
  readonly rowBase: Int32Array;
  readonly values: Float64Array;
}

/**
 * The matrix whose row i starts at column `firsts[i]` (capped at i), its entries `entries` over
 * and over in storage order, each diagonal entry made `diagonalBoost + |entry|`.
 */
export function skyline(firsts: readonly number[], entries: readonly number[], diagonalBoost: number): Skyline {
  const n = firsts.length;
  const first = Int32Array.from(firsts, (f, i) => Math.min(f, i));
  const rowBase = new Int32Array(n);
  let size = 0;
  for (let i = 0; i < n; i++) {
    rowBase[i] = size - first[i]!;
    size += i - first[i]! + 1;
  }
  const values = new Float64Array(size);
  for (let t = 0; t < size; t++) {
    values[t] = entries[t % entries.length]!;
  }
  for (let i = 0; i < n; i++) {
    values[rowBase[i]! + i] = diagonalBoost + Math.abs(values[rowBase[i]! + i]!);
  }
  return { n, first, rowBase, values };
}

/** The dense lower triangle of a skyline matrix (zeros outside the envelope). */
export function dense(s: Skyline, values: Float64Array): number[][] {
  return Array.from({ length: s.n }, (_, i) =>
    Array.from({ length: s.n }, (_unused, j) => (j <= i && j >= s.first[i]! ? values[s.rowBase[i]! + j]! : 0)),
  );
}

/** Skyline matrices of 1–40 rows, envelopes up to 12 wide, entries in [−1, 1], positive definite or not. */
export const arbitrarySkyline = fc
  .record({
    widths: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 40 }),
    entries: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 64 }),
    boost: fc.double({ min: -2, max: 30, noNaN: true }),
  })
  .map(({ widths, entries, boost }) => skyline(widths.map((w, i) => Math.max(0, i - w)), entries, boost));

/** An entry: +0 often, never −0 (the trimmed factorization's premise), now and then one that underflows or overflows. */
const value = fc.oneof(
  { weight: 4, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.double({ min: -1, max: 1, noNaN: true }).map((v) => (v === 0 ? 0 : v)) },
  { weight: 1, arbitrary: fc.constantFrom(1e-200, -1e-170, 1e200, -1e300) },
);
/**
 * Skyline matrices whose rows begin with zeros inside the envelope, with zeros scattered further
 * in and entries that underflow or overflow (non-finite sums).
 */
export const skylineWithZeros = fc
  .record({
    widths: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 40 }),
    entries: fc.array(value, { minLength: 1, maxLength: 64 }),
    leading: fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 40 }),
    boost: fc.double({ min: -2, max: 30, noNaN: true }),
  })
  .map(({ widths, entries, leading, boost }) => {
    const s = skyline(widths.map((w, i) => Math.max(0, i - w)), entries, boost + 0);
    for (let i = 0; i < s.n; i++) {
      const zeros = leading[i % leading.length]!;
      for (let j = s.first[i]!; j < Math.min(i, s.first[i]! + zeros); j++) {
        s.values[s.rowBase[i]! + j] = 0;
      }
    }
    return s;
  });
