/**
 * A new Float64Array holding `values` (each converted as a typed-array store converts it, the
 * same as `Float64Array.from(values)` gives for an array or typed array). Written as a plain loop:
 * `Float64Array.from` goes through the iterator protocol and costs about twice as much, and
 * variables and constraints copy their values on every construction and clone.
 */
export function copyNumbers(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = values[i]!;
  }
  return out;
}
