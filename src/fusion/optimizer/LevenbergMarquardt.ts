import { JacobianColumns } from "./JacobianColumns";
import { PatternProducts } from "./PatternProducts";
import type { Problem } from "./Problem";
import { Corrector } from "../math/Corrector";
import type { CostFunction } from "../math/CostFunction";
import { EnvelopeCholeskyWorkspace } from "../math/EnvelopeCholeskyWorkspace";
import { jacobianPatternOf, type JacobianPattern, type PatternedCost } from "../math/JacobianPattern";

/** Solver options, named after Ceres' `Solver::Options` (and with its defaults). */
export interface SolverOptions {
  /** Iteration cap (successful and unsuccessful steps). Default 50. */
  readonly maxIterations?: number;
  /** Converged when |Δcost| ≤ functionTolerance · cost. Default 1e-6. */
  readonly functionTolerance?: number;
  /** Converged when max |gradient| ≤ gradientTolerance. Default 1e-10. */
  readonly gradientTolerance?: number;
  /** Converged when ‖δ‖ ≤ parameterTolerance · (‖x‖ + parameterTolerance). Default 1e-8. */
  readonly parameterTolerance?: number;
  /** Initial trust-region radius μ (damping is diag(JᵀJ)/μ). Default 1e4. */
  readonly initialTrustRegionRadius?: number;
  /** Largest trust-region radius. Default 1e16. */
  readonly maxTrustRegionRadius?: number;
  /** A step is accepted when actual/predicted decrease > this. Default 1e-3. */
  readonly minRelativeDecrease?: number;
  /** Clamp of the LM diagonal diag(JᵀJ). Defaults 1e-6 and 1e32. */
  readonly minLmDiagonal?: number;
  /** See minLmDiagonal. */
  readonly maxLmDiagonal?: number;
  /** Give up (failure) after this many consecutive unusable steps. Default 5. */
  readonly maxConsecutiveInvalidSteps?: number;
}

/** How a solve ended (Ceres' TerminationType, lower-cased). */
export type TerminationType = "convergence" | "no-convergence" | "failure";

/** The outcome of `LevenbergMarquardt.solve` (a subset of Ceres' `Solver::Summary`). */
export interface SolverSummary {
  readonly termination: TerminationType;
  /** Why it stopped, in words. */
  readonly message: string;
  /** Steps tried (successful or not). */
  readonly iterations: number;
  readonly successfulSteps: number;
  /** ½Σρ(‖r‖²) before and after. */
  readonly initialCost: number;
  readonly finalCost: number;
  /** Ceres' `IsSolutionUsable()`: converged or stopped by the iteration cap with finite cost. */
  readonly usable: boolean;
  /** Number of free scalar parameters. */
  readonly parameterCount: number;
  /** Entries of the envelope (lower triangle incl. diagonal) the factorization works on. */
  readonly envelopeSize: number;
}

const DEFAULTS: Required<SolverOptions> = {
  maxIterations: 50,
  functionTolerance: 1e-6,
  gradientTolerance: 1e-10,
  parameterTolerance: 1e-8,
  initialTrustRegionRadius: 1e4,
  maxTrustRegionRadius: 1e16,
  minRelativeDecrease: 1e-3,
  minLmDiagonal: 1e-6,
  maxLmDiagonal: 1e32,
  maxConsecutiveInvalidSteps: 5,
};

/**
 * Levenberg–Marquardt over a `Problem`, following Ceres' trust-region LM (what fuse runs): damping
 * `diag(JᵀJ)/μ` (diagonal clamped), step accepted when the actual/predicted cost decrease exceeds
 * `minRelativeDecrease`, μ grown by `1/max(1/3, 1 − (2ρ−1)³)` on success and shrunk by a doubling
 * factor on failure; convergence by function, gradient or parameter tolerance; robust losses via
 * Ceres' corrector. Held (constant) blocks keep their values exactly.
 *
 * The normal equations `JᵀJ` are assembled into a dense buffer but factorized as an *envelope*
 * (skyline) Cholesky: row i only spans columns from the first block it shares a residual with.
 * With parameter blocks in stamp order, a fixed-lag window (a chain of states) is banded and a
 * solve costs O(n·b²) instead of O(n³). Buffers are kept between solves and grown only when a
 * problem is larger, so steady-state solving allocates nothing per iteration.
 *
 * ```ts
 * const lm = new LevenbergMarquardt({ maxIterations: 20 });
 * const summary = lm.solve(problem); // values written into the blocks' data
 * const cov = lm.covariance(problem, [positionBlock, yawBlock]); // 3×3 row-major
 * ```
 */
export class LevenbergMarquardt {
  readonly #o: Required<SolverOptions>;
  #n = 0;
  #offsets = new Int32Array(0);
  /** Per block, where its stored values go in #backup (−1 for constant blocks). */
  #ambientOffsets = new Int32Array(0);
  #first = new Int32Array(0);
  /** JᵀJ (lower envelope, skyline storage). */
  #h = new Float64Array(0);
  /** The damped JᵀJ's factor, its inverse pivots and the rows' first non-zero columns. */
  readonly #factorSpace = new EnvelopeCholeskyWorkspace();
  #g = new Float64Array(0);
  #delta = new Float64Array(0);
  #backup = new Float64Array(0);
  /** Skyline row offsets: element (i, j) of #h and of the factor is at #rowBase[i] + j. */
  #rowBase = new Int32Array(0);
  /** Number of stored envelope entries. */
  #envelope = 0;
  #residuals = new Float64Array(0);
  /** The Jacobian blocks' size (they are `#jacobians`; patterned blocks have their own). */
  #jacobianStride = 0;
  #jacobians: Float64Array[] = [];
  #jacPointers: (Float64Array | null)[] = [];
  /** Per residual block, the global columns of its free parameters: #cols[#colStart[k] …]. */
  #colStart = new Int32Array(0);
  #cols = new Int32Array(0);
  /** Where gathered column p of a block goes so that its local columns ascend globally. */
  #slot = new Int32Array(0);
  /** Per residual block being prepared: its free blocks by offset, and where each one's columns start. */
  #blockOrder = new Int32Array(0);
  #blockStart = new Int32Array(0);
  /** The residual block being linearized: its Jacobian by columns, its blocks' tangent sizes. */
  readonly #columns = new JacobianColumns();
  readonly #blockSizes: number[] = [];
  /**
   * Per residual block, its pattern's products when its cost states a pattern, it has no loss
   * and all its blocks are free (else undefined: the general gather). Set by #prepare.
   */
  #patterned: (PatternProducts | undefined)[] = [];
  /** Per residual block with products: whether its cost has `evaluatePattern`. */
  #evaluatesPattern: boolean[] = [];
  /** The products worked out per pattern (a few patterns at most). */
  #products: PatternProducts[] = [];
  /** A patterned residual block's global columns, in its blocks' order. */
  #globals = new Int32Array(0);
  /** Per residual block, where its products' positions start in #positions (set by #prepare). */
  #positionStart = new Int32Array(0);
  #positions = new Int32Array(0);
  /** The problem (and its revision) whose JᵀJ in #h is current (set by solve, cleared by #prepare). */
  #hValidFor: Problem | undefined;
  #hValidRevision = -1;
  readonly #rho = new Float64Array(3);
  readonly #corrector = new Corrector();

  public constructor(options?: SolverOptions) {
    this.#o = { ...DEFAULTS, ...options };
  }

  /** The options in force (defaults filled in). */
  public get options(): Required<SolverOptions> {
    return this.#o;
  }

  /** Minimizes the problem in place and reports how it went. Never throws for numeric trouble. */
  public solve(problem: Problem): SolverSummary {
    const o = this.#o;
    this.#prepare(problem);
    const n = this.#n;
    let cost = this.#linearize(problem);
    const initialCost = cost;
    const summary = (
      termination: TerminationType,
      message: string,
      iterations: number,
      successfulSteps: number,
    ): SolverSummary => {
      // Every exit leaves the values where #h was last assembled (rejected and tolerance-stopped
      // steps are undone), so covariance() can reuse it.
      this.#hValidFor = Number.isFinite(cost) ? problem : undefined;
      this.#hValidRevision = problem.revision;
      return {
      termination,
      message,
      iterations,
      successfulSteps,
      initialCost,
      finalCost: cost,
      usable: termination !== "failure" && Number.isFinite(cost),
      parameterCount: n,
      envelopeSize: this.#envelopeSize(),
      };
    };
    if (!Number.isFinite(cost)) {
      return summary("failure", "the initial cost is not finite", 0, 0);
    }
    if (n === 0) {
      return summary("convergence", "no free parameters", 0, 0);
    }
    if (this.#gradientMaxNorm() <= o.gradientTolerance) {
      return summary("convergence", "gradient tolerance reached", 0, 0);
    }
    let radius = o.initialTrustRegionRadius;
    let decreaseFactor = 2;
    let invalidSteps = 0;
    let successful = 0;
    for (let iteration = 1; iteration <= o.maxIterations; iteration++) {
      if (!this.#computeStep(radius)) {
        invalidSteps++;
        if (invalidSteps >= o.maxConsecutiveInvalidSteps) {
          return summary("failure", "too many consecutive invalid steps", iteration, successful);
        }
        radius /= decreaseFactor;
        decreaseFactor *= 2;
        continue;
      }
      invalidSteps = 0;
      const delta = this.#delta;
      let stepNorm2 = 0;
      for (let i = 0; i < n; i++) {
        stepNorm2 += delta[i]! * delta[i]!;
      }
      const xNorm = this.#saveParameters(problem);
      if (Math.sqrt(stepNorm2) <= (xNorm + o.parameterTolerance) * o.parameterTolerance) {
        return summary("convergence", "parameter tolerance reached", iteration, successful);
      }
      const modelDecrease = this.#modelDecrease();
      this.#applyStep(problem);
      const candidate = this.#cost(problem);
      const change = cost - candidate;
      if (Number.isFinite(candidate) && Math.abs(change) <= o.functionTolerance * cost) {
        this.#restoreParameters(problem);
        return summary("convergence", "function tolerance reached", iteration, successful);
      }
      const ratio = change / modelDecrease;
      if (Number.isFinite(candidate) && modelDecrease > 0 && ratio > o.minRelativeDecrease) {
        successful++;
        const f = 2 * ratio - 1;
        radius = Math.min(o.maxTrustRegionRadius, radius / Math.max(1 / 3, 1 - f * f * f));
        decreaseFactor = 2;
        cost = this.#linearize(problem);
        if (this.#gradientMaxNorm() <= o.gradientTolerance) {
          return summary("convergence", "gradient tolerance reached", iteration, successful);
        }
      } else {
        this.#restoreParameters(problem);
        radius /= decreaseFactor;
        decreaseFactor *= 2;
      }
    }
    return summary("no-convergence", "maximum number of iterations reached", o.maxIterations, successful);
  }

  /**
   * The covariance of the given blocks at the current values: the matching sub-matrix of
   * `(JᵀJ)⁻¹` (what `ceres::Covariance` returns), row-major over the blocks' concatenated
   * components; rows and columns of constant blocks are zero. Undefined when `JᵀJ` is not
   * positive definite (some free direction is unconstrained). Right after `solve(problem)` (with
   * no change to the problem or its values in between) the solver's last `JᵀJ` is reused.
   */
  public covariance(problem: Problem, blockIndices: readonly number[]): Float64Array | undefined {
    let cost = 0;
    if (this.#hValidFor !== problem || this.#hValidRevision !== problem.revision) {
      this.#prepare(problem);
      cost = this.#linearize(problem);
      this.#hValidFor = Number.isFinite(cost) ? problem : undefined;
      this.#hValidRevision = problem.revision;
    }
    const n = this.#n;
    let total = 0;
    for (const b of blockIndices) {
      total += problem.blocks[b]!.localSize;
    }
    const out = new Float64Array(total * total);
    if (!Number.isFinite(cost)) {
      return undefined;
    }
    if (n > 0 && !this.#factor(Infinity)) {
      return undefined;
    }
    // When every requested column lies in the last T columns (the newest state, with blocks in
    // stamp order), the trailing block of H⁻¹ is (L_tt·L_ttᵀ)⁻¹ = L_tt⁻ᵀ·L_tt⁻¹: O(T³), no solves.
    let minCol = n;
    for (const b of blockIndices) {
      const o = this.#offsets[b]!;
      if (o >= 0 && o < minCol) {
        minCol = o;
      }
    }
    const t = n - minCol;
    const full = t <= 64 ? this.#trailingInverse(minCol) : undefined;
    const column = this.#delta;
    let col = 0;
    for (const bj of blockIndices) {
      const oj = this.#offsets[bj]!;
      const sj = problem.blocks[bj]!.localSize;
      for (let cj = 0; cj < sj; cj++, col++) {
        if (oj < 0) {
          continue;
        }
        if (full == undefined) {
          column.fill(0, 0, n);
          column[oj + cj] = 1;
          this.#factorSpace.solve(column);
        }
        let row = 0;
        for (const bi of blockIndices) {
          const oi = this.#offsets[bi]!;
          const si = problem.blocks[bi]!.localSize;
          for (let ci = 0; ci < si; ci++, row++) {
            out[row * total + col] =
              oi < 0
                ? 0
                : full == undefined
                  ? column[oi + ci]!
                  : full[(oi + ci - minCol) * t + (oj + cj - minCol)]!;
          }
        }
      }
    }
    return out;
  }

  /** (H⁻¹) restricted to columns [from, n): X = L_tt⁻¹ by forward substitution, then XᵀX. */
  #trailingInverse(from: number): Float64Array {
    const n = this.#n;
    const t = n - from;
    const l = this.#factorSpace.l;
    const inv = this.#factorSpace.inv;
    const x = new Float64Array(t * t);
    for (let c = 0; c < t; c++) {
      x[c * t + c] = inv[from + c]!;
      for (let i = c + 1; i < t; i++) {
        const ri = this.#rowBase[from + i]!;
        let s = 0;
        for (let k = c; k < i; k++) {
          s -= l[ri + from + k]! * x[k * t + c]!;
        }
        x[i * t + c] = s * inv[from + i]!;
      }
    }
    const out = new Float64Array(t * t);
    for (let a = 0; a < t; a++) {
      for (let b = 0; b <= a; b++) {
        let s = 0;
        for (let k = a; k < t; k++) {
          s += x[k * t + a]! * x[k * t + b]!;
        }
        out[a * t + b] = s;
        out[b * t + a] = s;
      }
    }
    return out;
  }

  #envelopeSize(): number {
    let size = 0;
    for (let i = 0; i < this.#n; i++) {
      size += i - this.#first[i]! + 1;
    }
    return size;
  }

  /** Assigns column offsets, the envelope, and grows the buffers. */
  #prepare(problem: Problem): void {
    this.#hValidFor = undefined;
    const blocks = problem.blocks;
    if (this.#offsets.length < blocks.length) {
      this.#offsets = new Int32Array(Math.max(blocks.length, 2 * this.#offsets.length));
    }
    if (this.#ambientOffsets.length < this.#offsets.length) {
      this.#ambientOffsets = new Int32Array(this.#offsets.length);
    }
    let n = 0;
    let ambient = 0;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b]!;
      if (block.constant) {
        this.#offsets[b] = -1;
        this.#ambientOffsets[b] = -1;
      } else {
        this.#offsets[b] = n;
        this.#ambientOffsets[b] = ambient;
        n += block.localSize;
        ambient += block.data.length;
      }
    }
    this.#n = n;
    if (this.#first.length < n) {
      const cap = Math.max(n, 2 * this.#first.length);
      this.#first = new Int32Array(cap);
      this.#g = new Float64Array(cap);
      this.#delta = new Float64Array(cap);
    }
    if (this.#backup.length < ambient) {
      this.#backup = new Float64Array(Math.max(ambient, 2 * this.#backup.length));
    }
    const first = this.#first;
    for (let i = 0; i < n; i++) {
      first[i] = i;
    }
    let maxM = 0;
    let maxSize = 0;
    let maxBlocks = 0;
    const residualBlocks = problem.residualBlocks;
    if (this.#colStart.length < residualBlocks.length + 1) {
      this.#colStart = new Int32Array(Math.max(residualBlocks.length + 1, 2 * this.#colStart.length));
    }
    const colStart = this.#colStart;
    const offsets = this.#offsets;
    const patterned = this.#patterned;
    patterned.length = residualBlocks.length;
    const evaluatesPattern = this.#evaluatesPattern;
    evaluatesPattern.length = residualBlocks.length;
    if (this.#positionStart.length < residualBlocks.length) {
      this.#positionStart = new Int32Array(Math.max(residualBlocks.length, 2 * this.#positionStart.length));
    }
    const positionStart = this.#positionStart;
    // One pass over the residual blocks: each one's columns, their slots, the envelope's first
    // columns and whether it takes its pattern's products, while its blocks' offsets and sizes are
    // loaded (a pass for each costs about 2 % of a husky run more, loading them four times).
    let totalCols = 0;
    let totalPositions = 0;
    for (let k = 0; k < residualBlocks.length; k++) {
      const rb = residualBlocks[k]!;
      const idx = rb.blockIndices;
      const c0 = totalCols;
      colStart[k] = c0;
      maxM = Math.max(maxM, rb.cost.numResiduals);
      if (idx.length > maxBlocks) {
        maxBlocks = idx.length;
        if (this.#blockOrder.length < maxBlocks) {
          this.#blockOrder = new Int32Array(maxBlocks);
          this.#blockStart = new Int32Array(maxBlocks);
        }
      }
      const blockOrder = this.#blockOrder;
      const blockStart = this.#blockStart;
      // The free blocks ordered by offset, ties in gather order (stable insertion sort: a
      // residual block's parameters mostly come in column order already).
      let free = 0;
      for (let a = 0; a < idx.length; a++) {
        const b = idx[a]!;
        maxSize = Math.max(maxSize, blocks[b]!.localSize);
        const oa = offsets[b]!;
        if (oa < 0) {
          continue;
        }
        let t = free++;
        while (t > 0 && offsets[idx[blockOrder[t - 1]!]!]! > oa) {
          blockOrder[t] = blockOrder[t - 1]!;
          t--;
        }
        blockOrder[t] = a;
      }
      // Where each block's local columns start among the residual block's ascending columns.
      let at = 0;
      for (let t = 0; t < free; t++) {
        const a = blockOrder[t]!;
        blockStart[a] = at;
        at += blocks[idx[a]!]!.localSize;
      }
      // Its pattern's products when its cost states a pattern it fits: no loss, every block free,
      // and each block once (so that each entry of JᵀJ gets one sum; in offset order a repeated
      // block shows as two equal offsets side by side).
      const pattern = rb.loss ? undefined : jacobianPatternOf(rb.cost);
      let products: PatternProducts | undefined;
      if (
        pattern != undefined &&
        free === idx.length &&
        pattern.numResiduals === rb.cost.numResiduals &&
        pattern.numResiduals <= 32 &&
        pattern.rowMasks.length === idx.length
      ) {
        let usable = true;
        for (let t = 0; usable && t < free; t++) {
          const a = blockOrder[t]!;
          usable =
            pattern.rowMasks[a]!.length === blocks[idx[a]!]!.localSize &&
            (t === 0 || offsets[idx[blockOrder[t - 1]!]!]! !== offsets[idx[a]!]!);
        }
        products = usable ? this.#productsOf(pattern) : undefined;
      }
      patterned[k] = products;
      evaluatesPattern[k] = products != undefined && typeof (rb.cost as Partial<PatternedCost>).evaluatePattern === "function";
      positionStart[k] = totalPositions;
      totalPositions += products?.positionCount ?? 0;
      totalCols += at;
      if (this.#cols.length < totalCols) {
        const grown = new Int32Array(Math.max(totalCols, 2 * this.#cols.length));
        grown.set(this.#cols.subarray(0, c0));
        const grownSlot = new Int32Array(grown.length);
        grownSlot.set(this.#slot.subarray(0, c0));
        this.#cols = grown;
        this.#slot = grownSlot;
      }
      const cols = this.#cols;
      const slot = this.#slot;
      // Slot of each gathered column (blocks in gather order) so that a block's local columns
      // ascend globally, and the ascending global columns themselves; every column's row of the
      // envelope starts at the residual block's lowest column at the latest.
      const lowest = free > 0 ? offsets[idx[blockOrder[0]!]!]! : n;
      let g = c0;
      for (let a = 0; a < idx.length; a++) {
        const off = offsets[idx[a]!]!;
        if (off < 0) {
          continue;
        }
        const size = blocks[idx[a]!]!.localSize;
        const start = blockStart[a]!;
        for (let i = 0; i < size; i++) {
          slot[g++] = start + i;
          cols[c0 + start + i] = off + i;
          if (lowest < first[off + i]!) {
            first[off + i] = lowest;
          }
        }
      }
    }
    colStart[residualBlocks.length] = totalCols;
    // Skyline storage: row i holds columns first[i] … i contiguously; (i, j) is at rowBase[i] + j.
    if (this.#rowBase.length < n) {
      this.#rowBase = new Int32Array(this.#first.length);
    }
    let envelope = 0;
    for (let i = 0; i < n; i++) {
      this.#rowBase[i] = envelope - first[i]!;
      envelope += i - first[i]! + 1;
    }
    this.#envelope = envelope;
    if (this.#h.length < envelope) {
      this.#h = new Float64Array(Math.max(envelope, 2 * this.#h.length));
    }
    this.#factorSpace.setEnvelope(n, first, this.#rowBase, envelope);
    if (this.#residuals.length < maxM) {
      this.#residuals = new Float64Array(maxM);
    }
    const jacSize = maxM * maxSize;
    if (this.#jacobians.length < maxBlocks || this.#jacobianStride < jacSize) {
      const count = Math.max(maxBlocks, this.#jacobians.length);
      const size = Math.max(jacSize, this.#jacobianStride);
      this.#jacobianStride = size;
      this.#jacobians = Array.from({ length: count }, () => new Float64Array(size));
      this.#jacPointers = new Array<Float64Array | null>(count).fill(null);
    }
    this.#preparePositions(problem, maxBlocks * maxSize, totalPositions);
  }

  /**
   * Where each patterned residual block's sums go in g and h (the same for every linearization of
   * this problem, so worked out here once); `total` is their number.
   */
  #preparePositions(problem: Problem, maxColumns: number, total: number): void {
    if (this.#globals.length < maxColumns) {
      this.#globals = new Int32Array(maxColumns);
    }
    const residualBlocks = problem.residualBlocks;
    const patterned = this.#patterned;
    if (this.#positions.length < total) {
      this.#positions = new Int32Array(Math.max(total, 2 * this.#positions.length));
    }
    const globals = this.#globals;
    const cols = this.#cols;
    const slot = this.#slot;
    for (let k = 0; k < residualBlocks.length; k++) {
      const products = patterned[k];
      if (products == undefined) {
        continue;
      }
      const c0 = this.#colStart[k]!;
      for (let c = 0; c < products.columns; c++) {
        globals[c] = cols[c0 + slot[c0 + c]!]!;
      }
      products.positions(globals, this.#rowBase, this.#positions, this.#positionStart[k]!);
    }
  }

  #productsOf(pattern: JacobianPattern): PatternProducts {
    for (const p of this.#products) {
      if (p.pattern === pattern) {
        return p;
      }
    }
    // Costs share their pattern objects, so this stays a handful; bounded all the same.
    if (this.#products.length >= 8) {
      this.#products.shift();
    }
    const made = new PatternProducts(pattern);
    this.#products.push(made);
    return made;
  }

  /** Evaluates cost, gradient g = J̃ᵀr̃ and H = J̃ᵀJ̃ (lower envelope) at the current values. */
  #linearize(problem: Problem): number {
    const n = this.#n;
    const h = this.#h;
    const g = this.#g;
    h.fill(0, 0, this.#envelope);
    g.fill(0, 0, n);
    const rowBase = this.#rowBase;
    const offsets = this.#offsets;
    const r = this.#residuals;
    const jacs = this.#jacobians;
    const ptrs = this.#jacPointers;
    const sizes = this.#blockSizes;
    const columns = this.#columns;
    const blocks = problem.blocks;
    const colStart = this.#colStart;
    const cols = this.#cols;
    const slot = this.#slot;
    const patterned = this.#patterned;
    const positions = this.#positions;
    const positionStart = this.#positionStart;
    const evaluatesPattern = this.#evaluatesPattern;
    let cost = 0;
    const residualBlocks = problem.residualBlocks;
    for (let rbIndex = 0; rbIndex < residualBlocks.length; rbIndex++) {
      const rb = residualBlocks[rbIndex]!;
      const m = rb.cost.numResiduals;
      const idx = rb.blockIndices;
      const k = idx.length;
      const c0 = colStart[rbIndex]!;
      const products = patterned[rbIndex];
      if (products != undefined) {
        // Its own Jacobian buffer (±0 outside the pattern), no loss, every block free. Kept
        // apart from the general path below, calls included: folded into it (one evaluate and
        // one gather call for both kinds of Jacobian array), jackal 3D ran about 5 % slower.
        const own = products.blocks;
        const evaluated = evaluatesPattern[rbIndex] === true
          ? (rb.cost as CostFunction & PatternedCost).evaluatePattern!(rb.parameters, r, own)
          : rb.cost.evaluate(rb.parameters, r, own);
        if (!evaluated) {
          return NaN;
        }
        let s = 0;
        for (let i = 0; i < m; i++) {
          s += r[i]! * r[i]!;
        }
        cost += 0.5 * s;
        if (products.accumulateAt(products.values, r, positions, positionStart[rbIndex]!, h, g)) {
          continue;
        }
        for (let a = 0; a < k; a++) {
          sizes[a] = blocks[idx[a]!]!.localSize;
        }
        columns.gather(own, k, sizes, m, slot, c0);
        columns.addToSkyline(h, rowBase, g, cols, c0, r);
        continue;
      }
      for (let a = 0; a < k; a++) {
        ptrs[a] = offsets[idx[a]!]! >= 0 ? jacs[a]! : null;
        sizes[a] = blocks[idx[a]!]!.localSize;
      }
      if (!rb.cost.evaluate(rb.parameters, r, ptrs)) {
        return NaN;
      }
      let s = 0;
      for (let i = 0; i < m; i++) {
        s += r[i]! * r[i]!;
      }
      if (rb.loss) {
        rb.loss.evaluate(s, this.#rho);
        cost += 0.5 * this.#rho[0]!;
        const corr = this.#corrector.reset(s, this.#rho);
        for (let a = 0; a < k; a++) {
          const j = ptrs[a];
          if (j) {
            corr.correctJacobian(r, m, j, blocks[idx[a]!]!.localSize);
          }
        }
        corr.correctResiduals(r, m);
      } else {
        cost += 0.5 * s;
      }
      // Gather the free blocks' Jacobians column-major (ascending global columns), then JᵀJ
      // and Jᵀr over the local columns.
      columns.gather(ptrs, k, sizes, m, slot, c0);
      columns.addToSkyline(h, rowBase, g, cols, c0, r);
    }
    return cost;
  }

  /** Cost only (residuals, no Jacobians) at the current values; NaN when an evaluation fails. */
  #cost(problem: Problem): number {
    const r = this.#residuals;
    let cost = 0;
    for (const rb of problem.residualBlocks) {
      if (!rb.cost.evaluate(rb.parameters, r, null)) {
        return NaN;
      }
      let s = 0;
      for (let i = 0; i < rb.cost.numResiduals; i++) {
        s += r[i]! * r[i]!;
      }
      if (rb.loss) {
        rb.loss.evaluate(s, this.#rho);
        cost += 0.5 * this.#rho[0]!;
      } else {
        cost += 0.5 * s;
      }
    }
    return cost;
  }

  #gradientMaxNorm(): number {
    let worst = 0;
    for (let i = 0; i < this.#n; i++) {
      const v = Math.abs(this.#g[i]!);
      if (!(v <= worst)) {
        worst = v;
      }
    }
    return worst;
  }

  /** Solves (H + diag(clamp(diag H))/radius)·δ = −g into #delta; false when not PD. */
  #computeStep(radius: number): boolean {
    const n = this.#n;
    if (!this.#factor(radius)) {
      return false;
    }
    const delta = this.#delta;
    for (let i = 0; i < n; i++) {
      delta[i] = -this.#g[i]!;
    }
    this.#factorSpace.solve(delta);
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(delta[i])) {
        return false;
      }
    }
    return true;
  }

  /**
   * Envelope Cholesky of H + diag(clamp(diag H))/radius into #factorSpace (radius Infinity: of H
   * itself, the damping term being exactly 0).
   */
  #factor(radius: number): boolean {
    const n = this.#n;
    const h = this.#h;
    const l = this.#factorSpace.l;
    const o = this.#o;
    const rowBase = this.#rowBase;
    l.set(h.subarray(0, this.#envelope));
    for (let i = 0; i < n; i++) {
      const at = rowBase[i]! + i;
      const d = Math.min(o.maxLmDiagonal, Math.max(o.minLmDiagonal, h[at]!));
      l[at] = h[at]! + d / radius;
    }
    // Rows of H often begin with zeros inside the envelope (a state's columns meet the previous
    // state's in a few places only); no entry of H is −0 (a sum begun at +0), as the trimmed
    // factorization requires, so L is bit for bit the full envelope's. WebAssembly computes the
    // same factor where the runtime allows it (jackal 3D: 100 µs a factorization against 140).
    return this.#factorSpace.factor();
  }

  /**
   * Predicted decrease −(gᵀδ + ½δᵀHδ) of the undamped model, right after a successful
   * #computeStep. Row i's products start at the factor's start[i] (where that step's
   * factorization found H's first non-zero): the ones before are (+0)·δ_j with δ finite, ±0,
   * which leave a sum begun at +0 as it was.
   */
  #modelDecrease(): number {
    const n = this.#n;
    const h = this.#h;
    const g = this.#g;
    const d = this.#delta;
    const first = this.#factorSpace.start;
    let lin = 0;
    let quad = 0;
    for (let i = 0; i < n; i++) {
      const di = d[i]!;
      lin += g[i]! * di;
      const row = this.#rowBase[i]!;
      let off = 0;
      for (let j = first[i]!; j < i; j++) {
        off += h[row + j]! * d[j]!;
      }
      quad += di * (h[row + i]! * di + 2 * off);
    }
    return -(lin + 0.5 * quad);
  }

  /** Copies the free parameters into #backup; returns their Euclidean norm. */
  #saveParameters(problem: Problem): number {
    const blocks = problem.blocks;
    const backup = this.#backup;
    let norm2 = 0;
    for (let b = 0; b < blocks.length; b++) {
      const off = this.#ambientOffsets[b]!;
      if (off < 0) {
        continue;
      }
      const data = blocks[b]!.data;
      for (let i = 0; i < data.length; i++) {
        backup[off + i] = data[i]!;
        norm2 += data[i]! * data[i]!;
      }
    }
    return Math.sqrt(norm2);
  }

  #restoreParameters(problem: Problem): void {
    const blocks = problem.blocks;
    for (let b = 0; b < blocks.length; b++) {
      const off = this.#ambientOffsets[b]!;
      if (off < 0) {
        continue;
      }
      const data = blocks[b]!.data;
      for (let i = 0; i < data.length; i++) {
        data[i] = this.#backup[off + i]!;
      }
    }
  }

  /** x ← x ⊞ δ on each block's manifold. */
  #applyStep(problem: Problem): void {
    const blocks = problem.blocks;
    const delta = this.#delta;
    for (let b = 0; b < blocks.length; b++) {
      const off = this.#offsets[b]!;
      if (off < 0) {
        continue;
      }
      const block = blocks[b]!;
      block.manifold.plus(block.data, delta, off, block.data);
    }
  }
}
