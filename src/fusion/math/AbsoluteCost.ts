import { BlockDifferenceCost } from "./BlockDifferenceCost";

/**
 * Cost of fuse's `AbsoluteConstraint<V>` (Ceres `NormalPrior`; reference/fuse.md §2.2, §6.1):
 * `r = A·e` with `e = x − mean` over one variable of size n, where the components flagged in
 * `angular` are wrapped to [-π, π) (fuse wraps the Orientation2D specialization only).
 *
 * `A` is the `k × n` row-major square-root information; a partial measurement has `k < n` and
 * zero columns for the unmeasured components (§2.2). The Jacobian is the constant `A`.
 * Throws RangeError when the shapes disagree; `angular` defaults to none.
 */
export class AbsoluteCost extends BlockDifferenceCost {
  public constructor(mean: ArrayLike<number>, sqrtInformation: ArrayLike<number>, angular: readonly boolean[] = []) {
    super([1], mean, sqrtInformation, angular, "AbsoluteCost");
  }
}
