import { describe, expect, it } from "vitest";

import { Problem } from "./Problem";
import { AbsoluteCost } from "../math/AbsoluteCost";

const cost = (): AbsoluteCost => new AbsoluteCost([0, 0], [1, 0, 0, 1]);

describe("Problem", () => {
  it("holds exactly what was added since the last clear, however many blocks came before", () => {
    const problem = new Problem();
    const data = Array.from({ length: 5 }, () => new Float64Array(2));
    for (const d of data) {
      problem.addResidualBlock(cost(), undefined, [problem.addParameterBlock(d)]);
    }
    expect(problem.blocks).toHaveLength(5);
    expect(problem.residualBlocks).toHaveLength(5);
    const old = problem.residualBlocks[3]!;
    const revision = problem.revision;

    problem.clear();
    expect(problem.revision).toBeGreaterThan(revision);
    expect(problem.blocks).toHaveLength(0);
    expect(problem.residualBlocks).toHaveLength(0);
    const kept = problem.adoptParameterBlock(Problem.parameterBlock(data[3]!));
    expect(kept).toBe(0);
    // An index from before the clear names no block now.
    expect(() => problem.addResidualBlock(cost(), undefined, [4])).toThrow(/unknown parameter block 4/);
    expect(problem.readdResidualBlock(old, [kept])).toBe(0);
    expect(problem.residualBlock(0)).toBe(old);
    expect(problem.residualBlock(1)).toBeUndefined();
    const added = problem.addResidualBlock(cost(), undefined, [kept]);
    expect(problem.residualBlock(added)!.parameters).toEqual([data[3]]);

    expect(problem.blocks.map((b) => b.data)).toEqual([data[3]]);
    expect(problem.blocks[0]!.data).toBe(data[3]);
    expect(problem.residualBlocks).toEqual([old, problem.residualBlock(1)]);
    expect(old.blockIndices).toEqual([0]);
  });
});
