import { subtractDot } from "./dense";

/**
 * Solves L·Lᵀ·x = b in place, L an envelope (skyline) Cholesky factor as `envelopeCholesky`
 * leaves it (row i over columns `first[i]` … i at `l[rowBase[i] + j]`, `inv[i]` = 1/L_ii).
 *
 * Every value is `envelopeSolveRows`'s bit for bit: the same terms subtracted one at a time in the
 * same order. Only the schedule differs: rows are taken two at a time. Forward, row i + 1's sum
 * over the columns before i runs beside row i's (two independent chains instead of one twice as
 * long), its term for column i last; backward, rows i and i − 1 update each earlier b[k] in one
 * pass, row i's term first as the row-by-row loop does.
 */
export function envelopeSolve(
  l: Float64Array,
  n: number,
  first: Int32Array,
  rowBase: Int32Array,
  inv: Float64Array,
  b: Float64Array,
): void {
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const j = i + 1;
    const ri = rowBase[i]!;
    const rj = rowBase[j]!;
    const fi = first[i]!;
    const fj = first[j]!;
    let xi = b[i]!;
    let xj = b[j]!;
    // The chain that starts earlier runs alone up to where the other one starts.
    let k = fi < fj ? fi : fj;
    for (; k < fj && k < i; k++) {
      xi -= l[ri + k]! * b[k]!;
    }
    for (; k < fi; k++) {
      xj -= l[rj + k]! * b[k]!;
    }
    for (; k < i; k++) {
      const bk = b[k]!;
      xi -= l[ri + k]! * bk;
      xj -= l[rj + k]! * bk;
    }
    xi *= inv[i]!;
    b[i] = xi;
    if (fj <= i) {
      xj -= l[rj + i]! * xi;
    }
    b[j] = xj * inv[j]!;
  }
  if (i < n) {
    const fi = first[i]!;
    b[i] = subtractDot(b[i]!, l, rowBase[i]! + fi, b, fi, i - fi) * inv[i]!;
  }
  i = n - 1;
  for (; i >= 1; i -= 2) {
    const h = i - 1;
    const ri = rowBase[i]!;
    const rh = rowBase[h]!;
    const fi = first[i]!;
    const fh = first[h]!;
    const xi = b[i]! * inv[i]!;
    b[i] = xi;
    let bh = b[h]!;
    if (fi <= h) {
      bh -= l[ri + h]! * xi;
    }
    const xh = bh * inv[h]!;
    b[h] = xh;
    // Columns k < h: row i's term, then row h's, where each row reaches.
    let k = fi < fh ? fi : fh;
    for (; k < fh && k < h; k++) {
      b[k] = b[k]! - l[ri + k]! * xi;
    }
    for (; k < fi && k < h; k++) {
      b[k] = b[k]! - l[rh + k]! * xh;
    }
    for (; k < h; k++) {
      b[k] = b[k]! - l[ri + k]! * xi - l[rh + k]! * xh;
    }
  }
  if (i === 0) {
    b[0] = b[0]! * inv[0]!;
  }
}

/**
 * The same solve one row after the other (the definition `envelopeSolve` keeps bit for bit; kept
 * as its test oracle and for reading).
 */
export function envelopeSolveRows(
  l: Float64Array,
  n: number,
  first: Int32Array,
  rowBase: Int32Array,
  inv: Float64Array,
  b: Float64Array,
): void {
  for (let i = 0; i < n; i++) {
    const fi = first[i]!;
    b[i] = subtractDot(b[i]!, l, rowBase[i]! + fi, b, fi, i - fi) * inv[i]!;
  }
  for (let i = n - 1; i >= 0; i--) {
    const ri = rowBase[i]!;
    const xi = b[i]! * inv[i]!;
    b[i] = xi;
    for (let k = first[i]!; k < i; k++) {
      b[k] = b[k]! - l[ri + k]! * xi;
    }
  }
}
