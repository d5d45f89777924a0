import { describe, expect, it } from "vitest";

import { odometryPose } from "./AnalysisEngine";
import type { Pose2D } from "./engineTypes";
import { RingBuffer } from "../state/RingBuffer";
import { poseBounds } from "../views/TrajectoryView";

const odometry = (x: number, y: number, q = { x: 0, y: 0, z: Math.sin(0.25), w: Math.cos(0.25) }): unknown => ({
  pose: { pose: { position: { x, y, z: 0 }, orientation: q } },
});

describe("the raw odometry pose the trajectory tab draws", () => {
  it("is read from pose.pose (yaw from the orientation; 0 without one)", () => {
    const p = odometryPose(odometry(1.5, -2))!;
    expect([p.x, p.y]).toEqual([1.5, -2]);
    expect(p.yaw).toBeCloseTo(0.5, 12);
    expect(odometryPose({ pose: { pose: { position: { x: 1, y: 2 } } } })).toEqual({ x: 1, y: 2, yaw: 0 });
    expect(odometryPose({ twist: {} })).toBeUndefined();
  });

  it("is none for a message with a position or orientation that is not finite, which keeps every other pose in view", () => {
    const bad = [
      odometry(NaN, 0),
      odometry(0, Infinity),
      odometry(0, 0, { x: 0, y: 0, z: NaN, w: 1 }),
      odometry(0, 0, { x: 0, y: 0, z: 1, w: -Infinity }),
    ];
    for (const message of bad) {
      expect(odometryPose(message)).toBeUndefined();
    }
    const ring = new RingBuffer<Pose2D>(8);
    for (const [i, message] of [odometry(0, 0), ...bad, odometry(3, 4)].entries()) {
      const pose = odometryPose(message);
      if (pose) {
        ring.push({ stamp: i, ...pose });
      }
    }
    expect(poseBounds([ring])).toEqual([0, 0, 3, 4]);
  });
});
