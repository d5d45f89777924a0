import { JacobianColumns } from "./JacobianColumns";
import { MarginalConstraint } from "./MarginalConstraint";
import { costFunctionFor, type ConstraintCost } from "./costFunctionFor";
import { Transaction, VARIABLE_TYPES, type Constraint, type Matrix, type ReadonlyGraph } from "../core";
import { copyNumbers } from "../core/copyNumbers";
import { Corrector } from "../math/Corrector";
import {
  backSubstituteInPlace,
  choleskyInPlace,
  forwardSubstituteInPlace,
  lowerEnvelope,
  symmetricEigenInPlace,
  type Envelope,
} from "../math/dense";

/** Relative eigenvalue below which a direction of a singular information matrix is dropped. */
const RANK_TOLERANCE = 1e-12;

/**
 * fuse_constraints::marginalizeVariables (reference/fuse.md §2.3, §6.4): a transaction that
 * removes the given variables and every constraint attached to them, and adds a
 * `MarginalConstraint` carrying the information those constraints held about the remaining
 * variables they touch.
 *
 * Every removed constraint is linearized at the current values (with Ceres' robust-loss
 * correction, as fuse does), the marginalized block is eliminated by a Schur complement
 * `H' = H_kk − H_km·H_mm⁻¹·H_mk`, `g' = g_k − H_km·H_mm⁻¹·g_m`, and `H'`, `g'` are written as
 * `r = b + A·(x ⊟ x̄)` with `AᵀA = H'`, `Aᵀb = g'` (Cholesky; for a singular `H'` an
 * eigen-decomposition keeps only the informative directions). fuse eliminates variable by
 * variable with dense QR and may emit several marginal constraints; this emits one over all the
 * remaining neighbours, which carries exactly the same information.
 *
 * @param source the constraint source (the optimizer's name).
 * @param stamp the transaction stamp.
 * @param costOf a constraint's cost function and loss (default `costFunctionFor`): an optimizer
 * hands over the ones its solver built, equal in every number.
 * @throws RangeError when a constraint cannot be evaluated (unknown type, non-finite Jacobian).
 */
export function marginalizeVariables(
  source: string,
  uuids: readonly string[],
  graph: ReadonlyGraph,
  stamp: number,
  costOf: (constraint: Constraint) => ConstraintCost = costFunctionFor,
): Transaction {
  const tx = new Transaction(stamp);
  if (uuids.length === 0) {
    return tx;
  }
  const marginalized = new Set(uuids);
  const constraints: Constraint[] = [];
  const seen = new Set<string>();
  for (const u of uuids) {
    tx.removeVariable(u);
    if (!graph.variableExists(u)) {
      continue;
    }
    for (const c of graph.getConnectedConstraints(u)) {
      if (!seen.has(c.uuid)) {
        seen.add(c.uuid);
        constraints.push(c);
        tx.removeConstraint(c.uuid);
      }
    }
  }
  // Column layout: marginalized variables first, then the kept neighbours in order of appearance.
  const order: string[] = [];
  const offset = new Map<string, number>();
  let dm = 0;
  for (const u of uuids) {
    if (graph.variableExists(u) && !offset.has(u)) {
      offset.set(u, dm);
      order.push(u);
      dm += graph.getVariable(u).localSize;
    }
  }
  const kept: string[] = [];
  let d = dm;
  for (const c of constraints) {
    for (const v of c.variables) {
      if (!offset.has(v) && !marginalized.has(v)) {
        offset.set(v, d);
        kept.push(v);
        d += graph.getVariable(v).localSize;
      }
    }
  }
  const dk = d - dm;
  if (dk === 0) {
    return tx;
  }

  // H = JᵀJ (full, symmetric) and g = Jᵀr over the removed constraints. The buffers are reused
  // between calls (one marginalization per optimizer cycle); the accumulation order is fixed.
  const scratch = SCRATCH;
  const h = scratch.zeroed("h", d * d);
  const g = scratch.zeroed("g", d);
  // Per row of H, a column left of which no constraint writes (the lowest column of any
  // constraint on the row's variable): the factorization's envelope scan starts there.
  const zeroBefore = scratch.rows("zeroBefore", d);
  for (let i = 0; i < d; i++) {
    zeroBefore[i] = i;
  }
  const rho = scratch.rho;
  const corrector = scratch.corrector;
  const sizes: number[] = [];
  const params: Float64Array[] = [];
  const offs: number[] = [];
  const jac: Float64Array[] = [];
  for (const c of constraints) {
    const { cost, loss } = costOf(c);
    const m = cost.numResiduals;
    const k = c.variables.length;
    sizes.length = k;
    params.length = k;
    offs.length = k;
    jac.length = k;
    let lowest = d;
    for (let a = 0; a < k; a++) {
      const v = c.variables[a]!;
      const variable = graph.getVariable(v);
      params[a] = variable.data;
      sizes[a] = variable.localSize;
      offs[a] = offset.get(v)!;
      jac[a] = scratch.jacobian(a, m * sizes[a]!);
      lowest = Math.min(lowest, offs[a]!);
    }
    for (let a = 0; a < k; a++) {
      for (let row = offs[a]!, end = row + sizes[a]!; row < end; row++) {
        if (lowest < zeroBefore[row]!) {
          zeroBefore[row] = lowest;
        }
      }
    }
    const r = scratch.zeroed("r", m);
    const ok = cost.evaluate(params, r, jac);
    let finite = ok;
    for (let q = 0; q < m && finite; q++) {
      finite = Number.isFinite(r[q]);
    }
    for (let a = 0; a < k && finite; a++) {
      const j = jac[a]!;
      for (let e = 0, size = m * sizes[a]!; e < size && finite; e++) {
        finite = Number.isFinite(j[e]);
      }
    }
    if (!finite) {
      throw new RangeError(
        `cannot marginalize: constraint ${c.uuid} (${c.type}) gave a non-finite residual or Jacobian`,
      );
    }
    if (loss) {
      let s = 0;
      for (let i = 0; i < m; i++) {
        s += r[i]! * r[i]!;
      }
      loss.evaluate(s, rho);
      corrector.reset(s, rho);
      for (let a = 0; a < k; a++) {
        corrector.correctJacobian(r, m, jac[a]!, sizes[a]!);
      }
      corrector.correctResiduals(r, m);
    }
    accumulateNormalEquations(h, g, d, r, m, jac, sizes, offs);
  }

  // Schur complement onto the kept block.
  const { hk, gk } = schurComplement(h, g, d, dm, zeroBefore, scratch);
  const factor = sqrtInformation(hk, gk, dk, scratch);
  if (factor == undefined) {
    return tx;
  }
  const { a, b, rows } = factor;
  const blocks: Matrix[] = [];
  const points: Float64Array[] = [];
  const angular: boolean[][] = [];
  for (const v of kept) {
    const variable = graph.getVariable(v);
    const size = variable.localSize;
    const o = offset.get(v)! - dm;
    const block = new Float64Array(rows * size);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < size; c++) {
        block[r * size + c] = a[r * dk + o + c]!;
      }
    }
    blocks.push({ rows, cols: size, data: block });
    points.push(copyNumbers(variable.data));
    const wraps = VARIABLE_TYPES[variable.type]?.wrapsAngle === true;
    angular.push(new Array<boolean>(size).fill(wraps));
  }
  tx.addConstraint(
    new MarginalConstraint({ source, variables: kept, a: blocks, b, linearizationPoints: points, angular }),
  );
  return tx;
}

/**
 * Adds one residual block's `Jᵀr` to g and `JᵀJ` to H (full, d × d). With distinct variables each
 * symmetric pair of entries is computed once: every entry still receives the same single sum,
 * term by term, as the plain loop over all rows and both triangles. When the gathered columns
 * list their `partners`, only those pairs are added: every other pair's sum is +0, which leaves an
 * entry of H as it was (H starts at +0 and is only added to, so no entry is −0); with a finite r,
 * `Jᵀr` adds only each column's non-zero rows (the other terms are ±0), the same bits. Each
 * Jacobian `jac[a]` is `m × sizes[a]` row-major, its columns at `offs[a]` … in H. Exported for its
 * tests; not re-exported by the package.
 */
export function accumulateNormalEquations(
  h: Float64Array,
  g: Float64Array,
  d: number,
  r: Float64Array,
  m: number,
  jac: readonly Float64Array[],
  sizes: readonly number[],
  offs: readonly number[],
): void {
  const scratch = SCRATCH;
  const k = jac.length;
  let distinct = true;
  for (let a = 1; a < k; a++) {
    for (let b = 0; b < a; b++) {
      distinct &&= offs[b] !== offs[a];
    }
  }
  const columns = scratch.columns;
  let count = 0;
  for (let a = 0; a < k; a++) {
    count += sizes[a]!;
  }
  // Columns in gather order; `at` maps each to its row and column of H.
  const order = scratch.rows("order", count);
  const at = scratch.rows("at", count);
  for (let a = 0, p = 0; a < k; a++) {
    for (let i = 0; i < sizes[a]!; i++, p++) {
      order[p] = p;
      at[p] = offs[a]! + i;
    }
  }
  const c = columns.gather(jac, k, sizes, m, order, 0);
  let rFinite = true;
  for (let q = 0; q < m; q++) {
    // v − v is 0 exactly for finite v.
    const v = r[q]!;
    rFinite &&= v - v === 0;
  }
  const partners = columns.paired ? columns.partners : undefined;
  for (let p = 0; p < c; p++) {
    if (columns.isZero(p)) {
      continue;
    }
    const xp = at[p]!;
    g[xp] = g[xp]! + (rFinite ? columns.dotFiniteResidual(p, r) : columns.dotResidual(p, r));
    if (partners) {
      // Only the columns sharing a non-zero row with p (t ≤ p when distinct), in ascending t.
      const mask = distinct ? -1 >>> (31 - p) : -1;
      for (let pairs = partners[p]! & mask; pairs !== 0; pairs &= pairs - 1) {
        const t = 31 - Math.clz32(pairs & -pairs);
        const xt = at[t]!;
        const v = columns.dot(p, t);
        h[xp * d + xt] = h[xp * d + xt]! + v;
        if (distinct && t !== p) {
          h[xt * d + xp] = h[xt * d + xp]! + v;
        }
      }
      continue;
    }
    for (let t = 0; t < (distinct ? p + 1 : c); t++) {
      const xt = at[t]!;
      const v = columns.dot(p, t);
      h[xp * d + xt] = h[xp * d + xt]! + v;
      if (distinct && t !== p) {
        h[xt * d + xp] = h[xt * d + xp]! + v;
      }
    }
  }
}

/**
 * Buffers reused across calls (module-private; marginalization is synchronous, so calls never
 * overlap). Only the first `size` entries of a buffer are meaningful.
 */
class Scratch {
  readonly rho = new Float64Array(3);
  readonly corrector = new Corrector();
  readonly columns = new JacobianColumns();
  readonly #named = new Map<string, Float64Array>();
  readonly #jacobians: Float64Array[] = [];
  readonly #ints = new Map<string, Int32Array>();
  #envelope: Envelope | undefined;

  /** A buffer of at least `size` entries whose first `size` are zero. */
  public zeroed(name: string, size: number): Float64Array {
    const b = this.#named.get(name);
    if (b == undefined || b.length < size) {
      return this.buffer(name, size);
    }
    b.fill(0, 0, size);
    return b;
  }

  /** A buffer of at least `size` entries (contents undefined). */
  public buffer(name: string, size: number): Float64Array {
    let b = this.#named.get(name);
    if (b == undefined || b.length < size) {
      b = new Float64Array(Math.max(size, 2 * (b?.length ?? 0)));
      this.#named.set(name, b);
    }
    return b;
  }

  /** An integer buffer of at least `size` entries (contents undefined). */
  public rows(name: string, size: number): Int32Array {
    let b = this.#ints.get(name);
    if (b == undefined || b.length < size) {
      b = new Int32Array(Math.max(size, 2 * (b?.length ?? 0)));
      this.#ints.set(name, b);
    }
    return b;
  }

  /** The envelope of the leading n × n block of `a` (rows `stride` long), in a reused buffer. */
  public envelope(a: Float64Array, n: number, stride: number, zeroBefore: Int32Array): Envelope {
    this.#envelope = lowerEnvelope(a, n, this.#envelope, stride, zeroBefore);
    return this.#envelope;
  }

  /** The `index`-th Jacobian buffer, at least `size` entries (contents undefined). */
  public jacobian(index: number, size: number): Float64Array {
    let b = this.#jacobians[index];
    if (b == undefined || b.length < size) {
      b = new Float64Array(Math.max(size, 2 * (b?.length ?? 0)));
      this.#jacobians[index] = b;
    }
    return b;
  }
}

const SCRATCH = new Scratch();

/**
 * Returns H_kk − H_km·H_mm⁻¹·H_mk and g_k − H_km·H_mm⁻¹·g_m (H full symmetric d × d), in the
 * leading dk × dk and dk entries of reused buffers (valid until the next call).
 *
 * H_mm (a chain of states) is factored on its envelope, each right-hand side is forward-
 * substituted from its first non-zero, and back substitution stops at the first marginalized
 * column H_km touches: the other entries of H_mm⁻¹·[H_mk | g_m] are only ever multiplied by the
 * zeros of H_km. Row i of H is zero left of column `zeroBefore[i]`.
 */
function schurComplement(
  h: Float64Array,
  g: Float64Array,
  d: number,
  dm: number,
  zeroBefore: Int32Array,
  scratch: Scratch,
): { hk: Float64Array; gk: Float64Array } {
  const dk = d - dm;
  // Reused: every entry of the leading dk × dk (dk) is written here.
  const hk = scratch.buffer("hk", dk * dk);
  const gk = scratch.buffer("gk", dk);
  for (let i = 0; i < dk; i++) {
    gk[i] = g[dm + i]!;
    for (let j = 0; j < dk; j++) {
      hk[i * dk + j] = h[(dm + i) * d + dm + j]!;
    }
  }
  if (dm === 0) {
    return { hk, gk };
  }
  let needed = dm;
  for (let i = 0; i < dk && needed > 0; i++) {
    const row = (dm + i) * d;
    for (let q = 0; q < needed; q++) {
      if (h[row + q] !== 0) {
        needed = q;
        break;
      }
    }
  }
  const rhs = scratch.zeroed("rhs", dm);
  const solve = spdSolver(h, d, dm, zeroBefore, scratch);
  if (solve.pseudoInverse) {
    needed = 0;
  }
  for (let c = 0; c <= dk; c++) {
    let from = dm;
    for (let i = 0; i < dm; i++) {
      const v = c < dk ? h[i * d + dm + c]! : g[i]!;
      rhs[i] = v;
      if (v !== 0 && from === dm) {
        from = i;
      }
    }
    if (from === dm) {
      continue; // H_mm⁻¹·0 = 0: nothing to subtract
    }
    solve.solve(rhs, from, needed);
    for (let i = 0; i < dk; i++) {
      const row = (dm + i) * d;
      let acc = 0;
      for (let q = needed; q < dm; q++) {
        acc += h[row + q]! * rhs[q]!;
      }
      if (c < dk) {
        hk[i * dk + c] = hk[i * dk + c]! - acc;
      } else {
        gk[i] = gk[i]! - acc;
      }
    }
  }
  // Symmetrize against round-off.
  for (let i = 0; i < dk; i++) {
    for (let j = 0; j < i; j++) {
      const v = 0.5 * (hk[i * dk + j]! + hk[j * dk + i]!);
      hk[i * dk + j] = v;
      hk[j * dk + i] = v;
    }
  }
  return { hk, gk };
}

/** Solves M·x = b in place for the symmetric PSD leading block M (n × n) of H (stride d). */
interface SpdSolver {
  /** True when M is singular and its pseudo-inverse is used (then every entry of x is computed). */
  readonly pseudoInverse: boolean;
  /** b ← M⁻¹·b, where b is zero before `from`; entries below `downTo` may be left unsolved. */
  solve(b: Float64Array, from: number, downTo: number): void;
}

/** Cholesky on M's envelope, else (M singular) the pseudo-inverse from an eigen-decomposition. */
function spdSolver(h: Float64Array, d: number, n: number, zeroBefore: Int32Array, scratch: Scratch): SpdSolver {
  // The factorization and the solves read only M's lower envelope, so only that is copied (M is a
  // chain of states: the rest of an n × n buffer would be zeros). Back substitution reads row i
  // from the first column whose envelope reaches down to it, which may lie left of first[i].
  const env = scratch.envelope(h, n, d, zeroBefore);
  const l = scratch.buffer("l", n * n);
  const last = env.last;
  let copyFrom = 0;
  for (let i = 0; i < n; i++) {
    while (last[copyFrom]! < i) {
      copyFrom++;
    }
    for (let j = copyFrom; j <= i; j++) {
      l[i * n + j] = h[i * d + j]!;
    }
  }
  if (choleskyInPlace(l, n, env)) {
    return {
      pseudoInverse: false,
      solve: (b, from, downTo) => {
        forwardSubstituteInPlace(l, n, b, env, from);
        backSubstituteInPlace(l, n, b, env, downTo);
      },
    };
  }
  const m = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      m[i * n + j] = h[i * d + j]!;
    }
  }
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  symmetricEigenInPlace(m, n, values, vectors);
  const max = values.reduce((acc, v) => Math.max(acc, v), 0);
  const tmp = new Float64Array(n);
  return {
    pseudoInverse: true,
    solve: (b) => {
      tmp.fill(0);
      for (let k = 0; k < n; k++) {
        const lambda = values[k]!;
        if (!(lambda > RANK_TOLERANCE * max)) {
          continue;
        }
        let proj = 0;
        for (let i = 0; i < n; i++) {
          proj += vectors[i * n + k]! * b[i]!;
        }
        proj /= lambda;
        for (let i = 0; i < n; i++) {
          tmp[i] = tmp[i]! + vectors[i * n + k]! * proj;
        }
      }
      b.set(tmp);
    },
  };
}

/**
 * A (rows × n, row-major) and b with AᵀA = H and Aᵀb = g (H the leading n × n of `h`, g the
 * leading n of `g`): `A = Lᵀ`, `b = L⁻¹g` from the Cholesky factor, or for a singular H one row
 * `√λ·vᵀ` (with `b = vᵀg/√λ`) per informative eigenpair. Undefined when H carries no information.
 * `b` is new; the Cholesky branch's `a` is a reused buffer (valid until the next call).
 */
function sqrtInformation(
  h: Float64Array,
  g: Float64Array,
  n: number,
  scratch: Scratch,
): { a: Float64Array; b: Float64Array; rows: number } | undefined {
  const l = scratch.buffer("hkFactor", n * n);
  for (let i = 0; i < n * n; i++) {
    l[i] = h[i]!;
  }
  if (choleskyInPlace(l, n)) {
    const a = scratch.zeroed("a", n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        a[j * n + i] = l[i * n + j]!; // A = Lᵀ (upper)
      }
    }
    const b = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      b[i] = g[i]!;
    }
    forwardSubstituteInPlace(l, n, b);
    return { a, b, rows: n };
  }
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  symmetricEigenInPlace(h.slice(0, n * n), n, values, vectors);
  const max = values.reduce((acc, v) => Math.max(acc, v), 0);
  const keep: number[] = [];
  for (let k = 0; k < n; k++) {
    if (values[k]! > RANK_TOLERANCE * max) {
      keep.push(k);
    }
  }
  if (keep.length === 0) {
    return undefined;
  }
  const rows = keep.length;
  const a = new Float64Array(rows * n);
  const b = new Float64Array(rows);
  keep.forEach((k, r) => {
    const s = Math.sqrt(values[k]!);
    let proj = 0;
    for (let i = 0; i < n; i++) {
      a[r * n + i] = s * vectors[i * n + k]!;
      proj += vectors[i * n + k]! * g[i]!;
    }
    b[r] = proj / s;
  });
  return { a, b, rows };
}
