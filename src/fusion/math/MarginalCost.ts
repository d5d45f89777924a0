import type { CostFunction } from "./CostFunction";
import { VectorManifold, type Manifold } from "./manifold";
import { copyNumbers } from "../core/copyNumbers";

/** One variable of a marginal constraint: its block of `A`, linearization point and manifold. */
export interface MarginalTerm {
  /** `rows × size` row-major block of A for this variable. */
  readonly a: ArrayLike<number>;
  /** The linearization point x̄ (length `size`). */
  readonly linearizationPoint: ArrayLike<number>;
  /** Which components use the wrapping (Orientation2D) manifold: `x ⊟ x̄ = wrap(x − x̄)`. */
  readonly angular?: readonly boolean[];
  /** The variable's manifold (overrides `angular`; a quaternion's `x ⊟ x̄` is log(x̄⁻¹ ⊗ x)). */
  readonly manifold?: Manifold;
}

/**
 * Cost of `fuse_constraints::MarginalConstraint` (reference/fuse.md §2.2, §6.4): the linear
 * prior left by marginalization, `r = b + Σ_i A_i·(x_i ⊟ x̄_i)`. The Jacobian for variable i is
 * the constant `A_i` (the 2D manifolds' minus has unit derivative).
 */
export class MarginalCost implements CostFunction {
  public readonly numResiduals: number = 0;
  public readonly parameterBlockSizes: readonly number[];
  readonly #b: Float64Array;
  readonly #a: readonly Float64Array[];
  readonly #xBar: readonly Float64Array[];
  readonly #manifolds: readonly Manifold[];
  readonly #d: Float64Array;

  /**
   * @param b the constant term (length = rows).
   * @param terms one per variable, in the constraint's variable order.
   * @throws RangeError when a block's shape disagrees with `b` and its linearization point.
   */
  public constructor(b: ArrayLike<number>, terms: readonly MarginalTerm[]) {
    const rows = b.length;
    this.numResiduals = rows;
    this.#b = copyNumbers(b);
    const sizes: number[] = [];
    let maxSize = 0;
    terms.forEach((t, i) => {
      const size = t.linearizationPoint.length;
      const local = t.manifold?.tangentSize ?? size;
      if (size === 0 || t.a.length !== rows * local) {
        throw new RangeError(
          `MarginalCost: block ${i} of A has ${t.a.length} entries, expected ${rows} × ${local}`,
        );
      }
      sizes.push(size);
      maxSize = Math.max(maxSize, local);
    });
    this.parameterBlockSizes = sizes;
    this.#a = terms.map((t) => copyNumbers(t.a));
    this.#xBar = terms.map((t) => copyNumbers(t.linearizationPoint));
    this.#manifolds = terms.map((t, i) => t.manifold ?? new VectorManifold(sizes[i]!, t.angular));
    this.#d = new Float64Array(maxSize);
  }

  public evaluate(
    parameters: readonly Float64Array[],
    residuals: Float64Array,
    jacobians: readonly (Float64Array | null)[] | null,
  ): boolean {
    const rows = this.numResiduals;
    residuals.set(this.#b);
    const d = this.#d;
    for (let v = 0; v < this.#a.length; v++) {
      const x = parameters[v]!;
      const xBar = this.#xBar[v]!;
      const manifold = this.#manifolds[v]!;
      const a = this.#a[v]!;
      const size = manifold.tangentSize;
      manifold.minus(x, xBar, d, 0);
      for (let r = 0; r < rows; r++) {
        let s = 0;
        for (let k = 0; k < size; k++) {
          s += a[r * size + k]! * d[k]!;
        }
        residuals[r] = residuals[r]! + s;
      }
      const j = jacobians?.[v];
      if (j) {
        j.set(a);
      }
    }
    return true;
  }
}
