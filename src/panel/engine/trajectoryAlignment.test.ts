import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

import type { EngineInput } from "./engineTypes";
import { recordingEvents, storeAfter } from "./testing";
import type { ViewStore } from "../state/ViewStore";
import { alignToStart, poseAt, startGap } from "../state/startAlignment";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BAG = [`${ROOT}samples/husky-2015.bag`, `${ROOT}../shared/data/husky-2015.bag`].find((p) => existsSync(p))!;
const HUSKY = JSON.parse(readFileSync(`${ROOT}config/husky.json`, "utf8")) as unknown;

let events: EngineInput[] = [];

beforeAll(async () => {
  events = await recordingEvents(BAG);
});

/** The panel's stores after the husky preset (fusion on) ran over [from, from + seconds) of the recording, as a live session joined there. */
function joinedAt(from: number, seconds: number): ViewStore {
  const t = (e: EngineInput): number => e.receiveTime.sec + e.receiveTime.nsec / 1e9;
  const t0 = t(events[0]!);
  const stretch = events.filter((e) => t(e) - t0 >= from && t(e) - t0 < from + seconds).map((e, seq) => ({ ...e, seq }));
  return storeAfter(HUSKY, stretch, 200);
}

describe("raw odometry aligned to the fused start, on the husky recording joined mid-run", () => {
  // 100 s in the robot heads −0.38 rad by its odometry and −0.08 by the IMU; 200 s in, 2.83 and
  // −3.09 rad; fuse's first published pose heads 0 (its ignition) either way.
  it.each([100, 200])("joined %i s in: the tracks start metres apart; aligned, raw odometry follows the fused track", (from) => {
    const store = joinedAt(from, 8);
    // The preset's odometry is its second input (slot 1); the IMU and GPS inputs carry no pose.
    expect([...store.rawTracks.keys()]).toEqual([1]);
    const anchor = store.startAnchors.get(1)!;
    expect(anchor).toBeDefined();
    expect(startGap(anchor)).toBeGreaterThan(1);
    const align = alignToStart(anchor);
    const fused = store.fusedPoses.toArray().filter((p) => p.stamp >= anchor.target.stamp);
    expect(fused.length).toBeGreaterThan(40);
    let offset = 0;
    let turn = 0;
    for (const f of fused) {
      const a = align(poseAt(store.rawTracks.get(1)!, f.stamp)!);
      offset = Math.max(offset, Math.hypot(a.x - f.x, a.y - f.y));
      turn = Math.max(turn, Math.abs(Math.atan2(Math.sin(a.yaw - f.yaw), Math.cos(a.yaw - f.yaw))));
    }
    // Wheel odometry drifts from the fused track (which takes its yaw from the IMU): within
    // decimetres and a few degrees over these 8 s and 7–8 m (0.47 m and 0.11 rad at most, 200 s
    // in); aligned by the ignition's heading, it would be metres off.
    const travelled = Math.hypot(fused[fused.length - 1]!.x - fused[0]!.x, fused[fused.length - 1]!.y - fused[0]!.y);
    expect(travelled).toBeGreaterThan(5);
    expect(offset).toBeLessThan(0.1 * travelled);
    expect(turn).toBeLessThan(0.2);
    console.log(`joined ${from} s in: start gap ${startGap(anchor).toFixed(2)} m, travelled ${travelled.toFixed(2)} m, aligned raw at most ${offset.toFixed(3)} m and ${turn.toFixed(3)} rad off`);
  });
});
