/**
 * A residual block's cost function, shaped like Ceres' `CostFunction`: a fixed number of residuals
 * over an ordered list of parameter blocks (one per fuse variable the constraint references).
 *
 * Residuals are already whitened (multiplied by the constraint's square-root information), so the
 * block's cost is `½ρ(‖r‖²)`. Every parameter in the 2D fuse port has `size === localSize`, so the
 * Jacobians are with respect to the stored values (for Orientation2D the manifold plus/minus only
 * wrap, whose derivative is 1).
 */
export interface CostFunction {
  /** Number of residuals `m`. */
  readonly numResiduals: number;
  /** Size of each parameter block, in the order `evaluate` receives them. */
  readonly parameterBlockSizes: readonly number[];
  /**
   * Evaluates the residuals (length `m`) and, when `jacobians` is given, the Jacobian with respect
   * to each block whose entry is non-null (row-major `m × size_i`, overwritten). Allocates
   * nothing. Returns false when the residual cannot be computed (the optimizer then rejects the
   * step, as Ceres does).
   */
  evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean;
}
