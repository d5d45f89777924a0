import type { CostFunction } from "./CostFunction";
import { Whitener } from "./Whitener";
import { whitenerFor } from "./whitenerFor";
import { sameNumbers } from "../core/sameNumbers";

/** Options of a whitened cost function. */
export interface WhitenedCostOptions {
  /**
   * false: the general whitening for every A, never the diagonal shortcuts (the reference those
   * are checked against; results are the same bits either way). Default true.
   */
  readonly diagonalPath?: boolean;
}

/**
 * Base of the 3D cost functions: a subclass computes the raw error `e` (length n) and, when asked,
 * its Jacobian with respect to each block's tangent coordinates (`n × local_b`, row-major); this
 * base whitens both with the constraint's `A` (`k × n`, scattered columns for a partial
 * measurement): `r = A·e`, `J_b = A·∂e/∂δ_b` (see `Whitener`; cost functions of equal `A` share
 * one, see `whitenerFor`). Nothing is allocated per evaluation.
 */
export abstract class WhitenedCost implements CostFunction {
  public readonly numResiduals: number = 0;
  public readonly parameterBlockSizes: readonly number[];
  /** Applies the constraint's A (shared with the cost functions of equal A). */
  protected readonly whitener: Whitener;
  readonly #localSizes: readonly number[];
  /** Which Jacobians the current evaluation wants (shared likewise: written before each read). */
  readonly #wanted: boolean[];
  /** The raw error, length n (shared by the cost functions of the same shape, see `rawBuffers`). */
  protected readonly error: Float64Array;
  /** Raw Jacobians per block, n × local_b (shared likewise). */
  protected readonly rawJacobians: readonly Float64Array[];

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
    options?: WhitenedCostOptions,
  ) {
    if (sqrtInformation.length === 0 || sqrtInformation.length % n !== 0) {
      throw new RangeError(`${what}: sqrtInformation has ${sqrtInformation.length} entries, not k × ${n}`);
    }
    this.whitener =
      options?.diagonalPath === false
        ? new Whitener(sqrtInformation, n, { diagonalPath: false })
        : whitenerFor(sqrtInformation, n);
    this.numResiduals = this.whitener.rows;
    this.parameterBlockSizes = ambientSizes;
    const buffers = rawBuffers(n, localSizes);
    this.#localSizes = buffers.localSizes;
    this.#wanted = buffers.wanted;
    this.error = buffers.error;
    this.rawJacobians = buffers.rawJacobians;
  }

  /** Fills `error` and, when `withJacobians`, the requested `rawJacobians` (`wanted[b]`). False when undefined. */
  protected abstract computeError(parameters: readonly Float64Array[], wanted: readonly boolean[] | null): boolean;

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    let wanted: boolean[] | null = null;
    if (jacobians != null) {
      wanted = this.#wanted;
      for (let b = 0; b < wanted.length; b++) {
        wanted[b] = jacobians[b] != null;
      }
    }
    if (!this.computeError(parameters, wanted)) {
      return false;
    }
    const whitener = this.whitener;
    whitener.vector(this.error, residuals);
    if (jacobians) {
      for (let b = 0; b < this.#localSizes.length; b++) {
        const out = jacobians[b];
        if (out) {
          whitener.jacobian(this.rawJacobians[b]!, this.#localSizes[b]!, out);
        }
      }
    }
    return true;
  }
}

/** The raw error and Jacobian buffers of one shape of cost function. */
interface RawBuffers {
  readonly n: number;
  /** The tangent sizes (a private copy). */
  readonly localSizes: readonly number[];
  readonly error: Float64Array;
  readonly rawJacobians: readonly Float64Array[];
  readonly wanted: boolean[];
}

/** One entry per shape (a handful: one per 3D cost function class). */
const RAW_BUFFERS: RawBuffers[] = [];

/**
 * The raw buffers for an error of length n and blocks of these tangent sizes, one set per shape
 * for every cost function: `evaluate` fills them with `computeError` and reads them back before it
 * returns, and `computeError` writes every raw Jacobian entry it is asked for, so no evaluation
 * sees another's values. Found by comparing the sizes (no key string is built: a cost function is
 * built for every new constraint).
 */
function rawBuffers(n: number, localSizes: readonly number[]): RawBuffers {
  for (const buffers of RAW_BUFFERS) {
    if (buffers.n === n && sameNumbers(buffers.localSizes, localSizes)) {
      return buffers;
    }
  }
  const buffers: RawBuffers = {
    n,
    localSizes: [...localSizes],
    error: new Float64Array(n),
    rawJacobians: localSizes.map((l) => new Float64Array(n * l)),
    wanted: localSizes.map(() => false),
  };
  RAW_BUFFERS.push(buffers);
  return buffers;
}
