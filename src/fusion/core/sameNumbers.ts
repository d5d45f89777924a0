/**
 * Whether two number sequences have the same length and equal entries to the bit: `Object.is`
 * per entry, so +0 and −0 differ and NaN equals NaN (the test for reusing what was computed from
 * equal inputs).
 */
export function sameNumbers(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) {
    return false;
  }
  for (let i = 0; i < a.length; i++) {
    if (!Object.is(a[i], b[i])) {
      return false;
    }
  }
  return true;
}
