import { subtractDot } from "./dense";

/**
 * In-place lower Cholesky factorization of a symmetric matrix in skyline (envelope) storage: row
 * i holds columns `first[i]` … i at `l[rowBase[i] + j]`. On return `l` holds L and `inv[i]` is
 * 1/L_ii. Returns false (L partly written) at the first pivot that is not a finite number > 0.
 *
 * Every entry is the row-by-row algorithm's (`envelopeCholeskyRows`), bit for bit: L_ij =
 * (A_ij − Σ_k L_ik·L_jk)·(1/L_jj) with the terms subtracted one at a time in ascending k. The
 * only change is the schedule: two rows are worked on together, since each such sum is one long
 * chain of dependent subtractions whose latency, not arithmetic, bounds the loop; the two rows'
 * sums over the same earlier row are independent chains, run side by side, and where both rows
 * span two consecutive columns, the four sums of those columns run side by side.
 */
export function envelopeCholesky(
  l: Float64Array,
  n: number,
  first: Int32Array,
  rowBase: Int32Array,
  inv: Float64Array,
): boolean {
  let a = 0;
  for (; a + 1 < n; a += 2) {
    const b = a + 1;
    const ra = rowBase[a]!;
    const rb = rowBase[b]!;
    const fa = first[a]!;
    const fb = first[b]!;
    for (let j = fa < fb ? fa : fb; j < a; j++) {
      const rj = rowBase[j]!;
      const fj = first[j]!;
      // The dot products below are written out (not `subtractDot` calls): in a function this
      // size V8 does not inline the call, and every call then boxes its argument and result as
      // heap numbers (a tenth of the fusion runner's allocations). Same terms, same order.
      if (j < fb) {
        let x = l[ra + j]!;
        for (let k = fa > fj ? fa : fj; k < j; k++) {
          x -= l[ra + k]! * l[rj + k]!;
        }
        l[ra + j] = x * inv[j]!;
        continue;
      }
      if (j < fa) {
        let x = l[rb + j]!;
        for (let k = fb > fj ? fb : fj; k < j; k++) {
          x -= l[rb + k]! * l[rj + k]!;
        }
        l[rb + j] = x * inv[j]!;
        continue;
      }
      if (j + 1 < a) {
        // Columns j and j + 1 of both rows: four independent chains over the same earlier
        // rows (each still adds its own terms in ascending k, alone up to where all have
        // started). Column j + 1's last term needs L_aj, L_bj: it comes after them.
        const j1 = j + 1;
        const rj1 = rowBase[j1]!;
        const fj1 = first[j1]!;
        const sa0 = fa > fj ? fa : fj;
        const sb0 = fb > fj ? fb : fj;
        const sa1 = fa > fj1 ? fa : fj1;
        const sb1 = fb > fj1 ? fb : fj1;
        let common = sa0 > sb0 ? sa0 : sb0;
        common = common > sa1 ? common : sa1;
        common = common > sb1 ? common : sb1;
        common = common < j ? common : j;
        let xa0 = l[ra + j]!;
        let xb0 = l[rb + j]!;
        let xa1 = l[ra + j1]!;
        let xb1 = l[rb + j1]!;
        for (let k = sa0; k < common; k++) {
          xa0 -= l[ra + k]! * l[rj + k]!;
        }
        for (let k = sb0; k < common; k++) {
          xb0 -= l[rb + k]! * l[rj + k]!;
        }
        for (let k = sa1; k < common; k++) {
          xa1 -= l[ra + k]! * l[rj1 + k]!;
        }
        for (let k = sb1; k < common; k++) {
          xb1 -= l[rb + k]! * l[rj1 + k]!;
        }
        for (let k = common; k < j; k++) {
          const lak = l[ra + k]!;
          const lbk = l[rb + k]!;
          const ljk = l[rj + k]!;
          const lj1k = l[rj1 + k]!;
          xa0 -= lak * ljk;
          xb0 -= lbk * ljk;
          xa1 -= lak * lj1k;
          xb1 -= lbk * lj1k;
        }
        const laj = xa0 * inv[j]!;
        const lbj = xb0 * inv[j]!;
        l[ra + j] = laj;
        l[rb + j] = lbj;
        if (sa1 <= j) {
          xa1 -= laj * l[rj1 + j]!;
        }
        if (sb1 <= j) {
          xb1 -= lbj * l[rj1 + j]!;
        }
        l[ra + j1] = xa1 * inv[j1]!;
        l[rb + j1] = xb1 * inv[j1]!;
        j++;
        continue;
      }
      const sa = fa > fj ? fa : fj;
      const sb = fb > fj ? fb : fj;
      let xa = l[ra + j]!;
      let xb = l[rb + j]!;
      // The chain that starts earlier runs alone up to where the other one starts.
      let k = sa < sb ? sa : sb;
      for (; k < sb; k++) {
        xa -= l[ra + k]! * l[rj + k]!;
      }
      for (; k < sa; k++) {
        xb -= l[rb + k]! * l[rj + k]!;
      }
      for (; k < j; k++) {
        const ljk = l[rj + k]!;
        xa -= l[ra + k]! * ljk;
        xb -= l[rb + k]! * ljk;
      }
      l[ra + j] = xa * inv[j]!;
      l[rb + j] = xb * inv[j]!;
    }
    if (!pivot(l, ra, fa, a, inv)) {
      return false;
    }
    if (fb <= a) {
      let x = l[rb + a]!;
      for (let k = fb > fa ? fb : fa; k < a; k++) {
        x -= l[rb + k]! * l[ra + k]!;
      }
      l[rb + a] = x * inv[a]!;
    }
    if (!pivot(l, rb, fb, b, inv)) {
      return false;
    }
  }
  return a < n ? factorRow(l, a, first, rowBase, inv) : true;
}

/**
 * `envelopeCholesky` over a narrower envelope: each row starts at its first non-zero entry at or
 * after `first[i]` (written to `start` by `trimmedStarts`), so the leading zeros of a row are
 * neither computed nor read. Requires that no entry of the envelope is −0 (true of sums begun at
 * +0, such as JᵀJ assembled from a zero fill). Then the result is `envelopeCholesky(l, n, first,
 * …)`'s bit for bit, the skipped entries keeping the +0 the wider factorization computes for them,
 * and the return value is the same.
 *
 * Why: an entry before a row's first non-zero is (+0 − Σ (+0)·L_jk)·(1/L_jj) = +0, as the rows
 * before are finite when reached; every other sum only loses terms (+0)·x or x·(+0) with x
 * finite, i.e. ±0, and subtracting ±0 leaves a running value that is not −0 unchanged (the sums
 * start at an entry, never −0, and x − y is −0 only for x = −0). A row whose sums meet a
 * non-finite value fails its pivot either way.
 */
export function envelopeCholeskyTrimmed(
  l: Float64Array,
  n: number,
  first: Int32Array,
  rowBase: Int32Array,
  inv: Float64Array,
  start: Int32Array,
): boolean {
  trimmedStarts(l, n, first, rowBase, start);
  return envelopeCholesky(l, n, start, rowBase, inv);
}

/**
 * The narrower envelope `envelopeCholeskyTrimmed` factorizes: per row, the column of its first
 * non-zero entry at or after `first[i]` (i when there is none before the diagonal), into `start`.
 */
export function trimmedStarts(l: Float64Array, n: number, first: Int32Array, rowBase: Int32Array, start: Int32Array): void {
  for (let i = 0; i < n; i++) {
    const ri = rowBase[i]!;
    let j = first[i]!;
    while (j < i && l[ri + j] === 0) {
      j++;
    }
    start[i] = j;
  }
}

/** Row i of L from the rows before it, then its pivot; false when the pivot is not finite > 0. */
function factorRow(l: Float64Array, i: number, first: Int32Array, rowBase: Int32Array, inv: Float64Array): boolean {
  const ri = rowBase[i]!;
  const fi = first[i]!;
  for (let j = fi; j < i; j++) {
    const start = fi > first[j]! ? fi : first[j]!;
    l[ri + j] = subtractDot(l[ri + j]!, l, ri + start, l, rowBase[j]! + start, j - start) * inv[j]!;
  }
  return pivot(l, ri, fi, i, inv);
}

/** Row i's diagonal entry from its finished off-diagonal entries; false when not a finite pivot > 0. */
function pivot(l: Float64Array, ri: number, fi: number, i: number, inv: Float64Array): boolean {
  const d = subtractDot(l[ri + i]!, l, ri + fi, l, ri + fi, i - fi);
  if (!(d > 0) || !Number.isFinite(d)) {
    return false;
  }
  const lii = Math.sqrt(d);
  l[ri + i] = lii;
  inv[i] = 1 / lii;
  return true;
}

/**
 * The same factorization one row after the other (the definition `envelopeCholesky` keeps bit
 * for bit; kept as its test oracle and for reading).
 */
export function envelopeCholeskyRows(
  l: Float64Array,
  n: number,
  first: Int32Array,
  rowBase: Int32Array,
  inv: Float64Array,
): boolean {
  for (let i = 0; i < n; i++) {
    if (!factorRow(l, i, first, rowBase, inv)) {
      return false;
    }
  }
  return true;
}
