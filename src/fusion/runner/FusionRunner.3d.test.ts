import { existsSync, readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";

import { FusionRunner } from "./FusionRunner";
import type { TransactionJson } from "../core";
import { replayRecording } from "../testing/replayRecording";

const BAG = "../shared/data/jackal-sim-2014.bag";

describe.skipIf(!existsSync(BAG))("jackal-sim-2014.bag with config/jackal-3d.json (3D fusion)", () => {
  let runner: FusionRunner;
  const streamed: string[] = [];

  beforeAll(async () => {
    const cfg = JSON.parse(readFileSync("config/jackal-3d.json", "utf8")) as { fusion: unknown };
    // Stream, keep nothing: what a writer independent of the recording's length does.
    runner = new FusionRunner(cfg.fusion).setRetention({ transactions: 0 });
    runner.onTransaction((r) => {
      if (r.index % 500 === 0) {
        streamed.push(r.line());
      }
    });
    await replayRecording(runner, BAG);
  }, 240_000);

  it("ends within 0.3 m of robot_localization's 3D EKF reference (1.0206, 3.4292, 0.7419)", () => {
    const p = runner.finalPose!;
    expect(Math.hypot(p.x - 1.0206, p.y - 3.4292, p.z - 0.7419)).toBeLessThan(0.3);
  });

  it("accounts for every message and streams transactions while retaining none", () => {
    const drops = runner.drops.length;
    expect(runner.transactionCount + drops).toBe(1 + 3061 + 3060);
    expect(runner.retainedTransactionCount).toBe(0);
    expect(streamed.length).toBe(Math.ceil(runner.transactionCount / 500));
  });

  it("writes 3D variables and constraints with fuse's type names, quaternions of unit norm", () => {
    const tx = streamed.map((l) => JSON.parse(l) as TransactionJson);
    const types = new Set(tx.flatMap((t) => [...t.addedVariables.map((v) => v.type), ...t.addedConstraints.map((c) => c.type)]));
    for (const t of [
      "fuse_variables::Position3DStamped",
      "fuse_variables::Orientation3DStamped",
      "fuse_variables::VelocityLinear3DStamped",
      "fuse_variables::VelocityAngular3DStamped",
      "fuse_variables::AccelerationLinear3DStamped",
      "fuse_models::Omnidirectional3DStateKinematicConstraint",
      "fuse_constraints::AbsolutePose3DStampedConstraint",
    ]) {
      expect(types, t).toContain(t);
    }
    for (const t of tx) {
      for (const v of t.addedVariables.filter((x) => x.type === "fuse_variables::Orientation3DStamped")) {
        expect(Math.abs(Math.hypot(...v.data) - 1)).toBeLessThan(1e-9);
      }
    }
    const summary = runner.summary() as { fusion: { finalPose: Record<string, unknown> } };
    expect(Object.keys(summary.fusion.finalPose)).toEqual(["stamp", "x", "y", "z", "roll", "pitch", "yaw"]);
  });
});
