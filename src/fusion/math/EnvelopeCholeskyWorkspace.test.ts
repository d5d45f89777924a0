import fc from "fast-check";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";

import { EnvelopeCholeskyWorkspace } from "./EnvelopeCholeskyWorkspace";
import { envelopeCholeskyTrimmed } from "./envelopeCholesky";
import { envelopeSolve } from "./envelopeSolve";
import { arbitrarySkyline, skyline, skylineWithZeros, type Skyline } from "./testing/skyline";
import { ENVELOPE_CHOLESKY_BYTES_FILE, envelopeCholeskyModuleFile } from "../../../scripts/wasmModule";

/** Index of the first entry where the two arrays differ bit for bit (−0 against +0 too), or −1. */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
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

/** What the JavaScript functions compute from fresh arrays: the answer, factor, inverse pivots, starts. */
function reference(s: Skyline, inv0: Float64Array): { ok: boolean; l: Float64Array; inv: Float64Array; start: Int32Array } {
  const l = Float64Array.from(s.values);
  const inv = Float64Array.from(inv0);
  const start = new Int32Array(s.n);
  const ok = envelopeCholeskyTrimmed(l, s.n, s.first, s.rowBase, inv, start);
  return { ok, l, inv, start };
}

/** Factorizes `s` in the workspace; its answer and copies of the rows in use. */
function factorIn(ws: EnvelopeCholeskyWorkspace, s: Skyline, inv0: Float64Array): { ok: boolean; l: Float64Array; inv: Float64Array; start: Int32Array } {
  ws.setEnvelope(s.n, s.first, s.rowBase, s.values.length);
  ws.l.set(s.values);
  ws.inv.set(inv0);
  const ok = ws.factor();
  return { ok, l: ws.l.slice(0, s.values.length), inv: ws.inv.slice(0, s.n), start: ws.start.slice(0, s.n) };
}

function expectSame(
  got: { ok: boolean; l: Float64Array; inv: Float64Array; start: Int32Array },
  want: { ok: boolean; l: Float64Array; inv: Float64Array; start: Int32Array },
): void {
  expect(got.ok).toBe(want.ok);
  expect(firstDifference(got.l, want.l)).toBe(-1);
  expect(firstDifference(got.inv, want.inv)).toBe(-1);
  expect(Array.from(got.start)).toEqual(Array.from(want.start));
}

const rightHandSide = (n: number): fc.Arbitrary<Float64Array> =>
  fc.array(fc.double(), { minLength: n, maxLength: n }).map((v) => Float64Array.from(v));

describe("EnvelopeCholeskyWorkspace", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("runs as WebAssembly in Node, and as JavaScript when asked", () => {
    expect(new EnvelopeCholeskyWorkspace().webAssembly).toBe(true);
    expect(new EnvelopeCholeskyWorkspace(false).webAssembly).toBe(false);
  });

  it("factorizes as envelopeCholeskyTrimmed bit for bit: the answer, factor, inverse pivots and starts, also where a pivot fails part way or an entry is −0", () => {
    const wasm = new EnvelopeCholeskyWorkspace();
    const js = new EnvelopeCholeskyWorkspace(false);
    fc.assert(
      fc.property(fc.oneof(arbitrarySkyline, skylineWithZeros), fc.double({ noNaN: false }), fc.boolean(), (s, fill, negativeZero) => {
        if (negativeZero) {
          // Not the solver's case (its sums begin at +0), but both builds must still agree.
          s.values[s.values.length >> 1] = -0;
        }
        // The inverse pivots start filled: a failed factorization leaves the rows it did not reach as they were.
        const inv0 = new Float64Array(s.n).fill(fill);
        const want = reference(s, inv0);
        expectSame(factorIn(wasm, s, inv0), want);
        expectSame(factorIn(js, s, inv0), want);
      }),
      { numRuns: 1500 },
    );
  });

  it("solves as envelopeSolve bit for bit, for any right-hand side (infinities and NaN included)", () => {
    const ws = new EnvelopeCholeskyWorkspace();
    fc.assert(
      fc.property(
        skylineWithZeros.chain((s) => fc.tuple(fc.constant(s), rightHandSide(s.n), rightHandSide(s.n))),
        ([s, b1, b2]) => {
          const { ok, l, inv } = reference(s, new Float64Array(s.n));
          fc.pre(ok);
          factorIn(ws, s, new Float64Array(s.n));
          // Two solves with one factor, as the covariance's columns are solved.
          for (const b of [b1, b2]) {
            const want = Float64Array.from(b);
            envelopeSolve(l, s.n, s.first, s.rowBase, inv, want);
            const got = Float64Array.from(b);
            ws.solve(got);
            expect(firstDifference(got, want)).toBe(-1);
          }
        },
      ),
      { numRuns: 800 },
    );
  });

  it("grows its memory for a large envelope, then works on small ones in the same room, replacing its arrays only when it grows", () => {
    const ws = new EnvelopeCholeskyWorkspace();
    const small = skyline([0, 0, 1, 1], [0.5, -0.25], 3);
    expectSame(factorIn(ws, small, new Float64Array(4)), reference(small, new Float64Array(4)));
    const before = ws.l;
    // Block-tridiagonal as a fixed-lag window of 3D states: 4,000 rows, each reaching 29 columns back.
    const n = 4000;
    const large = skyline(Array.from({ length: n }, (_, i) => Math.max(0, i - 29)), [0.3, -0.2, 0.1, 0.05], 40);
    const want = reference(large, new Float64Array(n));
    expect(want.ok).toBe(true);
    expectSame(factorIn(ws, large, new Float64Array(n)), want);
    // The old view's memory has been replaced: it is detached, hence "read them after setEnvelope".
    expect(ws.l === before).toBe(false);
    expect(before.length).toBe(0);
    expect(ws.webAssembly).toBe(true);
    const grown = ws.l;
    const b = Float64Array.from({ length: n }, (_, i) => Math.sin(i));
    const expected = Float64Array.from(b);
    envelopeSolve(want.l, n, large.first, large.rowBase, want.inv, expected);
    ws.solve(b);
    expect(firstDifference(b, expected)).toBe(-1);
    expectSame(factorIn(ws, small, new Float64Array(4)), reference(small, new Float64Array(4)));
    expect(ws.l === grown).toBe(true);
  });

  it("goes on in JavaScript, with the same results, once its memory cannot grow", () => {
    vi.spyOn(WebAssembly.Memory.prototype, "grow").mockImplementation(() => {
      throw new RangeError("WebAssembly.Memory.grow(): Maximum memory size exceeded");
    });
    const ws = new EnvelopeCholeskyWorkspace();
    const n = 4000;
    const large = skyline(Array.from({ length: n }, (_, i) => Math.max(0, i - 29)), [0.3, -0.2, 0.1, 0.05], 40);
    expectSame(factorIn(ws, large, new Float64Array(n)), reference(large, new Float64Array(n)));
    expect(ws.webAssembly).toBe(false);
  });

  it("rejects a layout that points outside its entries, naming the row, before writing anything", () => {
    const ws = new EnvelopeCholeskyWorkspace();
    const s = skyline([0, 0, 1], [0.5], 3);
    expect(() => {
      ws.setEnvelope(s.n, s.first, Int32Array.from([0, 1, 40]), s.values.length);
    }).toThrow(/envelope row 2 .*outside its 5 entries/);
    expect(() => {
      ws.setEnvelope(3, Int32Array.from([0, 2, 1]), s.rowBase, s.values.length);
    }).toThrow(/envelope row 1 \(first column 2/);
  });

  it("the committed module is what scripts/build-wasm.ts compiles from assembly/ (run `npm run build:wasm` after changing it)", async () => {
    const committed = readFileSync(fileURLToPath(new URL(`../../../${ENVELOPE_CHOLESKY_BYTES_FILE}`, import.meta.url)), "utf8");
    expect(committed).toBe(await envelopeCholeskyModuleFile());
  }, 60_000);
});
