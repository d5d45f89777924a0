/**
 * A small dense row-major matrix of doubles: the shape every mean, covariance and
 * sqrt-information matrix in the fusion layer uses. Plain data (no methods) so that it copies and
 * serializes trivially; helpers live in `linalg.ts`.
 */
export interface Matrix {
  /** Number of rows. */
  readonly rows: number;
  /** Number of columns. */
  readonly cols: number;
  /** Row-major entries: element (i, j) is `data[i * cols + j]`. Length `rows * cols`. */
  readonly data: Float64Array;
}

/** A zero matrix of the given shape. */
export function zeros(rows: number, cols: number): Matrix {
  return { rows, cols, data: new Float64Array(rows * cols) };
}

/** An identity matrix of size n. */
export function identity(n: number): Matrix {
  const m = zeros(n, n);
  for (let i = 0; i < n; i++) {
    m.data[i * n + i] = 1;
  }
  return m;
}

/** A diagonal matrix from its diagonal entries. */
export function diagonal(values: ArrayLike<number>): Matrix {
  const n = values.length;
  const m = zeros(n, n);
  for (let i = 0; i < n; i++) {
    m.data[i * n + i] = values[i]!;
  }
  return m;
}

/** A matrix from nested rows. Throws RangeError when the rows are ragged. */
export function fromRows(rows: readonly (readonly number[])[]): Matrix {
  const r = rows.length;
  const c = r === 0 ? 0 : rows[0]!.length;
  const m = zeros(r, c);
  for (let i = 0; i < r; i++) {
    const row = rows[i]!;
    if (row.length !== c) {
      throw new RangeError(`matrix row ${i} has ${row.length} entries, expected ${c}`);
    }
    for (let j = 0; j < c; j++) {
      m.data[i * c + j] = row[j]!;
    }
  }
  return m;
}

/** Nested rows of a matrix (the JSON form of DESIGN §3.4). */
export function toRows(m: Matrix): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < m.rows; i++) {
    out.push(Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)));
  }
  return out;
}

/** Element (i, j). */
export function at(m: Matrix, i: number, j: number): number {
  return m.data[i * m.cols + j]!;
}
