import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { axis, trajectoryExtent } from "./Trajectory3DView";
import { VIEWS } from "./registry";
import type { FusedPose } from "../engine/engineTypes";
import { RingBuffer } from "../state/RingBuffer";

const coordinate = fc.double({ min: -1e4, max: 1e4, noNaN: true });
const pose = fc.record({ x: coordinate, y: coordinate, z: coordinate, roll: coordinate, pitch: coordinate, yaw: coordinate });

describe("the 3D trajectory view's geometry", () => {
  it("the extent bounds every retained pose and is reached by some, also after the ring wrapped", () => {
    fc.assert(
      fc.property(fc.array(pose, { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 40 }), (list, capacity) => {
        const ring = new RingBuffer<FusedPose>(capacity);
        list.forEach((p, i) => ring.push({ ...p, stamp: i * 20_000_000 }));
        const kept = list.slice(-capacity);
        const e = trajectoryExtent(ring)!;
        for (const [k, lo, hi] of [
          ["x", e.minX, e.maxX],
          ["y", e.minY, e.maxY],
          ["z", e.minZ, e.maxZ],
        ] as const) {
          const values = kept.map((p) => p[k]);
          expect(values.every((v) => v >= lo && v <= hi)).toBe(true);
          expect(values).toContain(lo);
          expect(values).toContain(hi);
        }
        expect(e.firstStamp).toBe((list.length - kept.length) * 20_000_000);
        expect(e.lastStamp).toBe((list.length - 1) * 20_000_000);
      }),
    );
    expect(trajectoryExtent(new RingBuffer<FusedPose>(4))).toBeUndefined();
  });

  it("an axis maps its interval onto the pixels in order (upward too), a flat one to the middle", () => {
    fc.assert(
      fc.property(coordinate, fc.double({ min: 1e-3, max: 1e4, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (lo, span, f) => {
        const up = axis(lo, lo + span, 300, 20);
        expect(up(lo)).toBeCloseTo(300, 6);
        expect(up(lo + span)).toBeCloseTo(20, 6);
        const y = up(lo + f * span);
        expect(y).toBeGreaterThanOrEqual(20 - 1e-6);
        expect(y).toBeLessThanOrEqual(300 + 1e-6);
      }),
    );
    expect(axis(2, 2, 300, 20)(2)).toBe(160);
  });

  it("is a tab of the panel", () => {
    expect(VIEWS.map((v) => v.id)).toContain("trajectory-3d");
  });
});
