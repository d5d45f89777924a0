import { describe, expect, it } from "vitest";

import { BatchOptimizer } from "./BatchOptimizer";
import { FixedLagSmoother } from "./FixedLagSmoother";
import { GraphProblem } from "./GraphProblem";
import { LevenbergMarquardt } from "./LevenbergMarquardt";
import type { TransactionDrop } from "./Optimizer";
import type { Odometry2DEstimate } from "./odometry2DEstimate";
import { linearStep, testContext } from "./testing";
import {
  ACCELERATION_LINEAR_2D,
  Constraint,
  diagonal,
  Graph,
  NIL_UUID,
  ORIENTATION_2D,
  POSITION_2D,
  Transaction,
  Variable,
  VELOCITY_ANGULAR_2D,
  VELOCITY_LINEAR_2D,
  type StampedUuids,
} from "../core";
import { wrapAngle } from "../math/angles";
import { Unicycle2D } from "../motion/Unicycle2D";

const MS = 1_000_000;
const TIGHT = { functionTolerance: 0, parameterTolerance: 1e-14, gradientTolerance: 1e-14 };

/** Deterministic pseudo-noise in [-0.5, 0.5). */
function noise(k: number): number {
  const x = Math.sin(k * 12.9898 + 78.233) * 43758.5453;
  return x - Math.floor(x) - 0.5;
}

describe("FixedLagSmoother (linear-Gaussian chain)", () => {
  it("leaves the window equal to the batch solution over the whole problem", () => {
    const { uuids: ids } = testContext();
    const smoother = new FixedLagSmoother({
      lagDuration: 450 * MS,
      optimizationPeriod: 100 * MS,
      solver: TIGHT,
    }).addSensor("gps");
    const batchGraph = new Graph();
    const drops: TransactionDrop[] = [];
    smoother.onDrop((d) => drops.push(d));
    for (let k = 0; k < 40; k++) {
      const t = k * 100 * MS + 7 * MS;
      const z: [number, number] = [0.5 * k + noise(k), 0.1 * k + noise(k + 100)];
      const prev = k === 0 ? undefined : { stamp: t - 100 * MS, d: [0.5, 0.1] as const, varD: 0.05 };
      smoother.spinUntil(t);
      smoother.transactionCallback("gps", linearStep(ids, t, z, 0.3, prev));
      batchGraph.update(linearStep(ids, t, z, 0.3, prev));
    }
    smoother.flush();
    expect(drops).toEqual([]);
    new LevenbergMarquardt(TIGHT).solve(new GraphProblem(batchGraph).problem);

    const remaining = [...smoother.graph.getVariables()];
    // Only the lag window survives: stamps ≥ newest − lag, plus the one position that fell out of
    // it in the last cycle (its marginalization is applied with the next cycle, as in fuse).
    const newest = 39 * 100 * MS + 7 * MS;
    expect(smoother.lagExpiration).toBe(newest - 450 * MS);
    expect(remaining.length).toBe(6);
    expect(remaining.filter((v) => v.stamp! < smoother.lagExpiration)).toHaveLength(1);
    for (const v of remaining) {
      expect(v.stamp!).toBeGreaterThanOrEqual(newest - 500 * MS);
      const want = batchGraph.getVariable(v.uuid).data;
      expect(v.data[0]).toBeCloseTo(want[0]!, 8);
      expect(v.data[1]).toBeCloseTo(want[1]!, 8);
    }
    expect(smoother.cycles).toBe(40);
  });

  it("drops a transaction older than the lag expiration as too-late", () => {
    const { uuids: ids } = testContext();
    const drops: TransactionDrop[] = [];
    const smoother = new FixedLagSmoother({ lagDuration: 200 * MS, optimizationPeriod: 100 * MS })
      .addSensor("gps")
      .onDrop((d) => drops.push(d));
    for (let k = 0; k < 10; k++) {
      const t = k * 100 * MS;
      smoother.spinUntil(t);
      smoother.transactionCallback("gps", linearStep(ids, t, [k, 0], 1));
    }
    smoother.spinUntil(1000 * MS);
    expect(smoother.lagExpiration).toBe(700 * MS);
    smoother.transactionCallback("gps", linearStep(ids, 650 * MS, [6.5, 0], 1));
    smoother.spinUntil(1100 * MS);
    expect(drops).toHaveLength(1);
    expect(drops[0]).toMatchObject({ sensor: "gps", stamp: 650 * MS, reason: "too-late" });
  });
});

/** The ignition prior of the tutorial: 5 state variables at `t` with absolute constraints. */
function ignition(ids: StampedUuids, t: number, state: number[], sigma: number): Transaction {
  const tx = new Transaction(t).addInvolvedStamp(t);
  const parts: [string, string, number[]][] = [
    [POSITION_2D, "fuse_constraints::AbsolutePosition2DStampedConstraint", state.slice(0, 2)],
    [ORIENTATION_2D, "fuse_constraints::AbsoluteOrientation2DStampedConstraint", state.slice(2, 3)],
    [VELOCITY_LINEAR_2D, "fuse_constraints::AbsoluteVelocityLinear2DStampedConstraint", state.slice(3, 5)],
    [VELOCITY_ANGULAR_2D, "fuse_constraints::AbsoluteVelocityAngular2DStampedConstraint", state.slice(5, 6)],
    [ACCELERATION_LINEAR_2D, "fuse_constraints::AbsoluteAccelerationLinear2DStampedConstraint", state.slice(6, 8)],
  ];
  for (const [type, ctype, mean] of parts) {
    const v = Variable.stamped(ids, type, t, NIL_UUID, mean);
    tx.addVariable(v);
    tx.addConstraint(
      Constraint.fromCovariance({
        type: ctype,
        source: "ignition",
        variables: [v.uuid],
        mean,
        partialCovariance: diagonal(mean.map(() => sigma * sigma)),
      }),
    );
  }
  return tx;
}

/** A twist measurement (as Odometry2D sends with linear x, y and angular yaw dimensions). */
function twist(ids: StampedUuids, t: number, vx: number, vy: number, w: number): Transaction {
  const tx = new Transaction(t).addInvolvedStamp(t);
  const v = Variable.stamped(ids, VELOCITY_LINEAR_2D, t, NIL_UUID, [vx, vy]);
  const a = Variable.stamped(ids, VELOCITY_ANGULAR_2D, t, NIL_UUID, [w]);
  tx.addVariable(v).addVariable(a);
  tx.addConstraint(
    Constraint.fromCovariance({
      type: "fuse_constraints::AbsoluteVelocityLinear2DStampedConstraint",
      source: "odom",
      variables: [v.uuid],
      mean: [vx, vy],
      partialCovariance: diagonal([1e-3, 1e-3]),
    }),
  );
  tx.addConstraint(
    Constraint.fromCovariance({
      type: "fuse_constraints::AbsoluteVelocityAngular2DStampedConstraint",
      source: "odom",
      variables: [a.uuid],
      mean: [w],
      partialCovariance: diagonal([1e-3]),
    }),
  );
  return tx;
}

function tutorialSetup(lagMs: number) {
  const context = testContext();
  const model = new Unicycle2D({ processNoiseDiagonal: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1] });
  model.initialize(context, "unicycle_motion_model");
  model.start();
  const smoother = new FixedLagSmoother({
    lagDuration: lagMs * MS,
    optimizationPeriod: 50 * MS,
    transactionTimeout: 10 * MS,
  })
    .addMotionModel("unicycle_motion_model", model)
    .addSensor("unicycle_2d_ignition", { motionModels: ["unicycle_motion_model"], ignition: true })
    .addSensor("odometry", { motionModels: ["unicycle_motion_model"] });
  return { context, model, smoother };
}

describe("FixedLagSmoother with Unicycle2D (the fuse simple tutorial's shape)", () => {
  it("starts on ignition, purges older transactions, processes the ignition alone first", () => {
    const { context, smoother } = tutorialSetup(500);
    const drops: TransactionDrop[] = [];
    smoother.onDrop((d) => drops.push(d));
    expect(smoother.started).toBe(false);
    smoother.transactionCallback("odometry", twist(context.uuids, 900 * MS, 1, 0, 0));
    smoother.spinUntil(1000 * MS); // not started: nothing happens
    expect(smoother.cycles).toBe(0);
    smoother.transactionCallback("unicycle_2d_ignition", ignition(context.uuids, 1000 * MS, [0, 0, 0, 0, 0, 0, 0, 0], 0.1));
    expect(smoother.started).toBe(true);
    expect(smoother.startTime).toBe(1000 * MS);
    expect(drops.map((d) => [d.sensor, d.reason])).toEqual([["odometry", "reset"]]);
    smoother.transactionCallback("odometry", twist(context.uuids, 1020 * MS, 1, 0, 0));
    smoother.spinUntil(1050 * MS);
    expect(smoother.cycles).toBe(1);
    expect(smoother.pendingCount).toBe(1); // the ignition went alone
    expect(smoother.graph.variableCount).toBe(5);
    smoother.spinUntil(1100 * MS);
    expect(smoother.cycles).toBe(2);
    expect(smoother.graph.variableCount).toBe(10);
    expect(smoother.graph.constraintCount).toBe(5 + 2 + 1);
  });

  it("tracks a constant-velocity turn and reports odometry with covariance; window ≈ batch", () => {
    const lag = tutorialSetup(500);
    const batchSetup = (() => {
      const context = testContext();
      const model = new Unicycle2D({ processNoiseDiagonal: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1] });
      model.initialize(context, "unicycle_motion_model");
      model.start();
      const batch = new BatchOptimizer({ optimizationPeriod: 50 * MS, transactionTimeout: 10 * MS })
        .addMotionModel("unicycle_motion_model", model)
        .addSensor("unicycle_2d_ignition", { motionModels: ["unicycle_motion_model"], ignition: true })
        .addSensor("odometry", { motionModels: ["unicycle_motion_model"] });
      return { context, batch };
    })();
    const estimates: Odometry2DEstimate[] = [];
    lag.smoother.onEstimate((e) => estimates.push(e));
    const feed = (sink: { spinUntil(t: number): void; transactionCallback(s: string, tx: Transaction): void }, ids: StampedUuids): void => {
      sink.transactionCallback("unicycle_2d_ignition", ignition(ids, 0, [0, 0, 0, 0, 0, 0, 0, 0], 0.1));
      for (let k = 1; k <= 60; k++) {
        const t = k * 33 * MS;
        sink.spinUntil(t);
        sink.transactionCallback("odometry", twist(ids, t, 1, 0, 0.5));
      }
      sink.spinUntil(61 * 33 * MS + 100 * MS);
    };
    feed(lag.smoother, lag.context.uuids);
    feed(batchSetup.batch, batchSetup.context.uuids);

    const last = estimates[estimates.length - 1]!;
    expect(last.stamp).toBe(60 * 33 * MS);
    expect(last.vx).toBeCloseTo(1, 2);
    expect(last.vyaw).toBeCloseTo(0.5, 2);
    // Dead reckoning of v = 1 m/s, ω = 0.5 rad/s over 1.98 s gives yaw ≈ 0.99 and a point on the
    // arc of radius 2 (the ignition's zero velocity prior pulls the start slightly).
    expect(last.yaw).toBeGreaterThan(0.85);
    expect(last.yaw).toBeLessThan(1.05);
    const r = Math.hypot(last.x, last.y - 2);
    expect(r).toBeGreaterThan(1.8);
    expect(r).toBeLessThan(2.2);
    // Pose covariance: symmetric, positive diagonal.
    const c = last.poseCovariance;
    for (let i = 0; i < 3; i++) {
      expect(c[i * 3 + i]).toBeGreaterThan(0);
      for (let j = 0; j < 3; j++) {
        expect(c[i * 3 + j]).toBeCloseTo(c[j * 3 + i]!, 12);
      }
    }
    // The window's newest state matches the batch estimate (non-linear: marginalization
    // linearizes, so equality is approximate).
    const ids = batchSetup.context.uuids;
    const bp = batchSetup.batch.graph.getVariable(ids.uuid(POSITION_2D, last.stamp)).data;
    const bo = batchSetup.batch.graph.getVariable(ids.uuid(ORIENTATION_2D, last.stamp)).data;
    expect(last.x).toBeCloseTo(bp[0]!, 3);
    expect(last.y).toBeCloseTo(bp[1]!, 3);
    expect(Math.abs(wrapAngle(last.yaw - bo[0]!))).toBeLessThan(1e-3);
    // Only the lag window remains (plus what the last cycle scheduled for marginalization).
    expect(lag.smoother.lagExpiration).toBe(last.stamp - 500 * MS);
    for (const v of lag.smoother.graph.getVariables()) {
      expect(v.stamp!).toBeGreaterThanOrEqual(lag.smoother.lagExpiration - 2 * 33 * MS);
    }
  });
});
