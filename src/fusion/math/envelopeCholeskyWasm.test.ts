import fc from "fast-check";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

import { envelopeCholesky, envelopeCholeskyTrimmed } from "./envelopeCholesky";
import { envelopeCholeskyWasm, envelopeCholeskyWasmAvailable } from "./envelopeCholeskyWasm";
import { arbitrarySkyline, skyline, skylineWithZeros, type Skyline } from "./testing/skyline";
import { ENVELOPE_CHOLESKY_BYTES_FILE, envelopeCholeskyModuleFile } from "../../../scripts/wasmModule";

/** Both factorizations of `s` from the same starting arrays: their answers, factors and inverse pivots. */
function both(s: Skyline, inv0: Float64Array): { js: [boolean, Float64Array, Float64Array]; wasm: [boolean, Float64Array, Float64Array] } {
  const run = (factorize: typeof envelopeCholesky): [boolean, Float64Array, Float64Array] => {
    const l = Float64Array.from(s.values);
    const inv = Float64Array.from(inv0);
    return [factorize(l, s.n, s.first, s.rowBase, inv), l, inv];
  };
  return { js: run(envelopeCholesky), wasm: run(envelopeCholeskyWasm) };
}

/** Index of the first entry where the two arrays differ bit for bit (−0 against +0 too), or −1. */
function firstDifference(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) {
    return 0;
  }
  for (let i = 0; i < a.length; i++) {
    if (!Object.is(a[i], b[i])) {
      return i;
    }
  }
  return -1;
}

describe("envelopeCholeskyWasm", () => {
  it("runs as WebAssembly in Node", () => {
    expect(envelopeCholeskyWasmAvailable()).toBe(true);
  });

  it("is envelopeCholesky bit for bit: the same answer, factor and inverse pivots, also where a pivot fails part way", () => {
    fc.assert(
      fc.property(fc.oneof(arbitrarySkyline, skylineWithZeros), fc.double({ noNaN: false }), (s, fill) => {
        // The inverse pivots start filled: a failed factorization leaves the rows it did not reach as they were.
        const { js, wasm } = both(s, new Float64Array(s.n).fill(fill));
        expect(wasm[0]).toBe(js[0]);
        expect(firstDifference(wasm[1], js[1])).toBe(-1);
        expect(firstDifference(wasm[2], js[2])).toBe(-1);
      }),
      { numRuns: 1500 },
    );
  });

  it("trimmed, as the solver calls it, is the JavaScript factorization bit for bit", () => {
    fc.assert(
      fc.property(skylineWithZeros, (s) => {
        fc.pre(s.values.every((v) => !Object.is(v, -0)));
        const lJs = Float64Array.from(s.values);
        const lWasm = Float64Array.from(s.values);
        const invJs = new Float64Array(s.n);
        const invWasm = new Float64Array(s.n);
        const okJs = envelopeCholeskyTrimmed(lJs, s.n, s.first, s.rowBase, invJs, new Int32Array(s.n));
        expect(envelopeCholeskyTrimmed(lWasm, s.n, s.first, s.rowBase, invWasm, new Int32Array(s.n), envelopeCholeskyWasm)).toBe(okJs);
        expect(firstDifference(lWasm, lJs)).toBe(-1);
        expect(firstDifference(invWasm, invJs)).toBe(-1);
      }),
      { numRuns: 500 },
    );
  });

  it("grows its memory for a large envelope and still factors small ones after it; spare capacity in the caller's arrays is left alone", () => {
    // Block-tridiagonal as a fixed-lag window of 3D states: 4,000 rows, each reaching 29 columns back.
    const n = 4000;
    const large = skyline(Array.from({ length: n }, (_, i) => Math.max(0, i - 29)), [0.3, -0.2, 0.1, 0.05], 40);
    const { js, wasm } = both(large, new Float64Array(n));
    expect(js[0]).toBe(true);
    expect(wasm[0]).toBe(true);
    expect(firstDifference(wasm[1], js[1])).toBe(-1);
    expect(firstDifference(wasm[2], js[2])).toBe(-1);
    const small = skyline([0, 0, 1, 1], [0.5, -0.25], 3);
    const spare = new Float64Array(small.values.length + 3).fill(7);
    spare.set(small.values);
    const inv = new Float64Array(6).fill(9);
    expect(envelopeCholeskyWasm(spare, small.n, small.first, small.rowBase, inv)).toBe(true);
    const l = Float64Array.from(small.values);
    const invJs = new Float64Array(6).fill(9);
    envelopeCholesky(l, small.n, small.first, small.rowBase, invJs);
    expect(firstDifference(spare.subarray(0, l.length), l)).toBe(-1);
    expect(Array.from(spare.subarray(l.length))).toEqual([7, 7, 7]);
    expect(firstDifference(inv, invJs)).toBe(-1);
  });

  it("falls back to JavaScript for an envelope that does not fit the arrays given", () => {
    const s = skyline([0, 0, 1], [0.5], 3);
    // rowBase pointing past the end of l: the JavaScript function reads undefined (NaN) and fails a pivot.
    const rowBase = Int32Array.from([0, 1, 40]);
    const lJs = Float64Array.from(s.values);
    const lWasm = Float64Array.from(s.values);
    const okJs = envelopeCholesky(lJs, s.n, s.first, rowBase, new Float64Array(3));
    expect(envelopeCholeskyWasm(lWasm, s.n, s.first, rowBase, new Float64Array(3))).toBe(okJs);
    expect(firstDifference(lWasm, lJs)).toBe(-1);
  });

  it("the committed module is what scripts/build-wasm.ts compiles from assembly/envelopeCholesky.ts (run `npm run build:wasm` after changing it)", async () => {
    const committed = readFileSync(fileURLToPath(new URL(`../../../${ENVELOPE_CHOLESKY_BYTES_FILE}`, import.meta.url)), "utf8");
    expect(committed).toBe(await envelopeCholeskyModuleFile());
  }, 60_000);
});
