import type { CostFunction } from "./CostFunction";
import { VectorManifold, type Manifold } from "./manifold";

/**
 * Central finite-difference Jacobians of a cost function at `parameters` (step `h` per
 * component), row-major `m × size_i` per block. A checking tool for analytic Jacobians (the tests
 * use it on every cost function); it allocates freely and is not meant for the solver.
 */
export function centralDifferenceJacobians(
  cost: CostFunction,
  parameters: readonly Float64Array[],
  h = 1e-6,
  manifolds?: readonly (Manifold | undefined)[],
): Float64Array[] {
  const m = cost.numResiduals;
  const plus = new Float64Array(m);
  const minus = new Float64Array(m);
  const params = parameters.map((p) => Float64Array.from(p));
  return cost.parameterBlockSizes.map((ambient, b) => {
    // Steps are taken in the block's tangent space (x ⊞ ±h·e_c), as the solver's Jacobians are.
    const manifold = manifolds?.[b] ?? new VectorManifold(ambient);
    const size = manifold.tangentSize;
    const j = new Float64Array(m * size);
    const block = params[b]!;
    const saved = Float64Array.from(block);
    const step = new Float64Array(size);
    for (let c = 0; c < size; c++) {
      step.fill(0);
      step[c] = h;
      manifold.plus(saved, step, 0, block);
      cost.evaluate(params, plus, null);
      step[c] = -h;
      manifold.plus(saved, step, 0, block);
      cost.evaluate(params, minus, null);
      block.set(saved);
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
  localSizes: readonly number[] = cost.parameterBlockSizes,
): { residuals: Float64Array; jacobians: Float64Array[]; ok: boolean } {
  const m = cost.numResiduals;
  const residuals = new Float64Array(m);
  const jacobians = localSizes.map((size) => new Float64Array(m * size));
  const ok = cost.evaluate(parameters, residuals, jacobians);
  return { residuals, jacobians, ok };
}
