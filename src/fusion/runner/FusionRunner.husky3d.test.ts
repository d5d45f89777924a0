import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";

import { FusionRunner } from "./FusionRunner";
import { replayRecording, staticTransforms, type PresetTransform } from "../testing/replayRecording";

type Preset = { transforms: PresetTransform[]; fusion: Record<string, unknown> };

/** config/husky.json's fusion on the 3D models, measuring what the 2D preset measures (planar). */
function husky3D(preset: Preset): Record<string, unknown> {
  return {
    ...preset.fusion,
    motionModels: {
      omni: {
        type: "fuse_models::Omnidirectional3D",
        processNoiseDiagonal: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 1],
      },
    },
    sensors: {
      ignition: {
        type: "fuse_models::Omnidirectional3DIgnition",
        motionModels: ["omni"],
        ignition: true,
        initialSigma: [0.01, 0.01, 0.01, 0.01, 0.01, 3.14, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.5, 0.5, 0.5],
      },
      wheel_odometry: {
        type: "fuse_models::Odometry3D",
        motionModels: ["omni"],
        topic: "/husky_velocity_controller/odom",
        twistTargetFrame: "base_link",
        linearVelocityDimensions: ["x", "y", "z"],
      },
      imu: {
        type: "fuse_models::Imu3D",
        motionModels: ["omni"],
        topic: "/imu/data",
        orientationTargetFrame: "base_link",
        twistTargetFrame: "base_link",
        accelerationTargetFrame: "base_link",
        orientationTransform: "body",
        orientationDimensions: ["yaw"],
        angularVelocityDimensions: ["yaw"],
        linearAccelerationDimensions: ["x", "y"],
        removeGravitationalAcceleration: true,
      },
    },
  };
}

/** Seconds of the recording used (the first part, to keep the test's runtime modest). */
const SPAN_NS = 90e9;

async function run(fusion: unknown, preset: Preset): Promise<FusionRunner> {
  return await replayRecording(new FusionRunner(fusion).setRetention({ transactions: 0 }), "samples/husky-2015.bag", {
    transforms: staticTransforms(preset.transforms),
    stop: (arrival) => arrival > SPAN_NS,
  });
}

describe("husky-2015.bag (first 90 s) through the 3D models (a planar recording)", () => {
  let planar: FusionRunner;
  let spatial: FusionRunner;

  beforeAll(async () => {
    const preset = JSON.parse(readFileSync("config/husky.json", "utf8")) as Preset;
    planar = await run(preset.fusion, preset);
    spatial = await run(husky3D(preset), preset);
  }, 300_000);

  it("stays within 0.3 m of the 2D result and near z = 0", () => {
    const a = planar.finalPose!;
    const b = spatial.finalPose!;
    // The robot has moved well away from the start by then, so agreement is not trivial.
    expect(Math.hypot(a.x, a.y)).toBeGreaterThan(5);
    expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeLessThan(0.3);
    expect(Math.abs(b.z)).toBeLessThan(0.3);
    expect(Math.abs(b.yaw - a.yaw)).toBeLessThan(0.05);
  });
});
