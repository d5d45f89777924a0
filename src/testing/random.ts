// Test and benchmark support (no production file imports it): the seeded generator the tests,
// the synthetic recordings and W3 (../shared/bench/W3.md) use.

/** mulberry32 from `seed`: each call returns the next uint32 draw (W3.md's generator). */
export function mulberry32Uint(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let z = Math.imul(a ^ (a >>> 15), a | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  };
}

/** mulberry32 from `seed` as numbers in [0, 1): the uint32 draw over 2^32. */
export function mulberry32(seed: number): () => number {
  const next = mulberry32Uint(seed);
  return () => next() / 4294967296;
}
