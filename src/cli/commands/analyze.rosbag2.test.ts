import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runAnalyze } from "./analyze";
import { parseConfig } from "../../pipeline";
import { HAS_SHARED_DATA, HUSKY_BAG, REPO_ROOT, sharedRecording } from "../../recording/testing/paths";

interface Outputs {
  tuples: string;
  drops: string;
  /** transactions.jsonl without the constraint UUIDs (fuse draws them at random). */
  transactions: unknown[];
  summary: { tuples: number; drops: Record<string, number>; transactions: number; fusion: unknown };
}

/** Runs `analyze` with config/husky.json, or only its synchronizer. */
async function analyze(file: string, out: string, parts: "sync-and-fusion" | "sync-only" = "sync-and-fusion"): Promise<Outputs> {
  const withFusion = parts === "sync-and-fusion";
  const husky = JSON.parse(await readFile(join(REPO_ROOT, "config/husky.json"), "utf8")) as Record<string, unknown>;
  if (!withFusion) {
    delete husky.fusion;
  }
  const config = parseConfig(husky);
  const result = await runAnalyze({ file, config, out, progress: false });
  expect(result.error).toBeUndefined();
  const transactions = (withFusion ? await readFile(join(out, "transactions.jsonl"), "utf8") : "")
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const t = JSON.parse(line) as { addedConstraints: { uuid?: string }[]; removedConstraints: unknown[] };
      for (const c of t.addedConstraints) {
        delete c.uuid;
      }
      t.removedConstraints = t.removedConstraints.length as unknown as unknown[];
      return t;
    });
  const summary = JSON.parse(await readFile(join(out, "summary.json"), "utf8")) as Outputs["summary"];
  return {
    tuples: await readFile(join(out, "tuples.jsonl"), "utf8"),
    drops: await readFile(join(out, "drops.jsonl"), "utf8"),
    transactions,
    summary,
  };
}

describe.skipIf(!HAS_SHARED_DATA)("analyze on husky-2015's ROS 2 forms equals the ROS 1 bag", () => {
  let dir: string;
  let reference: Outputs;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lockstep-analyze-ros2-"));
    reference = await analyze(HUSKY_BAG, join(dir, "bag"));
  }, 300_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const syncDrops = (jsonl: string): string =>
    jsonl
      .split("\n")
      .filter((line) => line.includes('"stage":"sync"'))
      .join("\n");

  // Fusion is the costly part: it runs on the Humble form (no definitions in the file, the form
  // most likely to differ); the other two forms decode to the same messages field by field
  // (Rosbag2Recording.test.ts) and are compared here through the synchronizer.
  for (const form of ["husky-2015-sqlite3", "husky-2015.mcap"]) {
    it(`${form}: the same tuples and synchronizer drops`, async () => {
      const got = await analyze(sharedRecording(`ros2/${form}`), join(dir, form), "sync-only");
      expect(reference.summary.tuples).toBeGreaterThan(500);
      expect(got.tuples).toBe(reference.tuples);
      expect(syncDrops(got.drops)).toBe(syncDrops(reference.drops));
      expect(got.summary.tuples).toBe(reference.summary.tuples);
    }, 300_000);
  }

  for (const form of ["husky-2015-sqlite3-humble"]) {
    it(`${form}: the same tuples, drops, transactions and fused final pose`, async () => {
      const got = await analyze(sharedRecording(`ros2/${form}`), join(dir, form));
      expect(reference.summary.tuples).toBeGreaterThan(500);
      expect(got.tuples).toBe(reference.tuples);
      expect(got.drops).toBe(reference.drops);
      expect(got.summary.tuples).toBe(reference.summary.tuples);
      expect(got.summary.drops).toEqual(reference.summary.drops);
      expect(got.summary.fusion).toEqual(reference.summary.fusion);
      expect(got.transactions.length).toBe(reference.transactions.length);
      expect(got.transactions).toEqual(reference.transactions);
    }, 300_000);
  }
});
