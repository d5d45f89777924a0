import { describe, expect, it } from "vitest";

import { quaternionAt, rpyOf, yawOf } from "./orientation";

/** Quaternion of fixed-axis roll/pitch/yaw (tf2 setRPY), written out independently. */
function fromRpy(r: number, p: number, y: number): { x: number; y: number; z: number; w: number } {
  const [cr, sr, cp, sp, cy, sy] = [Math.cos(r / 2), Math.sin(r / 2), Math.cos(p / 2), Math.sin(p / 2), Math.cos(y / 2), Math.sin(y / 2)];
  return {
    x: sr * cp * cy - cr * sp * sy,
    y: cr * sp * cy + sr * cp * sy,
    z: cr * cp * sy - sr * sp * cy,
    w: cr * cp * cy + sr * sp * sy,
  };
}

describe("orientation", () => {
  it("yaw of pure rotations about Z", () => {
    for (const yaw of [0, 0.3, -1.2, Math.PI / 2, 3.0]) {
      expect(yawOf({ x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) })).toBeCloseTo(yaw, 12);
    }
    // scale does not matter
    expect(yawOf({ x: 0, y: 0, z: 2 * Math.sin(0.4), w: 2 * Math.cos(0.4) })).toBeCloseTo(0.8, 12);
  });

  it("rpy round-trips", () => {
    for (const [r, p, y] of [
      [0.1, 0.2, 0.3],
      [-1, 0.5, 2.5],
      [1.570796327, 0, -1.570796327],
    ] as const) {
      const [rr, pp, yy] = rpyOf(fromRpy(r, p, y));
      expect(rr).toBeCloseTo(r, 9);
      expect(pp).toBeCloseTo(p, 9);
      expect(yy).toBeCloseTo(y, 9);
    }
  });

  it("finds quaternions inside messages", () => {
    const odom = { pose: { pose: { orientation: { x: 0, y: 0, z: 0, w: 1 } } } };
    expect(quaternionAt(odom, "pose", "pose", "orientation")).toBe(odom.pose.pose.orientation);
    expect(quaternionAt(odom, "pose", "nope", "orientation")).toBeUndefined();
    expect(quaternionAt({ orientation: { x: 1 } }, "orientation")).toBeUndefined();
  });
});
