import { describe, expect, it } from "vitest";

import { BatchOptimizer } from "./BatchOptimizer";
import { GraphOptimizer } from "./GraphOptimizer";
import { GraphProblem } from "./GraphProblem";
import { LevenbergMarquardt } from "./LevenbergMarquardt";
import { OptimizerError, type TransactionDrop } from "./Optimizer";
import { Problem } from "./Problem";
import { linearStep, position, testContext } from "./testing";
import { Graph, Transaction } from "../core";
import { AbsoluteCost } from "../math/AbsoluteCost";

const MS = 1_000_000;
const TIGHT = { functionTolerance: 0, parameterTolerance: 1e-14, gradientTolerance: 1e-14 };

describe("GraphOptimizer (the runner's optimizer)", () => {
  it("with a lag, keeps the window equal to the batch solution (linear-Gaussian chain)", () => {
    const { uuids: ids } = testContext();
    const optimizer = new GraphOptimizer({ lag: 300 * MS, solver: TIGHT });
    const batch = new Graph();
    for (let k = 0; k < 25; k++) {
      const t = k * 100 * MS;
      const z: [number, number] = [k + 0.3 * Math.sin(k), 0.2 * Math.cos(3 * k)];
      const prev = k === 0 ? undefined : { stamp: t - 100 * MS, d: [1, 0] as const, varD: 0.1 };
      optimizer.update(linearStep(ids, t, z, 0.5, prev));
      optimizer.optimize();
      batch.update(linearStep(ids, t, z, 0.5, prev));
    }
    new LevenbergMarquardt(TIGHT).solve(new GraphProblem(batch).problem);
    expect(optimizer.lagExpiration).toBe(2100 * MS);
    const left = [...optimizer.graph.getVariables()];
    expect(left.length).toBe(5); // 2000 (marginalized with the next update) … 2400
    for (const v of left) {
      const want = batch.getVariable(v.uuid).data;
      expect(v.data[0]).toBeCloseTo(want[0]!, 8);
      expect(v.data[1]).toBeCloseTo(want[1]!, 8);
    }
    expect(optimizer.lastSummary?.usable).toBe(true);
  });

  it("without a lag keeps everything", () => {
    const { uuids: ids } = testContext();
    const optimizer = new GraphOptimizer({ estimates: false });
    for (let k = 0; k < 5; k++) {
      optimizer.update(linearStep(ids, k * MS, [k, 0], 1));
      optimizer.optimize();
    }
    expect(optimizer.graph.variableCount).toBe(5);
    expect(optimizer.lagExpiration).toBe(-Infinity);
  });

  it("throws OptimizerError naming the problem when the graph rejects a transaction", () => {
    const { uuids: ids } = testContext();
    const optimizer = new GraphOptimizer();
    const tx = linearStep(ids, 100 * MS, [0, 0], 1, { stamp: 0, d: [0, 0], varD: 1 });
    tx.removeVariable(position(ids, 100 * MS).uuid); // cancels the add: the constraint dangles
    expect(() => {
      optimizer.update(tx);
    }).toThrow(OptimizerError);
  });
});

describe("BatchOptimizer", () => {
  it("waits for ignition, purges what came before it, then optimizes every tick", () => {
    const { uuids: ids } = testContext();
    const drops: TransactionDrop[] = [];
    const batch = new BatchOptimizer({ optimizationPeriod: 100 * MS, transactionTimeout: 50 * MS })
      .addSensor("gps")
      .addSensor("prior", { ignition: true })
      .onDrop((d) => drops.push(d));
    batch.transactionCallback("gps", linearStep(ids, 0, [0, 0], 1));
    batch.transactionCallback("gps", linearStep(ids, 100 * MS, [1, 0], 1));
    // Waiting for ignition: only `transactionTimeout` of history is kept.
    expect(drops.map((d) => [d.stamp, d.reason])).toEqual([[0, "max-age"]]);
    batch.spinUntil(150 * MS);
    expect(batch.cycles).toBe(0);
    batch.transactionCallback("prior", linearStep(ids, 120 * MS, [1.2, 0], 0.01));
    expect(batch.started).toBe(true);
    expect(drops.map((d) => [d.stamp, d.reason])).toEqual([
      [0, "max-age"],
      [100 * MS, "reset"],
    ]);
    batch.transactionCallback("gps", linearStep(ids, 50 * MS, [0.5, 0], 1));
    expect(drops.at(-1)).toMatchObject({ stamp: 50 * MS, reason: "too-late" });
    batch.transactionCallback("gps", linearStep(ids, 220 * MS, [2.2, 0], 1));
    batch.spinUntil(300 * MS);
    expect(batch.cycles).toBe(1);
    expect(batch.graph.variableCount).toBe(2);
  });

  it("never starts without an ignition sensor (fuse ROS 1 quirk)", () => {
    const { uuids: ids } = testContext();
    const batch = new BatchOptimizer().addSensor("gps");
    batch.transactionCallback("gps", linearStep(ids, 0, [0, 0], 1));
    batch.spinUntil(1000 * MS);
    expect(batch.started).toBe(false);
    expect(batch.cycles).toBe(0);
  });

  it("rejects a sensor that names an unknown motion model, and an unknown sensor", () => {
    expect(() => new BatchOptimizer().addSensor("odom", { motionModels: ["nope"] })).toThrow(
      /motion model "nope", which is not configured/,
    );
    expect(() => {
      new BatchOptimizer().transactionCallback("ghost", new Transaction(0));
    }).toThrow(/unknown sensor "ghost"/);
  });
});

describe("Problem", () => {
  it("checks residual blocks against the cost function's parameter sizes", () => {
    const problem = new Problem();
    const b = problem.addParameterBlock(Float64Array.of(1, 2, 3));
    expect(() => problem.addResidualBlock(new AbsoluteCost([0, 0], [1, 0, 0, 1]), undefined, [b])).toThrow(
      /has 3 values, the cost function expects 2/,
    );
    expect(() => problem.addResidualBlock(new AbsoluteCost([0, 0], [1, 0, 0, 1]), undefined, [7])).toThrow(
      /unknown parameter block 7/,
    );
  });
});
