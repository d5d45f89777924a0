import type { RingBuffer } from "../state/RingBuffer";

/**
 * The smallest and largest `value` over every item of `rings`, as [min, max]: [Infinity,
 * -Infinity] when the rings are all empty, [NaN, NaN] once a value is NaN.
 */
export function valueRange<T>(rings: readonly RingBuffer<T>[], value: (item: T) => number): [min: number, max: number] {
  let min = Infinity;
  let max = -Infinity;
  for (const ring of rings) {
    for (let i = 0; i < ring.size; i++) {
      const v = value(ring.at(i)!);
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
  }
  return [min, max];
}
