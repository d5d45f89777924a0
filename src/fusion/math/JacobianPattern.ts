/**
 * Which Jacobian entries of a cost function can be non-zero: for each parameter block (in the
 * order `evaluate` receives them), for each of its tangent columns, a bit mask of the rows that
 * may hold a value other than ±0 (bit q = row q, so at most 32 residuals).
 *
 * The guarantee a cost function gives by exposing one: whatever the parameter values, every
 * entry `evaluate` writes outside the masks is exactly +0 or −0. A mask may name rows that turn
 * out to be zero (it is a superset of the non-zeros), never fewer.
 */
export interface JacobianPattern {
  /** Number of residuals the masks cover (≤ 32). */
  readonly numResiduals: number;
  /** `rowMasks[a][i]`: the rows of column i of parameter block a that may be non-zero. */
  readonly rowMasks: readonly (readonly number[])[];
}

/**
 * A cost function that may state its Jacobian's pattern (undefined when it cannot promise one,
 * e.g. a dense whitening).
 */
export interface PatternedCost {
  readonly jacobianPattern: JacobianPattern | undefined;
  /**
   * `evaluate` with every Jacobian wanted, writing only the entries inside the pattern (the same
   * values `evaluate` writes there) and leaving the others as they are: for a caller whose
   * buffers already hold ±0 outside the pattern. Only called while `jacobianPattern` is defined.
   */
  evaluatePattern?(parameters: readonly Float64Array[], residuals: Float64Array, jacobians: readonly Float64Array[]): boolean;
}

/** The cost's pattern when it states one (duck-typed: costs without the property have none). */
export function jacobianPatternOf(cost: object): JacobianPattern | undefined {
  return (cost as Partial<PatternedCost>).jacobianPattern;
}

/**
 * For each of the `cols` columns of a row-major `rows × cols` matrix (rows ≤ 32), the bit mask of
 * the rows where it is not ±0 (NaN counts as non-zero): the pattern of a Jacobian that is the
 * matrix itself, or a constant multiple of it.
 */
export function nonZeroRowMasks(a: ArrayLike<number>, rows: number, cols: number): number[] {
  const masks = new Array<number>(cols).fill(0);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (a[r * cols + c] !== 0) {
        masks[c] = masks[c]! | (1 << r);
      }
    }
  }
  return masks;
}
