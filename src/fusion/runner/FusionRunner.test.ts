import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";

import { FusionRunner } from "./FusionRunner";
import { odometry2DSession, odometryMessage, SESSION_BASE_SEC } from "./testing";
import { HAS_SHARED_DATA, sharedRecording } from "../../recording/testing/paths";
import { TimeBase } from "../../time";
import type { TransactionJson } from "../core";
import { replayRecording, staticTransforms, type PresetTransform } from "../testing/replayRecording";

const BAG = sharedRecording("fuse-tutorial-turtlebot3.bag");

// Needs ../shared beside the checkout, as CI has it; a clone without it skips these.
describe.skipIf(!HAS_SHARED_DATA)("FusionRunner on fuse-tutorial-turtlebot3.bag with config/fuse-simple-tutorial.json", () => {
  let runner: FusionRunner;
  let txs: TransactionJson[];

  beforeAll(async () => {
    const cfg = JSON.parse(readFileSync("config/fuse-simple-tutorial.json", "utf8")) as { fusion: unknown };
    runner = await replayRecording(new FusionRunner(cfg.fusion), BAG);
    txs = runner.transactionLines.map((l) => JSON.parse(l) as TransactionJson);
  });

  it("accounts for every message: each odom/imu message is a transaction or a reported drop", () => {
    const count = (s: string) => txs.filter((t) => t.source === s).length;
    const dropped = (s: string) => runner.drops.filter((d) => d.sensor === s).length;
    expect(count("initial_localization_sensor")).toBe(1);
    expect(count("odometry_sensor") + dropped("odometry_sensor")).toBe(2741);
    expect(count("imu_sensor") + dropped("imu_sensor")).toBe(2253);
    expect(txs[0]!.source).toBe("initial_localization_sensor");
  });

  it("ignition: 5 variables and 5 absolute priors at one stamp (reference §3.6, §7)", () => {
    const ign = txs[0]!;
    expect(ign.involvedStamps).toHaveLength(1);
    expect(new Set(ign.addedVariables.map((v) => v.type)).size).toBe(5);
    expect(ign.addedConstraints.map((c) => c.type.split("::")[1])).toEqual([
      "AbsolutePosition2DStampedConstraint",
      "AbsoluteOrientation2DStampedConstraint",
      "AbsoluteVelocityLinear2DStampedConstraint",
      "AbsoluteVelocityAngular2DStampedConstraint",
      "AbsoluteAccelerationLinear2DStampedConstraint",
    ]);
    // σ = 0.1 → variance 0.01 on the position diagonal.
    expect(ign.addedConstraints[0]!.covariance).toEqual([
      [0.010000000000000002, 0],
      [0, 0.010000000000000002],
    ]);
  });

  it("odometry: 2 absolute velocity constraints per message plus the motion model's state and kinematic constraints (§7)", () => {
    for (const t of txs.filter((x) => x.source === "odometry_sensor")) {
      const own = t.addedConstraints.filter((c) => c.source === "odometry_sensor").map((c) => c.type.split("::")[1]);
      expect(own).toEqual(["AbsoluteVelocityLinear2DStampedConstraint", "AbsoluteVelocityAngular2DStampedConstraint"]);
      const kin = t.addedConstraints.filter((c) => c.type === "fuse_models::Unicycle2DStateKinematicConstraint");
      // A new stamp after the chain adds one segment; one inside a segment replaces it by two
      // (the old one removed); a stamp already in the chain (an IMU stamp) adds none.
      expect([0, 1]).toContain(kin.length - t.removedConstraints.length);
      // A generated segment carries the 5 state variables at each of its stamps; at a stamp already
      // in the chain fuse only re-adds (overwrites) the variables the sensor itself added.
      for (const s of t.involvedStamps) {
        const n = new Set(t.addedVariables.filter((v) => v.stamp === s).map((v) => v.type)).size;
        expect(n).toBe(kin.length > 0 ? 5 : 2);
      }
      // Odometry covariance diagonal 1e-5 (vx, vy) and 1e-3 (yaw rate) from the bag.
      expect(t.addedConstraints[0]!.covariance[0]![0]).toBeCloseTo(1e-5, 12);
      expect(t.addedConstraints[1]!.covariance[0]![0]).toBeCloseTo(1e-3, 12);
    }
  });

  it("imu: one absolute angular-velocity constraint per message, connected by the motion model", () => {
    const imu = txs.filter((x) => x.source === "imu_sensor");
    for (const t of imu) {
      const own = t.addedConstraints.filter((c) => c.source === "imu_sensor");
      expect(own.map((c) => c.type)).toEqual(["fuse_constraints::AbsoluteVelocityAngular2DStampedConstraint"]);
      expect(own[0]!.covariance[0]![0]).toBeCloseTo(1e-6, 15);
    }
    for (const t of imu) {
      const kin = t.addedConstraints.filter((c) => c.type === "fuse_models::Unicycle2DStateKinematicConstraint");
      expect([0, 1]).toContain(kin.length - t.removedConstraints.length);
    }
    // Odometry arriving after newer IMU stamps lands inside a segment and splits it.
    expect(txs.some((t) => t.source === "odometry_sensor" && t.removedConstraints.length === 1)).toBe(true);
  });

  it("the optimized trajectory stays inside the recorded arena, in the frame the ignition defines", () => {
    // The arena is x∈[−2.0, 1.7], y∈[−1.9, 1.8] m in the odometry frame (data/README.md); the
    // robot starts there at (−1.93, 0.015) (first /odom pose), while the tutorial's ignition puts
    // it at the origin with yaw 0, so the fused arena is shifted by (+1.93, −0.015). 0.2 m slack.
    expect(runner.trajectory.length).toBeGreaterThan(1000);
    for (const p of runner.trajectory) {
      expect(p.x).toBeGreaterThan(-2.0 + 1.93 - 0.2);
      expect(p.x).toBeLessThan(1.7 + 1.93 + 0.2);
      expect(p.y).toBeGreaterThan(-1.9 - 0.015 - 0.2);
      expect(p.y).toBeLessThan(1.8 - 0.015 + 0.2);
    }
  });

  it("variable UUIDs follow the ROS 1 recipe and the summary carries counts", () => {
    const s = runner.summary() as { transactions: number; fusion: { uuidRecipe: string } };
    expect(s.transactions).toBe(txs.length);
    expect(s.fusion.uuidRecipe).toBe("ros1");
  });
});

describe("FusionRunner on husky-2015.bag with config/husky.json", () => {
  let runner: FusionRunner;

  beforeAll(async () => {
    const cfg = JSON.parse(readFileSync("config/husky.json", "utf8")) as { fusion: unknown; transforms: PresetTransform[] };
    runner = await replayRecording(new FusionRunner(cfg.fusion), "samples/husky-2015.bag", { transforms: staticTransforms(cfg.transforms) });
  });

  it("ends within 1.0 m of robot_localization's EKF reference (-40.0454, -76.9988)", () => {
    const p = runner.finalPose!;
    expect(Math.hypot(p.x + 40.0454, p.y + 76.9988)).toBeLessThan(1.0);
  });

  it("warns that fuse's and the body orientation conventions disagree for the rotated IMU mount", () => {
    expect(runner.warnings.some((w) => w.includes("imu_link") && w.includes('using "body"'))).toBe(true);
  });
});

describe("FusionRunner with the fixed-lag smoother: late transactions (reference §1.6)", () => {
  const LAG_S = 0.5;
  const config = odometry2DSession(`${LAG_S}s`);
  const odom = (rel: number): unknown => odometryMessage(rel);

  /** Runs 3 s of 10 Hz odometry; `late` messages (header stamps, ns after the base) arrive at 2.5 s. */
  function run(late: number[]): { runner: FusionRunner; base: TimeBase } {
    const base = TimeBase.forFirstSecNsec(SESSION_BASE_SEC, 0);
    const runner = new FusionRunner(config);
    runner.start({ timeBase: base });
    for (let k = 0; k <= 30; k++) {
      const t = k * 100_000_000;
      if (k === 25) {
        for (const stamp of late) {
          runner.message({ input: { topic: "/odom", message: odom(stamp) }, arrival: t });
        }
      }
      runner.message({ input: { topic: "/odom", message: odom(t) }, arrival: t });
    }
    runner.finish();
    return { runner, base };
  }

  it("drops a transaction older than the lag expiration once, as too-late, and counts it in the summary", () => {
    // 1.05 s: between two chain states, 1.4 s older than the newest at 2.4 s (lag 0.5 s).
    const { runner, base } = run([1_050_000_000]);
    expect(runner.drops).toHaveLength(1);
    const drop = runner.drops[0]!;
    expect(drop).toMatchObject({ sensor: "odom", topic: "/odom", stamp: 1_050_000_000, reason: "too-late" });
    expect(drop.detail).toMatch(/older than the lag expiration/);
    const summary = runner.summary() as { transactions: number; fusion: { drops: Record<string, number> } };
    expect(summary.fusion.drops).toEqual({ "too-late": 1 });
    // 31 on-time messages, each one transaction; the late one is not written.
    expect(summary.transactions).toBe(31);
    expect(runner.transactionLines).toHaveLength(31);
    expect(runner.transactionLines.some((l) => l.includes(`"${base.format(1_050_000_000)}"`))).toBe(false);
    // Nothing at the late stamp is in the graph. (Without the drop, the motion model would split
    // the marginalized 1.0–1.1 s segment and re-add those states to the graph for a cycle.)
    for (const v of runner.graph!.getVariables()) {
      expect(v.stamp).not.toBe(1_050_000_000);
    }
  });

  it("keeps a late transaction that is still inside the lag window", () => {
    // 2.35 s is 0.05 s older than the newest state (2.4 s): inside the 0.5 s window.
    const { runner } = run([2_350_000_000]);
    expect(runner.drops).toHaveLength(0);
    expect(runner.transactionLines).toHaveLength(32);
  });
});

describe("FusionRunner: sensor topics that cannot work", () => {
  /** The 10 Hz odometry session plus an Imu2D sensor on /gps, and an ignition sensor on its default topic. */
  function config(): Record<string, unknown> {
    const session = odometry2DSession("0.5s") as { sensors: Record<string, unknown>; motionModels: Record<string, unknown> };
    return {
      ...session,
      sensors: {
        ...session.sensors,
        ignition: { type: "fuse_models::Unicycle2DIgnition", motionModels: ["unicycle"], ignition: true },
        imu: { type: "fuse_models::Imu2D", motionModels: ["unicycle"], topic: "/gps", angularVelocityDimensions: ["yaw"] },
      },
    };
  }

  it("a topic of another type: refused before reading, then at its first message, and each later one is the sensor's drop", () => {
    const runner = new FusionRunner(config());
    const expected = /^fusion\.sensors\.imu\.topic: topic "\/gps" carries sensor_msgs\/NavSatFix, but fuse_models::Imu2D reads sensor_msgs\/Imu;/;
    expect(() => { runner.checkChannels([{ topic: "/odom", schemaName: "nav_msgs/Odometry" }]); }).not.toThrow();
    expect(() => { runner.checkChannels([{ topic: "/odom", schemaName: "nav_msgs/Odometry" }, { topic: "/gps", schemaName: "sensor_msgs/NavSatFix" }]); }).toThrow(expected);

    runner.start({ timeBase: TimeBase.forFirstSecNsec(SESSION_BASE_SEC, 0) });
    // A NavSatFix-shaped message: read as an Imu, its missing fields would be garbage numbers.
    const fix = (rel: number): unknown => ({ ...(odometryMessage(rel) as object), latitude: 48, longitude: 11, altitude: 500 });
    const thrown: unknown[] = [];
    for (let k = 0; k <= 20; k++) {
      const t = k * 100_000_000;
      runner.message({ input: { topic: "/odom", message: odometryMessage(t), schemaName: "nav_msgs/Odometry" }, arrival: t });
      try {
        runner.message({ input: { topic: "/gps", message: fix(t + 1), schemaName: "sensor_msgs/NavSatFix" }, arrival: t + 1 });
      } catch (err) {
        thrown.push(err);
      }
    }
    runner.finish();
    expect(thrown).toHaveLength(1);
    expect((thrown[0] as Error).message).toMatch(expected);
    const imuDrops = runner.drops.filter((d) => d.sensor === "imu");
    expect(imuDrops).toHaveLength(20);
    for (const d of imuDrops) {
      expect(d).toMatchObject({ topic: "/gps", reason: "undecodable" });
      expect(d.detail).toMatch(expected);
    }
    const summary = runner.summary() as { fusion: { transactionsBySensor: Record<string, number> } };
    expect(summary.fusion.transactionsBySensor.imu).toBeUndefined();
    // The odometry sensor got every one of its 21 messages.
    expect(summary.fusion.transactionsBySensor.odom).toBe(21);
  });

  it("a message whose bytes did not decode is each reading sensor's undecodable drop, with the decoder's reason", () => {
    const runner = new FusionRunner(odometry2DSession("0.5s"));
    runner.start({ timeBase: TimeBase.forFirstSecNsec(SESSION_BASE_SEC, 0) });
    runner.message({ input: { topic: "/odom", message: odometryMessage(0) }, arrival: 0 });
    runner.message({ input: { topic: "/odom", message: undefined, decodeError: "cut short at byte 40 of 120" }, arrival: 100_000_000 });
    runner.message({ input: { topic: "/odom", message: odometryMessage(200_000_000) }, arrival: 200_000_000 });
    runner.finish();
    expect(runner.drops).toEqual([{ sensor: "odom", topic: "/odom", stamp: NaN, reason: "undecodable", detail: "cut short at byte 40 of 120" }]);
    expect((runner.summary() as { transactions: number }).transactions).toBe(2);
  });

  it("a topic no message arrives on is named at the end; an ignition sensor's optional set_pose is not", () => {
    const runner = new FusionRunner(config());
    runner.start({ timeBase: TimeBase.forFirstSecNsec(SESSION_BASE_SEC, 0) });
    for (let k = 0; k <= 5; k++) {
      runner.message({ input: { topic: "/odom", message: odometryMessage(k * 100_000_000) }, arrival: k * 100_000_000 });
    }
    expect(runner.warnings).toEqual([]);
    runner.finish();
    expect(runner.warnings).toEqual(['fusion.sensors.imu.topic: no message arrived on "/gps", so imu (fuse_models::Imu2D) contributed nothing']);
    expect(runner.describe()).toContain('fusion warning: fusion.sensors.imu.topic: no message arrived on "/gps", so imu (fuse_models::Imu2D) contributed nothing');
  });
});
