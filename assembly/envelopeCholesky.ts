// The envelope Cholesky factorization of src/fusion/math/envelopeCholesky.ts in AssemblyScript,
// compiled to WebAssembly by scripts/build-wasm.ts (which writes
// src/fusion/math/envelopeCholeskyWasm.bytes.ts). The same schedule and every term in the same
// order as `envelopeCholesky`, so the factor is the same bit for bit (a test checks it against the
// JavaScript function); what differs is the machine code each compiles to: over 64 factorizations
// captured from jackal 3D's run, 100 µs against 140 µs each. Change both files together.
//
// Layout: the caller places l (f64), first (i32), rowBase (i32) and inv (f64) in this module's
// memory and passes their byte offsets.
let lp: usize = 0;
let fp: usize = 0;
let rp: usize = 0;
let ip: usize = 0;

@inline function L(i: i32): f64 { return load<f64>(lp + (<usize>i << 3)); }
@inline function SL(i: i32, v: f64): void { store<f64>(lp + (<usize>i << 3), v); }
@inline function F(i: i32): i32 { return load<i32>(fp + (<usize>i << 2)); }
@inline function R(i: i32): i32 { return load<i32>(rp + (<usize>i << 2)); }
@inline function INV(i: i32): f64 { return load<f64>(ip + (<usize>i << 3)); }
@inline function SINV(i: i32, v: f64): void { store<f64>(ip + (<usize>i << 3), v); }
@inline function mx(a: i32, b: i32): i32 { return a > b ? a : b; }
@inline function mn(a: i32, b: i32): i32 { return a < b ? a : b; }

function subtractDot(s: f64, pa: i32, pb: i32, count: i32): f64 {
  let r = s;
  let i = pa;
  let j = pb;
  const end = pa + count;
  for (; i + 3 < end; i += 4, j += 4) {
    r -= L(i) * L(j);
    r -= L(i + 1) * L(j + 1);
    r -= L(i + 2) * L(j + 2);
    r -= L(i + 3) * L(j + 3);
  }
  for (; i < end; i++, j++) {
    r -= L(i) * L(j);
  }
  return r;
}

function pivot(ri: i32, fi: i32, i: i32): bool {
  const d = subtractDot(L(ri + i), ri + fi, ri + fi, i - fi);
  if (!(d > 0) || !isFinite(d)) return false;
  const lii = Math.sqrt(d);
  SL(ri + i, lii);
  SINV(i, 1 / lii);
  return true;
}

function factorRow(i: i32): bool {
  const ri = R(i);
  const fi = F(i);
  for (let j = fi; j < i; j++) {
    const start = mx(fi, F(j));
    SL(ri + j, subtractDot(L(ri + j), ri + start, R(j) + start, j - start) * INV(j));
  }
  return pivot(ri, fi, i);
}

/** `envelopeCholesky(l, n, first, rowBase, inv)` over the arrays at these byte offsets. */
export function factor(l: usize, n: i32, first: usize, rowBase: usize, inv: usize): bool {
  lp = l; fp = first; rp = rowBase; ip = inv;
  let a = 0;
  for (; a + 1 < n; a += 2) {
    const b = a + 1;
    const ra = R(a);
    const rb = R(b);
    const fa = F(a);
    const fb = F(b);
    for (let j = mn(fa, fb); j < a; j++) {
      const rj = R(j);
      const fj = F(j);
      if (j < fb) {
        let x = L(ra + j);
        for (let k = mx(fa, fj); k < j; k++) x -= L(ra + k) * L(rj + k);
        SL(ra + j, x * INV(j));
        continue;
      }
      if (j < fa) {
        let x = L(rb + j);
        for (let k = mx(fb, fj); k < j; k++) x -= L(rb + k) * L(rj + k);
        SL(rb + j, x * INV(j));
        continue;
      }
      if (j + 1 < a) {
        const j1 = j + 1;
        const rj1 = R(j1);
        const fj1 = F(j1);
        const sa0 = mx(fa, fj);
        const sb0 = mx(fb, fj);
        const sa1 = mx(fa, fj1);
        const sb1 = mx(fb, fj1);
        let common = mx(sa0, sb0);
        common = mx(common, sa1);
        common = mx(common, sb1);
        common = mn(common, j);
        let xa0 = L(ra + j);
        let xb0 = L(rb + j);
        let xa1 = L(ra + j1);
        let xb1 = L(rb + j1);
        for (let k = sa0; k < common; k++) xa0 -= L(ra + k) * L(rj + k);
        for (let k = sb0; k < common; k++) xb0 -= L(rb + k) * L(rj + k);
        for (let k = sa1; k < common; k++) xa1 -= L(ra + k) * L(rj1 + k);
        for (let k = sb1; k < common; k++) xb1 -= L(rb + k) * L(rj1 + k);
        for (let k = common; k < j; k++) {
          const lak = L(ra + k);
          const lbk = L(rb + k);
          const ljk = L(rj + k);
          const lj1k = L(rj1 + k);
          xa0 -= lak * ljk;
          xb0 -= lbk * ljk;
          xa1 -= lak * lj1k;
          xb1 -= lbk * lj1k;
        }
        const laj = xa0 * INV(j);
        const lbj = xb0 * INV(j);
        SL(ra + j, laj);
        SL(rb + j, lbj);
        if (sa1 <= j) xa1 -= laj * L(rj1 + j);
        if (sb1 <= j) xb1 -= lbj * L(rj1 + j);
        SL(ra + j1, xa1 * INV(j1));
        SL(rb + j1, xb1 * INV(j1));
        j++;
        continue;
      }
      const sa = mx(fa, fj);
      const sb = mx(fb, fj);
      let xa = L(ra + j);
      let xb = L(rb + j);
      let k = mn(sa, sb);
      for (; k < sb; k++) xa -= L(ra + k) * L(rj + k);
      for (; k < sa; k++) xb -= L(rb + k) * L(rj + k);
      for (; k < j; k++) {
        const ljk = L(rj + k);
        xa -= L(ra + k) * ljk;
        xb -= L(rb + k) * ljk;
      }
      SL(ra + j, xa * INV(j));
      SL(rb + j, xb * INV(j));
    }
    if (!pivot(ra, fa, a)) return false;
    if (fb <= a) {
      let x = L(rb + a);
      for (let k = mx(fb, fa); k < a; k++) x -= L(rb + k) * L(ra + k);
      SL(rb + a, x * INV(a));
    }
    if (!pivot(rb, fb, b)) return false;
  }
  return a < n ? factorRow(a) : true;
}
