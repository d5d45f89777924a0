import type { CostFunction } from "./CostFunction";

/**
 * Base of the 3D cost functions: a subclass computes the raw error `e` (length n) and, when asked,
 * its Jacobian with respect to each block's tangent coordinates (`n × local_b`, row-major); this
 * base whitens both with the constraint's `A` (`k × n`, scattered columns for a partial
 * measurement): `r = A·e`, `J_b = A·∂e/∂δ_b`. Buffers are allocated once per cost function.
 */
export abstract class WhitenedCost implements CostFunction {
  public readonly numResiduals: number;
  public readonly parameterBlockSizes: readonly number[];
  readonly #a: Float64Array;
  readonly #n: number;
  readonly #localSizes: readonly number[];
  /** The raw error, length n. */
  protected readonly error: Float64Array;
  /** Raw Jacobians per block, n × local_b. */
  protected readonly rawJacobians: Float64Array[];

  /**
   * @param n raw error length; `sqrtInformation` is `k × n` row-major.
   * @throws RangeError when A's length is not a multiple of n.
   */
  protected constructor(
    n: number,
    sqrtInformation: ArrayLike<number>,
    ambientSizes: readonly number[],
    localSizes: readonly number[],
    what: string,
  ) {
    if (sqrtInformation.length === 0 || sqrtInformation.length % n !== 0) {
      throw new RangeError(`${what}: sqrtInformation has ${sqrtInformation.length} entries, not k × ${n}`);
    }
    this.#a = Float64Array.from(sqrtInformation);
    this.#n = n;
    this.numResiduals = sqrtInformation.length / n;
    this.parameterBlockSizes = ambientSizes;
    this.#localSizes = localSizes;
    this.error = new Float64Array(n);
    this.rawJacobians = localSizes.map((l) => new Float64Array(n * l));
  }

  /** Fills `error` and, when `withJacobians`, the requested `rawJacobians` (`wanted[b]`). False when undefined. */
  protected abstract computeError(parameters: readonly Float64Array[], wanted: readonly boolean[] | null): boolean;

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    const wanted = jacobians == null ? null : jacobians.map((j) => j != null);
    if (!this.computeError(parameters, wanted)) {
      return false;
    }
    const a = this.#a;
    const n = this.#n;
    const k = this.numResiduals;
    const e = this.error;
    for (let r = 0; r < k; r++) {
      let s = 0;
      for (let c = 0; c < n; c++) {
        s += a[r * n + c]! * e[c]!;
      }
      residuals[r] = s;
    }
    if (jacobians) {
      for (let b = 0; b < jacobians.length; b++) {
        const out = jacobians[b];
        if (!out) {
          continue;
        }
        const raw = this.rawJacobians[b]!;
        const l = this.#localSizes[b]!;
        for (let r = 0; r < k; r++) {
          for (let c = 0; c < l; c++) {
            let s = 0;
            for (let q = 0; q < n; q++) {
              const av = a[r * n + q]!;
              if (av !== 0) {
                s += av * raw[q * l + c]!;
              }
            }
            out[r * l + c] = s;
          }
        }
      }
    }
    return true;
  }
}
