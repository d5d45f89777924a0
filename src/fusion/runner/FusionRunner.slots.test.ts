import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { FusionRunner } from "./FusionRunner";
import { TimeBase } from "../../time";
import { FusionConfigError } from "../config";

const BASE_SEC = 1_432_235_497;
const CONFIG = {
  uuidRecipe: "ros1",
  motionModels: { unicycle: { type: "fuse_models::Unicycle2D", processNoiseDiagonal: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1] } },
};

describe("FusionRunner sensor slots", () => {
  const withSlot = (slot: number) => ({
    ...CONFIG,
    sensors: { imu: { type: "fuse_models::Imu2D", motionModels: ["unicycle"], slot, angularVelocityDimensions: ["yaw"] } },
  });
  const inputs = [{ topic: "/a" }, { topic: "/b" }, { topic: "/c" }];

  it("rejects a slot outside the inputs at construction when the inputs are given", () => {
    let err: unknown;
    try {
      new FusionRunner(withSlot(5), { inputs });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FusionConfigError);
    expect((err as FusionConfigError).path).toBe("fusion.sensors.imu.slot");
    expect((err as Error).message).toMatch(/^fusion\.sensors\.imu\.slot: 5 is not an input slot; the pipeline has 3 inputs \(0\.\.2\)/);
    expect(() => new FusionRunner(withSlot(2), { inputs })).not.toThrow();
  });

  it("otherwise rejects it at start, against the start context's inputs", () => {
    const runner = new FusionRunner(withSlot(1));
    const timeBase = TimeBase.forFirstSecNsec(BASE_SEC, 0);
    expect(() => {
      runner.start({ timeBase, config: { inputs: [{ topic: "/a" }] } });
    }).toThrow(/fusion\.sensors\.imu\.slot: 1 is not an input slot; the pipeline has 1 input \(0\)/);
    expect(() => {
      new FusionRunner(withSlot(0)).start({ timeBase });
    }).toThrow(/the pipeline has no inputs/);
    const ok = new FusionRunner(withSlot(1));
    ok.start({ timeBase, config: { inputs } });
    expect(ok.topics).toEqual([]);
  });
});

describe("lockstep analyze with a fusion sensor slot outside the inputs", () => {
  it("exits 2 before reading the recording, naming the JSON path and the valid slots", () => {
    const husky = JSON.parse(readFileSync("config/husky.json", "utf8")) as {
      fusion: { sensors: Record<string, Record<string, unknown>> };
    };
    const imu = husky.fusion.sensors.imu!;
    delete imu.topic;
    imu.slot = 5;
    const dir = mkdtempSync(join(tmpdir(), "lockstep-slot-"));
    try {
      const config = join(dir, "config.json");
      writeFileSync(config, JSON.stringify(husky));
      const out = spawnSync(process.execPath, ["bin/lockstep.js", "analyze", "samples/husky-2015.bag", "--config", config], {
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(out.status).toBe(2);
      expect(out.stderr).toContain("fusion.sensors.imu.slot: 5 is not an input slot; the pipeline has 3 inputs (0..2)");
      expect(out.stderr).not.toMatch(/RangeError|\n\s+at /);
      expect(out.stdout).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
