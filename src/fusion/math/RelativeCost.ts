import { BlockDifferenceCost } from "./BlockDifferenceCost";

/**
 * Cost of fuse's `RelativeConstraint<V>` (reference/fuse.md §2.2): two variables of the same size
 * n, `r = A·((x2 − x1) − delta)` element-wise, with the components flagged in `angular` wrapped
 * (the Orientation2D specialization). `delta` is the measured change `x2 − x1` and `A` the
 * `k × n` row-major square-root information. Jacobians: `−A` and `A`. Throws RangeError when the
 * shapes disagree; `angular` defaults to none.
 */
export class RelativeCost extends BlockDifferenceCost {
  public constructor(delta: ArrayLike<number>, sqrtInformation: ArrayLike<number>, angular: readonly boolean[] = []) {
    super([-1, 1], delta, sqrtInformation, angular, "RelativeCost");
  }
}
