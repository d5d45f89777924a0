import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

import { openRecordingFile } from "./node";
import { HAS_SHARED_DATA, HUSKY_BAG, REPO_ROOT, sharedRecording } from "./testing/paths";
import { TransformBuffer } from "../filters/tf";
import { quatFromRpy } from "../fusion/models";
import { FusionRunner } from "../fusion/runner/FusionRunner";
import { TimeBase } from "../time";

interface Husky {
  fusion: unknown;
  transforms: { parent: string; child: string; translation: [number, number, number]; rpy: [number, number, number] }[];
}

const HUSKY = JSON.parse(readFileSync(`${REPO_ROOT}/config/husky.json`, "utf8")) as Husky;
/** Receive-time seconds of each recording fused: enough for every sensor and marginalization (lag 1 s). */
const SECONDS = 12;

/**
 * config/husky.json's fusion over the first SECONDS of a recording: the transactions as JSON
 * (constraints named by the order they were added: fuse draws their UUIDs at random) and the
 * final pose.
 */
async function fuse(file: string): Promise<{ transactions: unknown[]; pose: unknown }> {
  const runner = new FusionRunner(HUSKY.fusion);
  const transforms = new TransformBuffer();
  for (const t of HUSKY.transforms) {
    transforms.setStaticTransform(t.parent, t.child, { translation: t.translation, rotation: quatFromRpy(...t.rpy) });
  }
  const rec = await openRecordingFile(file);
  let base: TimeBase | undefined;
  let first: number | undefined;
  for await (const m of rec.messages({ topics: runner.topics })) {
    if (base == undefined) {
      base = TimeBase.forFirstSecNsec(m.receiveTime.sec, m.receiveTime.nsec);
      runner.start({ timeBase: base, transforms });
    }
    const arrival = base.fromSecNsec(m.receiveTime.sec, m.receiveTime.nsec);
    first ??= arrival;
    if (arrival - first > SECONDS * 1e9) {
      break;
    }
    runner.message({ input: m, arrival });
  }
  runner.finish();
  await rec.close();
  const ordinal = new Map<string, number>();
  const transactions = runner.transactionLines.map((line) => {
    const t = JSON.parse(line) as { addedConstraints: { uuid?: string }[]; removedConstraints: unknown[] };
    for (const c of t.addedConstraints) {
      ordinal.set(c.uuid!, ordinal.size);
      delete c.uuid;
    }
    t.removedConstraints = t.removedConstraints.map((u) => ordinal.get(u as string) ?? u);
    return t;
  });
  return { transactions, pose: runner.finalPose };
}

describe.skipIf(!HAS_SHARED_DATA)("fusion on husky-2015's ROS 2 forms equals the ROS 1 bag", () => {
  it(`the Jazzy folder and the ROS 2 MCAP give the bag's transactions and final pose (first ${SECONDS} s)`, async () => {
    const reference = await fuse(HUSKY_BAG);
    expect(reference.transactions.length).toBeGreaterThan(300);
    for (const form of ["ros2/husky-2015-sqlite3", "ros2/husky-2015.mcap"]) {
      const got = await fuse(sharedRecording(form));
      expect(got.transactions.length, form).toBe(reference.transactions.length);
      expect(got.transactions, form).toEqual(reference.transactions);
      expect(got.pose, form).toEqual(reference.pose);
    }
  }, 120_000);
});
