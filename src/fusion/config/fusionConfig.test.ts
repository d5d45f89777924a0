import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

import { FusionConfigError } from "./FusionConfigError";
import { parseFusionConfig } from "./fusionConfig";
import { thrownBy } from "./testing";

// Loosely typed on purpose: each case breaks the config in its own way.
type Cfg = Record<string, Record<string, Record<string, unknown>>> & { optimizer?: unknown; uuidRecipe?: unknown };
const minimal = (): Cfg => ({
  motionModels: { uni: { type: "fuse_models::Unicycle2D", processNoiseDiagonal: [1, 1, 1, 1, 1, 1, 1, 1] } },
  sensors: { odom: { type: "fuse_models::Odometry2D", topic: "/odom", motionModels: ["uni"], linearVelocityDimensions: ["x"] } },
});

describe("fusion config", () => {
  it("parses the tutorial preset with durations in ns and defaults", () => {
    const cfg = JSON.parse(readFileSync("config/fuse-simple-tutorial.json", "utf8")) as { fusion: unknown };
    const f = parseFusionConfig(cfg.fusion);
    expect(f.optimizer).toEqual({ type: "fixed-lag", lag: 500_000_000, updatePeriod: 50_000_000, transactionTimeout: 10_000_000, maxIterations: 50 });
    expect([...f.sensors.keys()]).toEqual(["initial_localization_sensor", "odometry_sensor", "imu_sensor"]);
    expect(f.sensors.get("initial_localization_sensor")!.ignition).toBe(true);
    expect(f.uuidRecipe).toBe("ros1");
  });

  it.each([
    [(c: Cfg) => (c.sensors!.odom!.linearVelocityDimensions = ["x", "yaw"]), "fusion.sensors.odom.linearVelocityDimensions[1]"],
    [(c: Cfg) => (c.sensors!.odom!.bogus = 1), "fusion.sensors.odom.bogus"],
    [(c: Cfg) => (c.sensors!.odom!.motionModels = ["nope"]), "fusion.sensors.odom.motionModels[0]"],
    [(c: Cfg) => (c.sensors!.odom!.type = "fuse_models::Odometry9D"), "fusion.sensors.odom.type"],
    [(c: Cfg) => delete c.sensors!.odom!.topic, "fusion.sensors.odom"],
    [(c: Cfg) => (c.sensors!.odom!.throttlePeriod = "fast"), "fusion.sensors.odom.throttlePeriod"],
    [(c: Cfg) => (c.motionModels!.uni!.processNoiseDiagonal = [1, 2]), "fusion.motionModels.uni.processNoiseDiagonal"],
    [(c: Cfg) => (c.optimizer = { type: "isam" }), "fusion.optimizer.type"],
    [(c: Cfg) => (c.uuidRecipe = "ros3"), "fusion.uuidRecipe"],
    [(c: Cfg) => (c.sensors!.odom!.poseLoss = { type: 3 }), "fusion.sensors.odom.poseLoss"],
    [(c: Cfg) => (c.sensors!.odom!.slot = 1.5), "fusion.sensors.odom.slot"],
    [(c: Cfg) => (c.sensors!.odom!.slot = -1), "fusion.sensors.odom.slot"],
  ])("rejects bad input with the JSON path (%#)", (mutate, path) => {
    const c = minimal();
    mutate(c);
    const err = thrownBy(() => parseFusionConfig(c));
    expect(err).toBeInstanceOf(FusionConfigError);
    expect((err as FusionConfigError).path).toBe(path);
  });
});
