import type { CostFunction } from "./CostFunction";
import type { JacobianPattern, PatternedCost } from "./JacobianPattern";
import { RecentByNumbers } from "./RecentByNumbers";
import { wrapAngle } from "./angles";
import { predictUnicycle2D } from "./unicycle2d";

/** Parameter block sizes of the kinematic constraint: 5 variables at t1, then 5 at t2. */
const BLOCK_SIZES: readonly number[] = [2, 1, 2, 1, 2, 2, 1, 2, 1, 2];
/** The off-diagonal non-zeros (row, column) of F = ∂f/∂s1 (reference/fuse.md §6.3). */
const F_ENTRIES: readonly number[] = [
  0, 2, 1, 2, 0, 3, 1, 3, 0, 4, 1, 4, 0, 6, 1, 6, 0, 7, 1, 7, 2, 5, 3, 6, 4, 7,
];
/**
 * The working vectors of `evaluate` (state 1, its prediction, the error, F), shared by every
 * instance: an evaluation uses them only until it returns, and nothing it calls evaluates a cost.
 */
const SCRATCH = {
  s1: new Float64Array(8),
  pred: new Float64Array(8),
  e: new Float64Array(8),
  f: new Float64Array(64),
};
/** Offset of each block of one state inside the 8-vector. */
const STATE_OFFSETS: readonly number[] = [0, 2, 3, 5, 6];
/** For each component of a state: its block, and its column inside the block. */
const COLUMN_BLOCK: readonly number[] = [0, 0, 1, 2, 2, 3, 4, 4];
const COLUMN_LOCAL: readonly number[] = [0, 1, 0, 0, 1, 0, 0, 1];
/**
 * The Jacobian's possible non-zeros when A is diagonal: ∂r/∂s2 = A has row c in column c only;
 * ∂r/∂s1 = −A·F adds, to column c, the rows k of F's off-identity entries (k, c).
 */
const DIAGONAL_PATTERN: JacobianPattern = (() => {
  const state1 = Array.from({ length: 8 }, (_, c) => 1 << c);
  for (let n = 0; n < F_ENTRIES.length; n += 2) {
    state1[F_ENTRIES[n + 1]!] = state1[F_ENTRIES[n + 1]!]! | (1 << F_ENTRIES[n]!);
  }
  const state2 = Array.from({ length: 8 }, (_, c) => 1 << c);
  const blocks = (masks: number[]): number[][] =>
    STATE_OFFSETS.map((off, b) => masks.slice(off, off + BLOCK_SIZES[b]!));
  return Object.freeze({
    numResiduals: 8,
    rowMasks: Object.freeze([...blocks(state1), ...blocks(state2)]),
  });
})();

/**
 * Cost of `fuse_models::Unicycle2DStateKinematicConstraint` (reference/fuse.md §6.3): parameter
 * blocks `[position1, yaw1, vLinear1, vYaw1, aLinear1, position2, yaw2, vLinear2, vYaw2,
 * aLinear2]`, `r = A·(s2 − f(s1, dt))` with the yaw component wrapped, `A` the 8 × 8 square-root
 * information of `Q·dt`. Jacobians: `∂r/∂s2 = A` (split by block), `∂r/∂s1 = −A·F`.
 */
export class Unicycle2DStateCost implements CostFunction, PatternedCost {
  public readonly numResiduals = 8;
  public readonly parameterBlockSizes: readonly number[] = BLOCK_SIZES;
  /** The time between the two states, in seconds. */
  public readonly dt: number = 0;
  /** A itself; undefined when A is diagonal with +0 everywhere else (then #diag says it all). */
  readonly #a: Float64Array | undefined;
  /** A's diagonal when A is diagonal (always for Unicycle2D's diagonal Q·dt), else undefined. */
  readonly #diag: Float64Array | undefined;
  /**
   * With A diagonal, which entries can be non-zero (the others are written as ±0 whatever the
   * states); undefined for a dense A.
   */
  public readonly jacobianPattern: JacobianPattern | undefined;

  /**
   * @param dt seconds from state 1 to state 2.
   * @param sqrtInformation 8 × 8 row-major `A`.
   * @throws RangeError when `A` is not 8 × 8 or dt is not finite.
   */
  public constructor(dt: number, sqrtInformation: ArrayLike<number>) {
    if (sqrtInformation.length !== 64) {
      throw new RangeError(
        `Unicycle2DStateCost: square-root information has ${sqrtInformation.length} entries, expected 64`,
      );
    }
    if (!Number.isFinite(dt)) {
      throw new RangeError(`Unicycle2DStateCost: dt ${dt} is not finite`);
    }
    this.dt = dt;
    const whitening = whiteningOf(sqrtInformation);
    this.#a = whitening.a;
    this.#diag = whitening.diag;
    this.jacobianPattern = whitening.diag ? DIAGONAL_PATTERN : undefined;
  }

  /**
   * r = A·(s2 − f(s1, dt)), yaw wrapped, into `residuals`; with `jacobianOut`, f's Jacobian F
   * into it as well.
   */
  #residuals(parameters: readonly Float64Array[], residuals: Float64Array, jacobianOut: Float64Array | undefined): void {
    const { s1, pred, e } = SCRATCH;
    gatherState(parameters, 0, s1);
    predictUnicycle2D(s1, this.dt, pred, jacobianOut);
    gatherState(parameters, 5, e);
    for (let i = 0; i < 8; i++) {
      e[i] = e[i]! - pred[i]!;
    }
    e[2] = wrapAngle(e[2]!);
    const a = this.#a;
    const diag = this.#diag;
    if (diag != undefined) {
      for (let r = 0; r < 8; r++) {
        residuals[r] = diag[r]! * e[r]!;
      }
    } else {
      for (let r = 0; r < 8; r++) {
        let s = 0;
        for (let c = 0; c < 8; c++) {
          s += a![r * 8 + c]! * e[c]!;
        }
        residuals[r] = s;
      }
    }
  }

  /**
   * `evaluate` writing only the pattern's entries (see PatternedCost): the residuals, −A·F's
   * diagonal and F terms, A's diagonal. Throws when A is not diagonal (no pattern then).
   */
  public evaluatePattern(parameters: readonly Float64Array[], residuals: Float64Array, jacobians: readonly Float64Array[]): boolean {
    const diag = this.#diag;
    if (diag == undefined) {
      throw new Error("Unicycle2DStateCost.evaluatePattern: A is not diagonal");
    }
    const f = SCRATCH.f;
    this.#residuals(parameters, residuals, f);
    const a = this.#a;
    for (let b = 0; b < 5; b++) {
      const size = BLOCK_SIZES[b]!;
      const off = STATE_OFFSETS[b]!;
      const j1 = jacobians[b]!;
      const j2 = jacobians[5 + b]!;
      for (let c = 0; c < size; c++) {
        // As evaluate's scatter of −A and A, on the diagonal.
        j1[(off + c) * size + c] = -diag[off + c]!;
        j2[(off + c) * size + c] = diag[off + c]!;
      }
    }
    for (let n = 0; n < F_ENTRIES.length; n += 2) {
      const k = F_ENTRIES[n]!;
      const c = F_ENTRIES[n + 1]!;
      const j = jacobians[COLUMN_BLOCK[c]!]!;
      const at = k * BLOCK_SIZES[COLUMN_BLOCK[c]!]! + COLUMN_LOCAL[c]!;
      // −A's (k, c) entry (off the diagonal: a zero), then F's term, as evaluate.
      j[at] = (a == undefined ? -0 : -a[k * 8 + c]!) - diag[k]! * f[k * 8 + c]!;
    }
    return true;
  }

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    const wantJ1 =
      jacobians != null &&
      (jacobians[0] != null ||
        jacobians[1] != null ||
        jacobians[2] != null ||
        jacobians[3] != null ||
        jacobians[4] != null);
    const f = SCRATCH.f;
    this.#residuals(parameters, residuals, wantJ1 ? f : undefined);
    const a = this.#a;
    const diag = this.#diag;
    if (!jacobians) {
      return true;
    }
    if (wantJ1) {
      // ∂r/∂s1 = −A·F, written straight into the blocks: −A, then F's 13 off-identity entries'
      // terms, in the same order as the product's sums.
      if (a == undefined) {
        scatterDiagonal(diag!, jacobians, 0, -1);
      } else {
        scatterColumns(a, jacobians, 0, -1);
      }
      for (let n = 0; n < F_ENTRIES.length; n += 2) {
        const k = F_ENTRIES[n]!;
        const c = F_ENTRIES[n + 1]!;
        const j = jacobians[COLUMN_BLOCK[c]!];
        if (!j) {
          continue;
        }
        const size = BLOCK_SIZES[COLUMN_BLOCK[c]!]!;
        const at = COLUMN_LOCAL[c]!;
        const fkc = f[k * 8 + c]!;
        if (diag != undefined) {
          // A diagonal: only row k of A·F picks up F[k][c].
          j[k * size + at] = j[k * size + at]! - diag[k]! * fkc;
        } else {
          for (let r = 0; r < 8; r++) {
            j[r * size + at] = j[r * size + at]! - a![r * 8 + k]! * fkc;
          }
        }
      }
    }
    if (a == undefined) {
      scatterDiagonal(diag!, jacobians, 5, 1);
    } else {
      scatterColumns(a, jacobians, 5);
    }
    return true;
  }
}

/** Copies the 5 blocks starting at `first` into an 8-vector. */
function gatherState(parameters: readonly Float64Array[], first: number, out: Float64Array): void {
  const p = parameters[first]!;
  const v = parameters[first + 2]!;
  const acc = parameters[first + 4]!;
  out[0] = p[0]!;
  out[1] = p[1]!;
  out[2] = parameters[first + 1]![0]!;
  out[3] = v[0]!;
  out[4] = v[1]!;
  out[5] = parameters[first + 3]![0]!;
  out[6] = acc[0]!;
  out[7] = acc[1]!;
}

/** Splits an 8 × 8 matrix's columns, times `sign`, into the Jacobian blocks `first … first + 4`. */
function scatterColumns(
  m: Float64Array,
  jacobians: readonly (Float64Array | null)[],
  first: number,
  sign: 1 | -1 = 1,
): void {
  for (let b = 0; b < 5; b++) {
    const j = jacobians[first + b];
    if (!j) {
      continue;
    }
    const size = BLOCK_SIZES[b]!;
    const off = STATE_OFFSETS[b]!;
    // The sign is tested once per block, not per entry (this runs for every linearization).
    if (sign === 1) {
      for (let r = 0; r < 8; r++) {
        for (let c = 0; c < size; c++) {
          j[r * size + c] = m[r * 8 + off + c]!;
        }
      }
    } else {
      for (let r = 0; r < 8; r++) {
        for (let c = 0; c < size; c++) {
          j[r * size + c] = -m[r * 8 + off + c]!;
        }
      }
    }
  }
}

/**
 * `scatterColumns` of diag(d) with +0 off the diagonal, to the bit (−0 there when `sign` is −1,
 * as −(+0)), without reading an 8 × 8 matrix.
 */
function scatterDiagonal(d: Float64Array, jacobians: readonly (Float64Array | null)[], first: number, sign: 1 | -1): void {
  const zero = sign === 1 ? 0 : -0;
  for (let b = 0; b < 5; b++) {
    const j = jacobians[first + b];
    if (!j) {
      continue;
    }
    const size = BLOCK_SIZES[b]!;
    const off = STATE_OFFSETS[b]!;
    for (let i = 0; i < 8 * size; i++) {
      j[i] = zero;
    }
    for (let c = 0; c < size; c++) {
      j[(off + c) * size + c] = sign === 1 ? d[off + c]! : -d[off + c]!;
    }
  }
}

/**
 * A kinematic constraint's `A` (a private copy, undefined when A is diagonal with +0 everywhere
 * else) and its diagonal when `A` is diagonal.
 */
interface Whitening {
  readonly a: Float64Array | undefined;
  readonly diag: Float64Array | undefined;
}

/** whiteningOf's key for a plain diagonal A (its 8 diagonal entries), reused. */
const DIAGONAL_KEY = new Float64Array(8);
/** The RecentByNumbers tag of keys that are a plain diagonal A's diagonal (0: all 64 entries). */
const DIAGONAL_TAG = 1;

/** The last few whitenings built: the motion model's segments at a fixed rate share their `A`. */
const RECENT_WHITENINGS = new RecentByNumbers<Whitening>(4);

/**
 * The whitening of `sqrtInformation` (64 entries): one built earlier from entries equal to these
 * to the bit when remembered (never changed after it is built, so sharing it is exactly building
 * it again), else a new one.
 */
function whiteningOf(sqrtInformation: ArrayLike<number>): Whitening {
  // What Unicycle2D builds: diagonal, +0 elsewhere. Then the diagonal alone is the key and the
  // whitening (no 64-entry copy, which would need a backing store of its own).
  let plainDiagonal = true;
  for (let i = 0; i < 64 && plainDiagonal; i++) {
    plainDiagonal = i % 9 === 0 || Object.is(sqrtInformation[i], 0);
  }
  if (plainDiagonal) {
    const key = DIAGONAL_KEY;
    for (let i = 0; i < 8; i++) {
      key[i] = sqrtInformation[i * 9]!;
    }
    const known = RECENT_WHITENINGS.find(key, DIAGONAL_TAG);
    if (known != undefined) {
      return known;
    }
    const diag = Float64Array.from(key);
    return RECENT_WHITENINGS.remember(diag, DIAGONAL_TAG, { a: undefined, diag });
  }
  const found = RECENT_WHITENINGS.find(sqrtInformation, 0);
  if (found != undefined) {
    return found;
  }
  const a = new Float64Array(64);
  let diagonal = true;
  for (let i = 0; i < 64; i++) {
    a[i] = sqrtInformation[i]!;
    if (i % 9 !== 0 && a[i] !== 0) {
      diagonal = false;
    }
  }
  let diag: Float64Array | undefined;
  if (diagonal) {
    diag = new Float64Array(8);
    for (let i = 0; i < 8; i++) {
      diag[i] = a[i * 9]!;
    }
  }
  return RECENT_WHITENINGS.remember(a, 0, { a, diag });
}
