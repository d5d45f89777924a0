import type { CostFunction } from "./CostFunction";

/**
 * Central finite-difference Jacobians of a cost function at `parameters` (step `h` per
 * component), row-major `m × size_i` per block. A checking tool for analytic Jacobians (the tests
 * use it on every cost function); it allocates freely and is not meant for the solver.
 */
export function centralDifferenceJacobians(
  cost: CostFunction,
  parameters: readonly Float64Array[],
  h = 1e-6,
): Float64Array[] {
  const m = cost.numResiduals;
  const plus = new Float64Array(m);
  const minus = new Float64Array(m);
  const params = parameters.map((p) => Float64Array.from(p));
  return cost.parameterBlockSizes.map((size, b) => {
    const j = new Float64Array(m * size);
    const block = params[b]!;
    for (let c = 0; c < size; c++) {
      const saved = block[c]!;
      block[c] = saved + h;
      cost.evaluate(params, plus, null);
      block[c] = saved - h;
      cost.evaluate(params, minus, null);
      block[c] = saved;
      for (let r = 0; r < m; r++) {
        j[r * size + c] = (plus[r]! - minus[r]!) / (2 * h);
      }
    }
    return j;
  });
}

/** The analytic residuals and Jacobians of a cost function (fresh buffers; for tests and tools). */
export function evaluateWithJacobians(
  cost: CostFunction,
  parameters: readonly Float64Array[],
): { residuals: Float64Array; jacobians: Float64Array[]; ok: boolean } {
  const m = cost.numResiduals;
  const residuals = new Float64Array(m);
  const jacobians = cost.parameterBlockSizes.map((size) => new Float64Array(m * size));
  const ok = cost.evaluate(parameters, residuals, jacobians);
  return { residuals, jacobians, ok };
}
