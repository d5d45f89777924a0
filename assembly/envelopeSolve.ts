// The solve with an envelope Cholesky factor of src/fusion/math/envelopeSolve.ts in
// AssemblyScript, compiled into the same WebAssembly module as assembly/envelopeCholesky.ts by
// scripts/build-wasm.ts. The same schedule and every term in the same order as `envelopeSolve`,
// so the answer is the same bit for bit (a test checks it against the JavaScript function).
// Change both files together.
//
// Layout: the caller places l (f64), first (i32), rowBase (i32), inv (f64) and b (f64) in this
// module's memory and passes their byte offsets.
let lp: usize = 0;
let fp: usize = 0;
let rp: usize = 0;
let ip: usize = 0;
let bp: usize = 0;

@inline function L(i: i32): f64 { return load<f64>(lp + (<usize>i << 3)); }
@inline function F(i: i32): i32 { return load<i32>(fp + (<usize>i << 2)); }
@inline function R(i: i32): i32 { return load<i32>(rp + (<usize>i << 2)); }
@inline function INV(i: i32): f64 { return load<f64>(ip + (<usize>i << 3)); }
@inline function B(i: i32): f64 { return load<f64>(bp + (<usize>i << 3)); }
@inline function SB(i: i32, v: f64): void { store<f64>(bp + (<usize>i << 3), v); }

/** `envelopeSolve(l, n, first, rowBase, inv, b)` over the arrays at these byte offsets. */
export function solve(l: usize, n: i32, first: usize, rowBase: usize, inv: usize, b: usize): void {
  lp = l; fp = first; rp = rowBase; ip = inv; bp = b;
  let i = 0;
  for (; i + 1 < n; i += 2) {
    const j = i + 1;
    const ri = R(i);
    const rj = R(j);
    const fi = F(i);
    const fj = F(j);
    let xi = B(i);
    let xj = B(j);
    let k = fi < fj ? fi : fj;
    for (; k < fj && k < i; k++) xi -= L(ri + k) * B(k);
    for (; k < fi; k++) xj -= L(rj + k) * B(k);
    for (; k < i; k++) {
      const bk = B(k);
      xi -= L(ri + k) * bk;
      xj -= L(rj + k) * bk;
    }
    xi *= INV(i);
    SB(i, xi);
    if (fj <= i) xj -= L(rj + i) * xi;
    SB(j, xj * INV(j));
  }
  if (i < n) {
    const fi = F(i);
    const ri = R(i);
    let r = B(i);
    let a = ri + fi;
    let c = fi;
    const end = a + (i - fi);
    for (; a + 3 < end; a += 4, c += 4) {
      r -= L(a) * B(c);
      r -= L(a + 1) * B(c + 1);
      r -= L(a + 2) * B(c + 2);
      r -= L(a + 3) * B(c + 3);
    }
    for (; a < end; a++, c++) r -= L(a) * B(c);
    SB(i, r * INV(i));
  }
  i = n - 1;
  for (; i >= 1; i -= 2) {
    const h = i - 1;
    const ri = R(i);
    const rh = R(h);
    const fi = F(i);
    const fh = F(h);
    const xi = B(i) * INV(i);
    SB(i, xi);
    let bh = B(h);
    if (fi <= h) bh -= L(ri + h) * xi;
    const xh = bh * INV(h);
    SB(h, xh);
    let k = fi < fh ? fi : fh;
    for (; k < fh && k < h; k++) SB(k, B(k) - L(ri + k) * xi);
    for (; k < fi && k < h; k++) SB(k, B(k) - L(rh + k) * xh);
    for (; k < h; k++) SB(k, B(k) - L(ri + k) * xi - L(rh + k) * xh);
  }
  if (i == 0) SB(0, B(0) * INV(0));
}
