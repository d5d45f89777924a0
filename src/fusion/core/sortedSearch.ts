/** Binary searches over an ascending array of numbers (stamps); O(log n), no allocation. */

/** The first index `i` with `a[i] > x` (`a.length` when none). */
export function upperBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/** The first index `i` with `a[i] >= x` (`a.length` when none). */
export function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
