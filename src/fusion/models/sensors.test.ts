import { describe, expect, it } from "vitest";

import { TimeBase } from "../../time";
import {
  ABSOLUTE_POSE_2D,
  RELATIVE_POSE_2D,
  StampedUuids,
  type FusionContext,
  type FusionDrop,
  type SensorModel,
  type Transaction,
} from "../core";
import { Imu2D } from "./Imu2D";
import { Odometry2D } from "./Odometry2D";
import { Unicycle2DIgnition } from "./Unicycle2DIgnition";
import { quatFromRpy, quatMultiply } from "./common/quaternion";
import { sensorMessage } from "../testing/sensorMessage";

const base = new TimeBase(0);

function harness(sensor: SensorModel, transforms?: FusionContext["transforms"]) {
  const txs: Transaction[] = [];
  const drops: FusionDrop[] = [];
  const context: FusionContext = {
    timeBase: base,
    uuids: new StampedUuids(base, "ros1"),
    transforms,
    drop: (d) => drops.push(d),
    warn: () => undefined,
    now: () => 5e9,
  };
  sensor.initialize(context, "s", (tx) => txs.push(tx));
  return { txs, drops, context };
}

function cov6(diag: number[]): number[] {
  const c = new Array<number>(36).fill(0);
  diag.forEach((d, i) => (c[i * 7] = d));
  return c;
}

function odom(sec: number, x: number, y: number, yaw: number, vx: number, w: number, poseCov = cov6([1, 2, 1e12, 1e12, 1e12, 4])) {
  const [qx, qy, qz, qw] = quatFromRpy(0, 0, yaw);
  return {
    header: { stamp: { sec, nsec: 0 }, frame_id: "odom" },
    child_frame_id: "base",
    pose: { pose: { position: { x, y, z: 0 }, orientation: { x: qx, y: qy, z: qz, w: qw } }, covariance: poseCov },
    twist: { twist: { linear: { x: vx, y: 0, z: 0 }, angular: { x: 0, y: 0, z: w } }, covariance: cov6([0.25, 0.5, 1, 1, 1, 0.01]) },
  };
}

const at = (m: { rows: number; cols: number; data: Float64Array }) => Array.from(m.data);

describe("Odometry2D (reference/fuse.md §3.1)", () => {
  it("sends nothing before start and after stop, counting the dropped transactions", () => {
    const s = new Odometry2D({ topic: "/odom", positionDimensions: ["x"] });
    const { txs } = harness(s);
    s.handleMessage(sensorMessage("/odom", odom(1, 0, 0, 0, 0, 0), 1e9, base));
    expect(txs).toHaveLength(0);
    s.start();
    s.handleMessage(sensorMessage("/odom", odom(1, 0, 0, 0, 0, 0), 1e9, base));
    s.stop();
    s.handleMessage(sensorMessage("/odom", odom(2, 0, 0, 0, 0, 0), 2e9, base));
    expect(txs).toHaveLength(1);
  });

  it("absolute partial pose (x, yaw): scattered A = chol_upper(Σ_S⁻¹) and full-length mean", () => {
    const s = new Odometry2D({ topic: "/odom", positionDimensions: ["x"], orientationDimensions: ["yaw"] });
    const { txs } = harness(s);
    s.start();
    s.handleMessage(sensorMessage("/odom", odom(3, 1.5, -2, 0.5, 0, 0), 3e9, base));
    const tx = txs[0]!;
    expect(tx.stamp).toBe(3e9);
    expect(tx.involvedStamps).toEqual([3e9]);
    expect(tx.addedVariables.map((v) => v.type)).toEqual([
      "fuse_variables::Position2DStamped",
      "fuse_variables::Orientation2DStamped",
    ]);
    expect(Array.from(tx.addedVariables[0]!.data)).toEqual([1.5, -2]);
    const c = tx.addedConstraints[0]!;
    expect(c.type).toBe(ABSOLUTE_POSE_2D);
    expect(Array.from(c.mean)[0]).toBe(1.5);
    expect(c.mean[1]).toBe(0);
    expect(c.mean[2]).toBeCloseTo(0.5, 12);
    // Σ_S = diag(1, 4) → A = diag(1, 1/2) placed at columns 0 and 2.
    expect(c.sqrtInformation.rows).toBe(2);
    expect(at(c.sqrtInformation)).toEqual([1, 0, 0, 0, 0, 0.5]);
    expect(at(c.covariance)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 4]);
  });

  it("twist: linear (x, y) with covariance [0,1;6,7] and angular with [35]", () => {
    const s = new Odometry2D({ topic: "/odom", linearVelocityDimensions: ["y", "x", "x"], angularVelocityDimensions: ["yaw"] });
    const { txs } = harness(s);
    s.start();
    s.handleMessage(sensorMessage("/odom", odom(1, 0, 0, 0, 0.7, -0.2), 1e9, base));
    const [lin, ang] = txs[0]!.addedConstraints;
    expect(lin!.type).toBe("fuse_constraints::AbsoluteVelocityLinear2DStampedConstraint");
    expect(Array.from(lin!.mean)).toEqual([0.7, 0]);
    // Σ = diag(0.25, 0.5) → A = diag(1/0.5, 1/√0.5).
    expect(at(lin!.sqrtInformation)).toEqual([2, 0, 0, Math.SQRT2]);
    expect(ang!.type).toBe("fuse_constraints::AbsoluteVelocityAngular2DStampedConstraint");
    expect(Array.from(ang!.mean)).toEqual([-0.2]);
    expect(at(ang!.sqrtInformation)[0]).toBeCloseTo(10, 12);
  });

  it("differential (independent): first message only stored; then δ in frame 1 and J₁Σ₁J₁ᵀ + J₂Σ₂J₂ᵀ", () => {
    const s = new Odometry2D({
      topic: "/odom",
      positionDimensions: ["x", "y"],
      orientationDimensions: ["yaw"],
      differential: true,
      useTwistCovariance: false,
    });
    const { txs } = harness(s);
    s.start();
    const cov = cov6([0.1, 0.1, 1, 1, 1, 0.1]);
    s.handleMessage(sensorMessage("/odom", odom(1, 1, 1, Math.PI / 2, 0, 0, cov), 1e9, base));
    s.handleMessage(sensorMessage("/odom", odom(2, 1, 3, Math.PI / 2 + 0.1, 0, 0, cov), 2e9, base));
    expect(txs[0]!.empty()).toBe(true); // sent even though nothing was added
    const tx = txs[1]!;
    expect(tx.involvedStamps).toEqual([1e9, 2e9]);
    const c = tx.addedConstraints[0]!;
    expect(c.type).toBe(RELATIVE_POSE_2D);
    // Moving +2 in world y while facing +y is +2 forward in frame 1.
    expect(c.mean[0]).toBeCloseTo(2, 12);
    expect(c.mean[1]).toBeCloseTo(0, 12);
    expect(c.mean[2]).toBeCloseTo(0.1, 12);
    // Worked example: θ₁ = π/2 (c = 0, s = −1), Δ = (0, 2) → J₁ = [[0,−1,0],[1,0,−2],[0,0,−1]],
    // J₁ΣJ₁ᵀ = 0.1·[[1,0,0],[0,5,2],[0,2,1]]; J₂ΣJ₂ᵀ = 0.1·I: the yaw uncertainty of pose 1
    // shows up as lateral (δy) uncertainty after driving 2 m.
    const expected = [0.2, 0, 0, 0, 0.6, 0.2, 0, 0.2, 0.2];
    at(c.covariance).forEach((v, i) => { expect(v).toBeCloseTo(expected[i]!, 12); });
  });

  it("bad covariances: named check, invalid-covariance drop, no constraint, transaction still sent", () => {
    const cases: [string, number[]][] = [
      ["non-symmetric", (() => { const c = cov6([1, 1, 1, 1, 1, 1]); c[1] = 0.5; return c; })()],
      ["not-positive-definite", cov6([1, -1, 1, 1, 1, 1])],
      ["non-finite-covariance", cov6([NaN, 1, 1, 1, 1, 1])],
    ];
    for (const [problem, cov] of cases) {
      const s = new Odometry2D({ topic: "/odom", positionDimensions: ["x", "y"] });
      const { txs, drops } = harness(s);
      s.start();
      s.handleMessage(sensorMessage("/odom", odom(1, 0, 0, 0, 0, 0, cov), 1e9, base));
      expect(txs[0]!.addedConstraints).toHaveLength(0);
      expect(drops).toHaveLength(1);
      expect(drops[0]!.reason).toBe("invalid-covariance");
      expect(drops[0]!.detail).toContain(problem);
    }
    const s = new Odometry2D({ topic: "/odom", positionDimensions: ["x"] });
    const { txs, drops } = harness(s);
    s.start();
    s.handleMessage(sensorMessage("/odom", odom(1, NaN, 0, 0, 0, 0), 1e9, base));
    expect(txs[0]!.addedConstraints).toHaveLength(0);
    expect(drops[0]!.detail).toContain("non-finite-mean");
  });

  it("throttles on receive time: kept when now − last > period, last advancing by the period", () => {
    const s = new Odometry2D({ topic: "/odom", linearVelocityDimensions: ["x"], throttlePeriod: 100 });
    const { txs, drops } = harness(s);
    s.start();
    for (const t of [1000, 1050, 1100, 1101, 1150, 1201, 1250]) {
      s.handleMessage(sensorMessage("/odom", odom(1, 0, 0, 0, 0, 0), t, base));
    }
    // kept: 1000 (last=1000), 1101 (last=1100), 1201 (last=1200), 1250? 1250-1200=50 no.
    expect(txs).toHaveLength(3);
    expect(drops.map((d) => d.reason)).toEqual(["throttled", "throttled", "throttled", "throttled"]);
  });
});

describe("Imu2D (reference/fuse.md §3.2) and the mounting convention", () => {
  const mount = quatFromRpy(Math.PI / 2, 0, -Math.PI / 2); // husky: base_link → imu_link
  const transforms = { lookup: () => ({ translation: [0, -0.3, 0.52] as const, rotation: mount }) };
  function imu(q: readonly number[], ax = 0, ay = 0, az = 9.80665) {
    return {
      header: { stamp: { sec: 1, nsec: 0 }, frame_id: "imu_link" },
      orientation: { x: q[0], y: q[1], z: q[2], w: q[3] },
      orientation_covariance: [1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3],
      angular_velocity: { x: 0, y: 0, z: 0.3 },
      angular_velocity_covariance: [1e-4, 0, 0, 0, 1e-4, 0, 0, 0, 1e-4],
      linear_acceleration: { x: ax, y: ay, z: az },
      linear_acceleration_covariance: [0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01],
    };
  }

  it("orientation goes through the pose path: Position2D (0, 0) + Orientation2D, A with a zero position block", () => {
    const s = new Imu2D({ topic: "/imu", orientationDimensions: ["yaw"], angularVelocityDimensions: ["yaw"] });
    const { txs } = harness(s);
    s.start();
    s.handleMessage(sensorMessage("/imu", imu(quatFromRpy(0, 0, 0.4)), 1e9, base));
    const tx = txs[0]!;
    expect(tx.addedVariables.map((v) => v.type.split("::")[1])).toEqual([
      "Position2DStamped",
      "Orientation2DStamped",
      "VelocityAngular2DStamped",
    ]);
    expect(Array.from(tx.addedVariables[0]!.data)).toEqual([0, 0]);
    const pose = tx.addedConstraints[0]!;
    expect(pose.sqrtInformation.rows).toBe(1);
    expect(at(pose.sqrtInformation)[0]).toBe(0);
    expect(at(pose.sqrtInformation)[2]).toBeCloseTo(1 / Math.sqrt(1e-3), 9);
    expect(pose.mean[2]).toBeCloseTo(0.4, 12);
  });

  it('"fuse" uses q_mount ⊗ q_measured, "body" q_measured ⊗ q_mount⁻¹; they differ for a rotated mount', () => {
    const bodyYaw = 0.7;
    // The IMU reports its own attitude: q_imu = q_body ⊗ q_mount.
    const qImu = quatMultiply(quatFromRpy(0, 0, bodyYaw), mount);
    const yawWith = (mode: "fuse" | "body") => {
      const s = new Imu2D({ topic: "/imu", orientationDimensions: ["yaw"], orientationTargetFrame: "base_link", orientationTransform: mode });
      const { txs } = harness(s, transforms);
      s.start();
      s.handleMessage(sensorMessage("/imu", imu(qImu), 1e9, base));
      return txs[0]!.addedConstraints[0]!.mean[2]!;
    };
    expect(yawWith("body")).toBeCloseTo(bodyYaw, 12);
    expect(Math.abs(yawWith("fuse") - bodyYaw)).toBeGreaterThan(0.5);
  });

  it("gravity removal rotates (0, 0, g) by the inverse IMU orientation, in the IMU frame", () => {
    const s = new Imu2D({ topic: "/imu", linearAccelerationDimensions: ["x", "y"], removeGravitationalAcceleration: true });
    const { txs } = harness(s);
    s.start();
    // Pitched 30°: gravity seen in the IMU frame is R⁻¹(0,0,g) = (−g·sin30°, 0, g·cos30°).
    const g = 9.80665;
    const pitch = Math.PI / 6;
    s.handleMessage(
      sensorMessage("/imu", imu(quatFromRpy(0, pitch, 0), 0.5 - g * Math.sin(pitch), 0.25, g * Math.cos(pitch)), 1e9, base),
    );
    const c = txs[0]!.addedConstraints[0]!;
    expect(c.type).toBe("fuse_constraints::AbsoluteAccelerationLinear2DStampedConstraint");
    expect(c.mean[0]).toBeCloseTo(0.5, 9);
    expect(c.mean[1]).toBeCloseTo(0.25, 9);
  });

  it("reports transform-unavailable and adds no constraint when the target frame is unknown", () => {
    const s = new Imu2D({ topic: "/imu", angularVelocityDimensions: ["yaw"], twistTargetFrame: "base_link" });
    const { txs, drops } = harness(s, { lookup: () => undefined });
    s.start();
    s.handleMessage(sensorMessage("/imu", imu([0, 0, 0, 1]), 1e9, base));
    expect(txs[0]!.addedConstraints).toHaveLength(0);
    expect(drops[0]!.reason).toBe("transform-unavailable");
  });
});

describe("Unicycle2DIgnition (reference/fuse.md §3.6)", () => {
  it("sends one prior at start with 5 variables and 5 absolute constraints stamped now()", () => {
    const s = new Unicycle2DIgnition({ initialState: [1, 2, 0.5, 0, 0, 0, 0, 0], initialSigma: [0.1, 0.2, 0.3, 1, 1, 1, 2, 2] });
    const { txs } = harness(s);
    s.start();
    s.stop();
    s.start();
    expect(txs).toHaveLength(1);
    const tx = txs[0]!;
    expect(tx.stamp).toBe(5e9);
    expect(tx.addedVariables).toHaveLength(5);
    expect(tx.addedConstraints.map((c) => c.type.split("::")[1])).toEqual([
      "AbsolutePosition2DStampedConstraint",
      "AbsoluteOrientation2DStampedConstraint",
      "AbsoluteVelocityLinear2DStampedConstraint",
      "AbsoluteVelocityAngular2DStampedConstraint",
      "AbsoluteAccelerationLinear2DStampedConstraint",
    ]);
    const pos = tx.addedConstraints[0]!;
    at(pos.covariance).forEach((v, i) => { expect(v).toBeCloseTo([0.01, 0, 0, 0.04][i]!, 15); });
  });
});
