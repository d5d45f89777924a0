import { predictOmnidirectional3D } from "./omnidirectional3d";

/** The predicted second state as the 5 blocks [p, q, v, ω, a] (tests' helper). */
export function omnidirectional3DPredictState(blocks: readonly Float64Array[], dt: number): Float64Array[] {
  const s = new Float64Array(16);
  let k = 0;
  for (const b of blocks) {
    s.set(b, k);
    k += b.length;
  }
  const out = new Float64Array(16);
  predictOmnidirectional3D(s, dt, out);
  return [out.slice(0, 3), out.slice(3, 7), out.slice(7, 10), out.slice(10, 13), out.slice(13, 16)];
}
