import { describe, expect, it } from "vitest";

import { checkParameter, fuseName, motionModelDescriptors, sensorDescriptors } from ".";
import { TimeBase } from "../../time";
import { FusionConfigError, parseFusionConfig, validateFusionConfig } from "../config";
import { thrownBy } from "../config/testing";
import { FusionRunner } from "../runner";

const minimal = (): Record<string, Record<string, Record<string, unknown>>> => ({
  motionModels: { uni: { type: "fuse_models::Unicycle2D", processNoiseDiagonal: [1, 1, 1, 1, 1, 1, 1, 1] } },
  sensors: {
    ignition: { type: "fuse_models::Unicycle2DIgnition", motionModels: ["uni"], ignition: true },
    odom: { type: "fuse_models::Odometry2D", topic: "/odom", motionModels: ["uni"], linearVelocityDimensions: ["x"] },
  },
});

describe("fusion plugin registry", () => {
  const all = [...sensorDescriptors(), ...motionModelDescriptors()];

  it("registers fuse's 2D plugins under fuse's class names", () => {
    expect(all.map((d) => d.type)).toEqual(
      expect.arrayContaining(["fuse_models::Odometry2D", "fuse_models::Imu2D", "fuse_models::Unicycle2DIgnition", "fuse_models::Unicycle2D"]),
    );
    for (const d of all) {
      expect(d.type).toMatch(/^fuse_models::\w+$/);
    }
  });

  it("describes each parameter once, with help, and every default passes its own check", () => {
    for (const d of all) {
      const names = d.parameters.map((p) => p.name);
      expect(new Set(names).size, d.type).toBe(names.length);
      for (const p of d.parameters) {
        expect(p.help.length, `${d.type}.${p.name}`).toBeGreaterThan(5);
        if (p.default != undefined) {
          expect(() => checkParameter(p, p.default), `${d.type}.${p.name}`).not.toThrow();
        }
      }
    }
  });

  it("spells parameters as fuse's YAML does", () => {
    expect(fuseName("linearVelocityDimensions")).toBe("linear_velocity_dimensions");
    expect(fuseName("topic")).toBe("topic");
  });

  it("names the registered types for an unknown type instead of building a default", () => {
    const c = minimal();
    c.sensors!.odom!.type = "fuse_models::Odometry9D";
    expect(() => parseFusionConfig(c)).toThrow(/fusion\.sensors\.odom\.type: unknown sensor model "fuse_models::Odometry9D" \(registered: .*fuse_models::Odometry2D/);
    c.motionModels!.uni!.type = "fuse_models::Bicycle";
    const issues = validateFusionConfig(c);
    expect(issues.map((i) => i.path)).toEqual(["fusion.motionModels.uni.type", "fusion.sensors.odom.type"]);
    expect(issues[0]!.message).toMatch(/registered: .*fuse_models::Unicycle2D/);
  });

  it("reports every problem with its JSON path, and none for a valid config", () => {
    expect(validateFusionConfig(minimal())).toEqual([]);
    const c = minimal();
    c.sensors!.ignition!.initialSigma = [0.1, 0.1, -0.1, 0.1, 0.1, 0.1, 0.1, 0.1];
    c.sensors!.odom!.throttlePeriod = "often";
    c.motionModels!.uni!.velocityNormMin = -1;
    expect(validateFusionConfig(c).map((i) => i.path)).toEqual([
      "fusion.motionModels.uni.velocityNormMin",
      "fusion.sensors.ignition.initialSigma[2]",
      "fusion.sensors.odom.throttlePeriod",
    ]);
    const err = thrownBy(() => parseFusionConfig(c));
    expect(err).toBeInstanceOf(FusionConfigError);
    expect((err as FusionConfigError).path).toBe("fusion.motionModels.uni.velocityNormMin");
  });

  it("a sensor on a topic of the wrong message type is a config error naming topic, type and the types it reads", () => {
    const runner = new FusionRunner({ ...minimal(), uuidRecipe: "ros1" });
    runner.start({ timeBase: TimeBase.forFirstSecNsec(100, 0) });
    const message = { header: { stamp: { sec: 100, nsec: 0 }, frame_id: "imu" } };
    expect(() => { runner.message({ input: { topic: "/odom", message, schemaName: "sensor_msgs/msg/Imu" }, arrival: 0 }); }).toThrow(
      /fusion\.sensors\.odom\.topic: topic "\/odom" carries sensor_msgs\/msg\/Imu, but fuse_models::Odometry2D reads nav_msgs\/Odometry/,
    );
  });
});

describe("fusion config schema", () => {
  it("has one entry per registered plugin with its parameters", async () => {
    const { fusionConfigSchema } = await import("../config");
    const schema = fusionConfigSchema() as { properties: { sensors: { additionalProperties: { oneOf: { properties: Record<string, unknown> }[] } } } };
    const entries = schema.properties.sensors.additionalProperties.oneOf;
    expect(entries).toHaveLength(sensorDescriptors().length);
    const odom = entries.find((e) => (e.properties.type as { const: string }).const === "fuse_models::Odometry2D")!;
    expect(Object.keys(odom.properties)).toContain("linearVelocityDimensions");
  });
});
