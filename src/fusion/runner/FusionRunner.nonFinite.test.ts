import { describe, expect, it } from "vitest";

import { FusionRunner } from "./FusionRunner";
import { TimeBase } from "../../time";

// A measurement so large that its squared residual overflows (a twist of 1e300 m/s passes the
// sensors' finiteness checks) makes the solver's initial cost non-finite. fuse would shut the
// optimizer down; the runner must drop that one transaction with its reason and go on.
const BASE_SEC = 1_432_235_497;
const MESSAGES = 60;
const BAD = 30;

const cov = (d: number[]): number[] => {
  const c = new Array<number>(36).fill(0);
  d.forEach((v, i) => (c[i * 7] = v));
  return c;
};

/** An odometry message stamped `rel` ns after BASE_SEC, driving 1 m/s and turning 0.1 rad/s. */
const odom = (rel: number, vx = 1): unknown => ({
  header: { stamp: { sec: BASE_SEC + Math.floor(rel / 1e9), nsec: rel % 1e9 }, frame_id: "odom" },
  child_frame_id: "base_link",
  pose: { pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } }, covariance: cov([1, 1, 1, 1, 1, 1]) },
  twist: {
    twist: { linear: { x: vx, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.1 } },
    covariance: cov([0.01, 0.01, 0.01, 0.01, 0.01, 0.01]),
  },
});

const OPTIMIZER = { type: "fixed-lag", lag: "0.5s", updatePeriod: "100ms", transactionTimeout: "10ms" };
const CONFIGS = {
  "2D (Unicycle2D + Odometry2D)": {
    uuidRecipe: "ros1",
    optimizer: OPTIMIZER,
    motionModels: { motion: { type: "fuse_models::Unicycle2D", processNoiseDiagonal: new Array<number>(8).fill(0.1) } },
    sensors: {
      odom: {
        type: "fuse_models::Odometry2D",
        motionModels: ["motion"],
        topic: "/odom",
        linearVelocityDimensions: ["x", "y"],
        angularVelocityDimensions: ["yaw"],
      },
    },
  },
  "3D (Omnidirectional3D + Odometry3D)": {
    uuidRecipe: "ros1",
    optimizer: OPTIMIZER,
    motionModels: { motion: { type: "fuse_models::Omnidirectional3D", processNoiseDiagonal: new Array<number>(15).fill(0.1) } },
    sensors: {
      odom: {
        type: "fuse_models::Odometry3D",
        motionModels: ["motion"],
        topic: "/odom",
        linearVelocityDimensions: ["x", "y", "z"],
        angularVelocityDimensions: ["yaw"],
      },
    },
  },
};

/** Runs 10 Hz odometry through a runner; message `bad` (if any) carries vx = 1e300. */
function run(config: unknown, bad: number | undefined): FusionRunner {
  const runner = new FusionRunner(config);
  runner.start({ timeBase: TimeBase.forFirstSecNsec(BASE_SEC, 0) });
  for (let k = 0; k < MESSAGES; k++) {
    const t = k * 100_000_000;
    runner.message({ input: { topic: "/odom", message: odom(t, k === bad ? 1e300 : 1) }, arrival: t });
  }
  runner.finish();
  return runner;
}

describe.each(Object.entries(CONFIGS))("a non-finite optimization, %s", (_name, config) => {
  it("drops the offending transaction with its reason and keeps fusing", () => {
    const clean = run(config, undefined);
    expect(clean.drops).toEqual([]);
    const runner = run(config, BAD);
    expect(runner.drops).toHaveLength(1);
    const drop = runner.drops[0]!;
    expect(drop).toMatchObject({ sensor: "odom", topic: "/odom", stamp: BAD * 100_000_000, reason: "invalid-covariance" });
    expect(drop.detail).toMatch(/initial cost is not finite.*AbsoluteVelocityLinear[23]DStampedConstraint/);
    expect(runner.summary()).toMatchObject({ fusion: { drops: { "invalid-covariance": 1 } } });
    // Every other message is a transaction; the dropped one is not in the log.
    expect(runner.transactionCount).toBe(clean.transactionCount - 1);
    const stamps = runner.transactionLines.map((l) => (JSON.parse(l) as { stamp: string }).stamp);
    expect(stamps).not.toContain(String(BigInt(BASE_SEC) * 1_000_000_000n + BigInt(BAD * 100_000_000)));
    // The fused trajectory goes on after the drop, finite and close to the clean run's (one
    // 0.1 s velocity measurement missing out of 60).
    const p = runner.finalPose!;
    const q = clean.finalPose!;
    expect(p.stamp).toBe(q.stamp);
    expect(Math.hypot(p.x - q.x, p.y - q.y, p.z - q.z)).toBeLessThan(0.05);
    expect(Math.abs(p.yaw - q.yaw)).toBeLessThan(0.01);
  });
});
