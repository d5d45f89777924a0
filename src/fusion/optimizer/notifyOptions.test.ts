import { describe, expect, it } from "vitest";

import { FixedLagSmoother, type FixedLagSmootherOptions } from "./FixedLagSmoother";
import type { Odometry2DEstimate } from "./odometry2DEstimate";
import { TimeBase } from "../../time";
import { StampedUuids, type FusionContext, type ReadonlyGraph } from "../core";
import { Odometry2D } from "../models";
import { Unicycle2D } from "../motion";
import { sensorMessage } from "../testing/sensorMessage";

const BASE_SEC = 1_432_235_497;

const cov = (d: number[]): number[] => {
  const c = new Array<number>(36).fill(0);
  d.forEach((v, i) => (c[i * 7] = v));
  return c;
};

/** 10 Hz odometry turning at 0.1 rad/s for 6 s through a smoother with `options`. */
function run(options: FixedLagSmootherOptions): { estimates: Odometry2DEstimate[]; live: boolean[] } {
  const timeBase = TimeBase.forFirstSecNsec(BASE_SEC, 0);
  let now = 0;
  const context: FusionContext = {
    timeBase,
    uuids: new StampedUuids(timeBase, "ros1"),
    drop: () => undefined,
    warn: () => undefined,
    now: () => now,
  };
  const model = new Unicycle2D({ processNoiseDiagonal: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1] });
  model.initialize(context, "unicycle");
  const smoother = new FixedLagSmoother({ lagDuration: 1e9, optimizationPeriod: 1e8, ...options })
    .addMotionModel("unicycle", model)
    .addSensor("odom", { motionModels: ["unicycle"] });
  const estimates: Odometry2DEstimate[] = [];
  const live: boolean[] = [];
  smoother.onEstimate((e) => estimates.push(e));
  smoother.onNotify((_tx, graph: ReadonlyGraph) => live.push(graph === smoother.graph));
  const sensor = new Odometry2D({
    topic: "/odom",
    positionDimensions: ["x", "y"],
    orientationDimensions: ["yaw"],
    linearVelocityDimensions: ["x", "y"],
    angularVelocityDimensions: ["yaw"],
  });
  sensor.initialize(context, "odom", (tx) => {
    smoother.transactionCallback("odom", tx);
  });
  model.start();
  sensor.start();
  for (let k = 0; k < 60; k++) {
    now = k * 1e8;
    smoother.spinUntil(now);
    const message = {
      header: { stamp: { sec: BASE_SEC + Math.floor(now / 1e9), nsec: now % 1e9 }, frame_id: "odom" },
      child_frame_id: "base_link",
      pose: { pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } }, covariance: cov([1, 1, 1, 1, 1, 1]) },
      twist: { twist: { linear: { x: 1, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.1 } }, covariance: cov([0.01, 0.01, 1, 1, 1, 0.01]) },
    };
    sensor.handleMessage(sensorMessage("/odom", message, now, timeBase));
  }
  smoother.flush();
  return { estimates, live };
}

describe("Optimizer options estimateCovariance / snapshotGraph", () => {
  it("skipping the covariance and the graph copy leaves every estimated state bit-identical", () => {
    const full = run({});
    const lean = run({ estimateCovariance: false, snapshotGraph: false });
    expect(full.estimates.length).toBeGreaterThan(50);
    const state = (e: Odometry2DEstimate): number[] => [e.stamp, e.x, e.y, e.yaw, e.vx, e.vy, e.vyaw, e.ax, e.ay];
    expect(lean.estimates.map(state)).toEqual(full.estimates.map(state));
    // The default computes covariances (finite, positive variances); the lean one reports NaN.
    expect(full.estimates.every((e) => e.poseCovariance[0]! > 0 && e.twistCovariance[8]! > 0)).toBe(true);
    expect(lean.estimates.every((e) => [...e.poseCovariance, ...e.twistCovariance].every(Number.isNaN))).toBe(true);
    // Listeners get a copy by default, the live graph otherwise.
    expect(full.live.every((l) => !l)).toBe(true);
    expect(lean.live.length).toBe(full.live.length);
    expect(lean.live.every((l) => l)).toBe(true);
  });
});
