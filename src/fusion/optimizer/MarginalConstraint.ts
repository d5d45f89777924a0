import { Constraint, MARGINAL, zeros, type Matrix } from "../core";
import { copyNumbers } from "../core/copyNumbers";
import { choleskyInPlace, choleskySolveInPlace, lowerEnvelope } from "../math/dense";
import { quaternionLog } from "../math/manifold";

/**
 * `fuse_constraints::MarginalConstraint` (reference/fuse.md §2.2, §2.3): the linear prior left on
 * the remaining variables when others are marginalized out, `r = b + Σ_i A_i·(x_i ⊟ x̄_i)`.
 *
 * Fields: `a[i]` is the `rows × size_i` block for variable i, `b` the constant term,
 * `linearizationPoints[i]` the values x̄_i at marginalization, `angular[i]` which components use
 * the wrapping (Orientation2D) manifold. For the generic Constraint fields: `mean` is the
 * concatenated x̄, `sqrtInformation` the concatenated `[A_1 … A_n]`, `covariance` `(AᵀA)⁻¹` when
 * it exists (zeros otherwise), worked out on its first read; JSON also carries `b` and
 * `linearizationPoints`.
 */
export class MarginalConstraint extends Constraint {
  public readonly a: readonly Matrix[];
  public readonly b: Float64Array;
  public readonly linearizationPoints: readonly Float64Array[];
  public readonly angular: readonly (readonly boolean[])[];

  /** Throws RangeError when the blocks do not match `b` or their linearization points. */
  public constructor(init: {
    source: string;
    variables: readonly string[];
    a: readonly Matrix[];
    b: ArrayLike<number>;
    linearizationPoints: readonly ArrayLike<number>[];
    angular: readonly (readonly boolean[])[];
  }) {
    const rows = init.b.length;
    const n = init.variables.length;
    if (init.a.length !== n || init.linearizationPoints.length !== n || init.angular.length !== n) {
      throw new RangeError(
        `${MARGINAL}: ${n} variables need ${n} A blocks, linearization points and manifolds`,
      );
    }
    let total = 0;
    init.a.forEach((block, i) => {
      const size = init.linearizationPoints[i]!.length;
      // A quaternion (4 values) has 3 tangent columns.
      const cols = size === 4 && block.cols === 3 ? 3 : size;
      if (block.rows !== rows || block.cols !== cols) {
        throw new RangeError(
          `${MARGINAL}: block ${i} of A is ${block.rows}x${block.cols}, expected ${rows}x${cols}`,
        );
      }
      total += cols;
    });
    const full = zeros(rows, total);
    const mean = new Float64Array(total);
    let col = 0;
    init.a.forEach((block, i) => {
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < block.cols; c++) {
          full.data[r * total + col + c] = block.data[r * block.cols + c]!;
        }
      }
      const point = init.linearizationPoints[i]!;
      if (point.length === block.cols) {
        mean.set(point, col);
      } else {
        // A quaternion's linearization point as its rotation vector (the tangent at identity).
        quaternionLog(point[0]!, point[1]!, point[2]!, point[3]!, mean, col);
      }
      col += block.cols;
    });
    super({
      type: MARGINAL,
      source: init.source,
      variables: init.variables,
      mean,
      sqrtInformation: full,
      // (AᵀA)⁻¹ is for the JSON only (the solver reads A and b): computed when first read.
      covariance: () => informationInverse(full),
      extra: {
        b: Array.from(init.b),
        linearizationPoints: init.linearizationPoints.map((p) => Array.from(p)),
      },
    });
    this.a = init.a;
    this.b = copyNumbers(init.b);
    this.linearizationPoints = init.linearizationPoints.map((p) => copyNumbers(p));
    this.angular = init.angular.map((m) => [...m]);
  }
}

/** (AᵀA)⁻¹, or zeros when AᵀA is singular (rank-deficient marginal). */
function informationInverse(a: Matrix): Matrix {
  const n = a.cols;
  const h = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let r = 0; r < a.rows; r++) {
        s += a.data[r * n + i]! * a.data[r * n + j]!;
      }
      h[i * n + j] = s;
    }
  }
  const out = zeros(n, n);
  const env = lowerEnvelope(h, n);
  if (!choleskyInPlace(h, n, env)) {
    return out;
  }
  const col = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    col.fill(0);
    col[c] = 1;
    choleskySolveInPlace(h, n, col, env);
    for (let r = 0; r < n; r++) {
      out.data[r * n + c] = col[r]!;
    }
  }
  return out;
}
