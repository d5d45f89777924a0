import { describe, expect, it } from "vitest";

import { FusionRunner } from "./FusionRunner";
import { odometry2DSession, odometry3DSession, odometryMessage, SESSION_BASE_SEC } from "./testing";
import { TimeBase } from "../../time";

// A measurement so large that its squared residual overflows (a twist of 1e300 m/s passes the
// sensors' finiteness checks) makes the solver's initial cost non-finite. fuse would shut the
// optimizer down; the runner must drop that one transaction with its reason and go on.
const MESSAGES = 60;
const BAD = 30;
const CONFIGS = {
  "2D (Unicycle2D + Odometry2D)": odometry2DSession("0.5s"),
  "3D (Omnidirectional3D + Odometry3D)": odometry3DSession("0.5s"),
};

/** Runs 10 Hz odometry through a runner; message `bad` (if any) carries vx = 1e300. */
function run(config: unknown, bad: number | undefined): FusionRunner {
  const runner = new FusionRunner(config);
  runner.start({ timeBase: TimeBase.forFirstSecNsec(SESSION_BASE_SEC, 0) });
  for (let k = 0; k < MESSAGES; k++) {
    const t = k * 100_000_000;
    runner.message({ input: { topic: "/odom", message: odometryMessage(t, { vx: k === bad ? 1e300 : 1 }) }, arrival: t });
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
    expect(stamps).not.toContain(String(BigInt(SESSION_BASE_SEC) * 1_000_000_000n + BigInt(BAD * 100_000_000)));
    // The fused trajectory goes on after the drop, finite and close to the clean run's (one
    // 0.1 s velocity measurement missing out of 60).
    const p = runner.finalPose!;
    const q = clean.finalPose!;
    expect(p.stamp).toBe(q.stamp);
    expect(Math.hypot(p.x - q.x, p.y - q.y, p.z - q.z)).toBeLessThan(0.05);
    expect(Math.abs(p.yaw - q.yaw)).toBeLessThan(0.01);
  });
});
