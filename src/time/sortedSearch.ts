/**
 * Binary searches over ascending numbers (stamps, event indices): the one lower/upper bound the
 * layers share. O(log n), no allocation; `from`/`to` narrow the search to `a[from..to)`.
 */

/** The first index `i` in `[from, to)` with `a[i] >= x` (`to` when none). */
export function lowerBound(a: ArrayLike<number>, x: number, from = 0, to = a.length): number {
  let lo = from;
  let hi = to;
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

/** The first index `i` in `[from, to)` with `a[i] > x` (`to` when none). */
export function upperBound(a: ArrayLike<number>, x: number, from = 0, to = a.length): number {
  let lo = from;
  let hi = to;
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

/**
 * The first index `i` in `[0, n)` with `keyAt(i) >= x` (`n` when none), for keys reached through
 * an index (a ring buffer, a list of event numbers). `keyAt` must ascend with `i`.
 */
export function lowerBoundBy(n: number, keyAt: (i: number) => number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyAt(mid) < x) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
