/**
 * Checks that a row-major square-root information matrix has a whole number of rows of `cols`
 * entries and returns the row count. Throws RangeError naming `what` otherwise.
 */
export function checkSqrtInformation(a: ArrayLike<number>, cols: number, what: string): number {
  if (cols <= 0 || a.length % cols !== 0 || a.length === 0) {
    throw new RangeError(
      `${what}: square-root information has ${a.length} entries, expected a positive multiple of ${cols}`,
    );
  }
  return a.length / cols;
}
