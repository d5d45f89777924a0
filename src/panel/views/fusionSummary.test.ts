import { describe, expect, it } from "vitest";

import { fusionSummaryLines } from "./fusionSummary";
import type { FusionSummary } from "../engine/engineTypes";

const stampText = (stamp: number): string => `t${stamp}`;

const HUSKY_LIKE: FusionSummary = {
  transactions: 15816,
  transactionsBySensor: [
    ["ignition", 1],
    ["wheel_odometry", 3952],
    ["imu", 11863],
  ],
  drops: [["too-late", 2]],
  latestDrops: [
    { sensor: "imu", topic: "/imu/data", stamp: 5, reason: "too-late", detail: "its oldest involved stamp is 0.02 s older than the lag expiration" },
  ],
  finalPose: { stamp: 7, x: -39.8912, y: -77.1024, z: 0, roll: 0, pitch: 0, yaw: 2.87871 },
  warnings: ['sensor "imu": rotated'],
};

describe("fusionSummaryLines", () => {
  it("says what analyze's summary says: transactions per sensor, drops per reason, the final pose, the warnings", () => {
    expect(fusionSummaryLines(HUSKY_LIKE, stampText)).toEqual([
      { kind: "transactions", text: "15816 transactions (ignition 1, wheel_odometry 3952, imu 11863)" },
      { kind: "drops", text: "fusion drops: too-late 2" },
      { kind: "drop", text: "imu (/imu/data) at t5: too-late, its oldest involved stamp is 0.02 s older than the lag expiration" },
      { kind: "pose", text: "final pose at t7: x -39.891 m, y -77.102 m, yaw 2.8787 rad" },
      { kind: "warning", text: 'warning: sensor "imu": rotated' },
    ]);
  });

  it("gives a 3D pose its height and attitude, and says when nothing was dropped or sent yet", () => {
    const lines = fusionSummaryLines(
      {
        transactions: 0,
        transactionsBySensor: [],
        drops: [],
        latestDrops: [],
        finalPose: { stamp: 1, x: 1, y: 2, z: 0.5, roll: 0.01, pitch: -0.02, yaw: 0 },
        warnings: [],
      },
      stampText,
    );
    expect(lines.map((l) => l.text)).toEqual([
      "0 transactions",
      "no fusion drops",
      "final pose at t1: x 1.000 m, y 2.000 m, z 0.500 m, roll 0.0100 rad, pitch -0.0200 rad, yaw 0.0000 rad",
    ]);
  });
});
