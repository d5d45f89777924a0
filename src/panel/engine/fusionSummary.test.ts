// The transactions tab's summary of a fusion run (EngineDelta.fusion) against `lockstep analyze`
// on the same recording: the same transaction counts per sensor, the same drops (counts, and the
// newest of them with their stamps), the same warnings and final pose.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { AnalysisEngine, FUSION_DROP_EXAMPLES } from "./AnalysisEngine";
import type { EngineDelta } from "./engineTypes";
import { recordingEvents } from "./testing";
import { runAnalyze } from "../../cli/commands/analyze";
import { parseConfig } from "../../pipeline";
import { HUSKY_BAG, REPO_ROOT } from "../../recording/testing/paths";

const CONFIG = JSON.parse(readFileSync(join(REPO_ROOT, "config/husky.json"), "utf8")) as unknown;

interface Summary {
  transactions: number;
  fusion: {
    transactionsBySensor: Record<string, number>;
    drops: Record<string, number>;
    warnings: string[];
    finalPose: { stamp: string; x: number; y: number; z: number; roll: number; pitch: number; yaw: number };
  };
}

describe("the fusion summary of the husky preset in the panel engine", () => {
  let out: string;
  let summary: Summary;
  let fusionDrops: { topic: string; stamp: string; reason: string }[];
  let last: EngineDelta;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "lockstep-fusion-summary-"));
    const result = await runAnalyze({ file: HUSKY_BAG, config: parseConfig(CONFIG), out, progress: false });
    expect(result.errors).toEqual([]);
    summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Summary;
    fusionDrops = readFileSync(join(out, "drops.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { stage?: string; topic: string; stamp: string; reason: string })
      .filter((d) => d.stage === "fusion");
    const engine = new AnalysisEngine(CONFIG);
    const events = await recordingEvents(HUSKY_BAG);
    for (let i = 0; i < events.length; i += 2000) {
      engine.ingest(events.slice(i, i + 2000));
      last = engine.takeDelta();
    }
    engine.finish();
    last = engine.takeDelta();
  }, 300_000);

  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
  });

  it("counts analyze's transactions per sensor and its drops per reason, with its warnings", () => {
    const fusion = last.fusion!;
    expect(fusion.transactions).toBe(summary.transactions);
    expect(Object.fromEntries(fusion.transactionsBySensor)).toEqual(summary.fusion.transactionsBySensor);
    expect(Object.fromEntries(fusion.drops)).toEqual(summary.fusion.drops);
    // The preset drops messages and warns about the IMU's mount: neither list is empty here.
    expect(fusion.drops.length).toBeGreaterThan(0);
    expect(fusion.warnings.length).toBeGreaterThan(0);
    expect(fusion.warnings).toEqual(summary.fusion.warnings);
  });

  it("lists analyze's newest fusion drops, oldest first, at their stamps, and its final pose", () => {
    const fusion = last.fusion!;
    const base = BigInt(last.baseSec!) * 1_000_000_000n;
    const listed = fusion.latestDrops.map((d) => ({ topic: d.topic, stamp: String(base + BigInt(d.stamp)), reason: d.reason }));
    const expected = fusionDrops.slice(-FUSION_DROP_EXAMPLES).map((d) => ({ topic: d.topic, stamp: d.stamp, reason: d.reason }));
    expect(listed).toEqual(expected);
    expect(fusion.latestDrops.every((d) => d.detail !== "")).toBe(true);
    const { stamp, ...pose } = summary.fusion.finalPose;
    const p = fusion.finalPose!;
    expect(String(base + BigInt(p.stamp))).toBe(stamp);
    expect({ x: p.x, y: p.y, z: p.z, roll: p.roll, pitch: p.pitch, yaw: p.yaw }).toEqual(pose);
  });
});
