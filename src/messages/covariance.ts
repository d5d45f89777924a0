/** A covariance check failure, in words fit for a drop detail. */
export interface CovarianceProblem {
  readonly problem: string;
}

/**
 * Reads a row-major n×n covariance (ROS stores 3×3 as 9 and 6×6 as 36 numbers) into rows. Returns
 * a CovarianceProblem when the length is not n², a value is not finite, the matrix is not
 * symmetric (relative tolerance 1e-9), or a diagonal entry is negative. Never throws.
 */
export function readCovariance(values: unknown, n: number): number[][] | CovarianceProblem {
  if (values == undefined || typeof (values as ArrayLike<number>).length !== "number") {
    return { problem: "covariance is missing" };
  }
  const v = values as ArrayLike<number>;
  if (v.length !== n * n) {
    return { problem: `covariance has ${v.length} values, expected ${n * n} (${n}×${n})` };
  }
  const rows: number[][] = [];
  for (let i = 0; i < n; i++) {
    const row: number[] = [];
    for (let j = 0; j < n; j++) {
      const x = v[i * n + j];
      if (typeof x !== "number" || !Number.isFinite(x)) {
        return { problem: `covariance[${i}][${j}] is ${String(x)}, not a finite number` };
      }
      row.push(x);
    }
    rows.push(row);
  }
  for (let i = 0; i < n; i++) {
    const d = rows[i]![i]!;
    if (d < 0) {
      return { problem: `covariance[${i}][${i}] is negative (${d})` };
    }
    for (let j = i + 1; j < n; j++) {
      const a = rows[i]![j]!;
      const b = rows[j]![i]!;
      if (Math.abs(a - b) > 1e-9 * Math.max(1, Math.abs(a), Math.abs(b))) {
        return { problem: `covariance is not symmetric: [${i}][${j}] = ${a} but [${j}][${i}] = ${b}` };
      }
    }
  }
  return rows;
}

/** Whether `readCovariance` failed. */
export function isCovarianceProblem(x: number[][] | CovarianceProblem): x is CovarianceProblem {
  return !Array.isArray(x);
}

/**
 * ROS's "this estimate is not provided" marker: the first element of the covariance is -1
 * (sensor_msgs/Imu's convention). Never throws.
 */
export function isCovarianceUnknown(values: unknown): boolean {
  const v = values as ArrayLike<number> | undefined;
  return v != undefined && typeof v.length === "number" && v.length > 0 && v[0] === -1;
}

/**
 * The sub-matrix of `rows` at the given row/column indices (fuse's way of picking e.g. x, y, yaw
 * out of a 6×6 pose covariance). Throws RangeError on an index outside the matrix.
 */
export function covarianceBlock(rows: readonly (readonly number[])[], indices: readonly number[]): number[][] {
  const n = rows.length;
  for (const i of indices) {
    if (!Number.isInteger(i) || i < 0 || i >= n) {
      throw new RangeError(`covariance index ${i} is outside the ${n}×${n} matrix`);
    }
  }
  return indices.map((i) => indices.map((j) => rows[i]![j]!));
}
