// Backing arrays of the policies' per-slot rings (internal; not re-exported).
//
// V8 keeps a JavaScript array's elements in the array's own heap store, one load from the array,
// where a typed array above 64 bytes keeps them off the heap behind two pointers (base and
// external) that each access combines first. `new Array(n).fill(x)` makes a holey array, whose
// every load also tests for a hole. Built by `push` from empty, an array is packed and keeps its
// elements kind as long as only values of that kind are stored and it never grows by index, which
// the rings guarantee (positions are masked below the capacity). On W3 (alternated processes)
// fkie's ApproximateTime alone is about 3 % faster this way, ROS's 0.3–1.6 %.

/**
 * The first value of a number that must be held as a double: not a small integer, so an array
 * element or an object field that starts with it is a double from the start (V8 then stores the
 * stamps written later in place). A field that starts as a small integer, or is declared without a
 * value, is generalized at the first stamp and can end up boxing every stamp stored into it.
 */
export const DOUBLE_SEED = 0.5;

/**
 * A packed array of `n` doubles (V8's PACKED_DOUBLE_ELEMENTS from the first element on, whatever
 * numbers are stored later, integers included), each {@link DOUBLE_SEED} until overwritten.
 */
export function packedDoubles(n: number): number[] {
  const a: number[] = [];
  for (let i = 0; i < n; i++) {
    a.push(DOUBLE_SEED);
  }
  return a;
}

/** A packed array of `n` positions, each `undefined` (V8's PACKED_ELEMENTS, no hole tests). */
export function packedSlots<T>(n: number): (T | undefined)[] {
  const a: (T | undefined)[] = [];
  for (let i = 0; i < n; i++) {
    a.push(undefined);
  }
  return a;
}
