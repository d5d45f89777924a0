import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

import { HAS_SHARED_DATA, HUSKY_BAG, REPO_ROOT, sharedRecording } from "./testing/paths";
import { FusionRunner } from "../fusion/runner/FusionRunner";
import { replayRecording, staticTransforms, transactionsByOrder, type PresetTransform } from "../fusion/testing/replayRecording";

interface Husky {
  fusion: unknown;
  transforms: PresetTransform[];
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
  const runner = await replayRecording(new FusionRunner(HUSKY.fusion), file, {
    transforms: staticTransforms(HUSKY.transforms),
    stop: (arrival, first) => arrival - first > SECONDS * 1e9,
  });
  return { transactions: transactionsByOrder(runner), pose: runner.finalPose };
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
