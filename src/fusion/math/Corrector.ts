/**
 * Ceres' robust-loss corrector: rescales a residual block's residuals and Jacobians so that the
 * Gauss–Newton model of `½ρ(‖r‖²)` becomes an ordinary least-squares model (Triggs et al.'s
 * correction, as in Ceres' `internal/ceres/corrector.cc`). With `s = ‖r‖²` and `[ρ, ρ', ρ'']`:
 * when `s = 0` or `ρ'' ≤ 0` the residuals and Jacobian are only scaled by `√ρ'`; otherwise with
 * `α = 1 − √(1 + 2sρ''/ρ')`, `r ← √ρ'/(1 − α)·r` and `J ← √ρ'·(I − α rrᵀ/s)·J`.
 *
 * Reusable: call `reset` per block, then `correctJacobian` for each Jacobian block (with the
 * *uncorrected* residuals), then `correctResiduals`. Allocates nothing.
 */
export class Corrector {
  #sqrtRho1 = 1;
  #residualScaling = 1;
  #alphaSqNorm = 0;

  /** Prepares the correction for a block with squared norm `sqNorm` and loss values `rho`. */
  public reset(sqNorm: number, rho: ArrayLike<number>): this {
    const rho1 = rho[1]!;
    const rho2 = rho[2]!;
    this.#sqrtRho1 = Math.sqrt(rho1);
    if (sqNorm === 0 || rho2 <= 0) {
      this.#residualScaling = this.#sqrtRho1;
      this.#alphaSqNorm = 0;
      return this;
    }
    const d = 1 + (2 * sqNorm * rho2) / rho1;
    const alpha = 1 - Math.sqrt(d);
    this.#residualScaling = this.#sqrtRho1 / (1 - alpha);
    this.#alphaSqNorm = alpha / sqNorm;
    return this;
  }

  /** Scales the first `m` residuals in place. */
  public correctResiduals(residuals: Float64Array, m: number): void {
    const k = this.#residualScaling;
    for (let i = 0; i < m; i++) {
      residuals[i] = residuals[i]! * k;
    }
  }

  /** Corrects an `m × cols` row-major Jacobian block in place, given the uncorrected residuals. */
  public correctJacobian(
    residuals: Float64Array,
    m: number,
    jacobian: Float64Array,
    cols: number,
  ): void {
    const sq = this.#sqrtRho1;
    if (this.#alphaSqNorm === 0) {
      for (let i = 0; i < m * cols; i++) {
        jacobian[i] = jacobian[i]! * sq;
      }
      return;
    }
    const a = this.#alphaSqNorm;
    for (let c = 0; c < cols; c++) {
      let rtj = 0;
      for (let r = 0; r < m; r++) {
        rtj += residuals[r]! * jacobian[r * cols + c]!;
      }
      for (let r = 0; r < m; r++) {
        const idx = r * cols + c;
        jacobian[idx] = sq * (jacobian[idx]! - a * residuals[r]! * rtj);
      }
    }
  }
}
