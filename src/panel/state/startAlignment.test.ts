import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { RingBuffer } from "./RingBuffer";
import { alignToStart, poseAt, START_POSES, startAnchor, startGap, trackAnchor } from "./startAlignment";
import type { Pose2D } from "../engine/engineTypes";

const ring = (poses: readonly Pose2D[], capacity = Math.max(1, poses.length)): RingBuffer<Pose2D> => {
  const r = new RingBuffer<Pose2D>(capacity);
  poses.forEach((p) => r.push(p));
  return r;
};

/** The smallest difference between two angles (rad). */
const angleDiff = (a: number, b: number): number => Math.abs(Math.atan2(Math.sin(a - b), Math.cos(a - b)));

const coordinate = fc.double({ min: -1e3, max: 1e3, noNaN: true });
const angle = fc.double({ min: -Math.PI, max: Math.PI, noNaN: true });
/** A track of 2–40 poses at strictly increasing stamps. */
const track = fc
  .array(fc.record({ x: coordinate, y: coordinate, yaw: angle, dt: fc.integer({ min: 1, max: 200_000_000 }) }), { minLength: 2, maxLength: 40 })
  .map((steps) => {
    let stamp = 0;
    return steps.map(({ x, y, yaw, dt }) => ({ stamp: (stamp += dt), x, y, yaw }));
  });
/** A rigid motion of the plane: a turn and a shift. */
const motion = fc.record({ turn: angle, tx: coordinate, ty: coordinate });
const moved = (p: Pose2D, m: { turn: number; tx: number; ty: number }): Pose2D => ({
  stamp: p.stamp,
  x: m.tx + Math.cos(m.turn) * p.x - Math.sin(m.turn) * p.y,
  y: m.ty + Math.sin(m.turn) * p.x + Math.cos(m.turn) * p.y,
  yaw: p.yaw + m.turn,
});

describe("raw odometry aligned to the fused start", () => {
  it("the pose at a stamp: a recorded pose at its own stamp, the nearest outside the track, and between two poses on the segment joining them", () => {
    const poses = [
      { stamp: 100, x: 0, y: 0, yaw: 3 },
      { stamp: 300, x: 2, y: -4, yaw: -3 },
    ];
    expect(poseAt(ring(poses), 300)).toEqual(poses[1]);
    expect(poseAt(ring(poses), 50)).toEqual({ ...poses[0], stamp: 50 });
    expect(poseAt(ring(poses), 900)).toEqual({ ...poses[1], stamp: 900 });
    const mid = poseAt(ring(poses), 200)!;
    expect(mid.x).toBeCloseTo(1, 12);
    expect(mid.y).toBeCloseTo(-2, 12);
    // From 3 rad to −3 rad the short way is through π, not through 0.
    expect(angleDiff(mid.yaw, Math.PI)).toBeLessThan(1e-12);
    // Order of arrival does not matter.
    expect(poseAt(ring([...poses].reverse()), 200)).toEqual(mid);
    expect(poseAt(ring([]), 200)).toBeUndefined();
  });

  it("a raw track that is the fused one moved rigidly is aligned back onto it, pose for pose", () => {
    fc.assert(
      fc.property(track, motion, fc.nat(), (fused, m, at) => {
        const raw = fused.map((p) => moved(p, m));
        const first = at % fused.length;
        const anchor = startAnchor(ring(raw), fused.slice(first, first + START_POSES))!;
        const k = fused.indexOf(anchor.target);
        expect(k).toBeGreaterThanOrEqual(first);
        const align = alignToStart(anchor);
        for (let i = 0; i < fused.length; i++) {
          const a = align(raw[i]!);
          expect(a.stamp).toBe(fused[i]!.stamp);
          expect(Math.hypot(a.x - fused[i]!.x, a.y - fused[i]!.y)).toBeLessThan(1e-6);
          expect(angleDiff(a.yaw, fused[i]!.yaw)).toBeLessThan(1e-9);
        }
        expect(startGap(anchor)).toBeCloseTo(Math.hypot(raw[k]!.x - fused[k]!.x, raw[k]!.y - fused[k]!.y), 6);
      }),
    );
  });

  it("keeps the raw track's shape: distances between its poses and its turns", () => {
    fc.assert(
      fc.property(track, fc.record({ stamp: fc.integer({ min: 0, max: 1e9 }), x: coordinate, y: coordinate, yaw: angle }), (raw, fusedStart) => {
        const anchor = startAnchor(ring(raw), [fusedStart]);
        if (fusedStart.stamp > raw[raw.length - 1]!.stamp) {
          // No raw pose at or after the fused start yet: a later one could still change it.
          expect(anchor).toBeUndefined();
          return;
        }
        const align = alignToStart(anchor!);
        const a = align(anchor!.raw);
        expect(Math.hypot(a.x - fusedStart.x, a.y - fusedStart.y)).toBeLessThan(1e-6);
        expect(angleDiff(a.yaw, fusedStart.yaw)).toBeLessThan(1e-9);
        for (let i = 1; i < raw.length; i++) {
          const p = align(raw[i - 1]!);
          const q = align(raw[i]!);
          const before = Math.hypot(raw[i]!.x - raw[i - 1]!.x, raw[i]!.y - raw[i - 1]!.y);
          expect(Math.abs(Math.hypot(q.x - p.x, q.y - p.y) - before)).toBeLessThan(1e-6 * (1 + before));
          expect(angleDiff(q.yaw - p.yaw, raw[i]!.yaw - raw[i - 1]!.yaw)).toBeLessThan(1e-9);
        }
      }),
    );
  });

  it("waits for a raw pose at or after the fused start, and has none without raw odometry", () => {
    const start = { stamp: 500, x: 0, y: 0, yaw: 0 };
    const raw = ring([{ stamp: 400, x: 10, y: 0, yaw: 0 }], 4);
    expect(startAnchor(raw, [start])).toBeUndefined();
    raw.push({ stamp: 600, x: 12, y: 0, yaw: 0 });
    expect(startAnchor(raw, [start])).toEqual({ raw: { stamp: 500, x: 11, y: 0, yaw: 0 }, target: start });
    expect(startAnchor(ring([]), [start])).toBeUndefined();
    expect(startAnchor(raw, [])).toBeUndefined();
  });

  it("is not turned by the ignition pose fuse publishes first (heading 0 wherever the robot heads)", () => {
    fc.assert(
      fc.property(track.filter((t) => t.length >= START_POSES), motion, angle, (fused, m, ignitionYaw) => {
        const raw = fused.map((p) => moved(p, m));
        const published = [{ ...fused[0]!, yaw: ignitionYaw }, ...fused.slice(1)];
        const align = alignToStart(startAnchor(ring(raw), published)!);
        for (let i = 1; i < fused.length; i++) {
          const a = align(raw[i]!);
          expect(Math.hypot(a.x - fused[i]!.x, a.y - fused[i]!.y)).toBeLessThan(1e-6);
          expect(angleDiff(a.yaw, fused[i]!.yaw)).toBeLessThan(1e-9);
        }
      }),
    );
  });

  it("without fusion: a track that is the reference track moved rigidly, from any later start, is aligned back onto it", () => {
    fc.assert(
      fc.property(track, motion, fc.nat(), (reference, m, at) => {
        // The moved track begins later (at some pose of the reference) and keeps its stamps.
        const later = at % reference.length;
        const raw = reference.slice(later).map((p) => moved(p, m));
        const anchor = trackAnchor(ring(raw), ring(reference))!;
        expect(anchor.target.stamp).toBe(reference[later]!.stamp);
        const align = alignToStart(anchor);
        for (let i = later; i < reference.length; i++) {
          const a = align(raw[i - later]!);
          expect(Math.hypot(a.x - reference[i]!.x, a.y - reference[i]!.y)).toBeLessThan(1e-6);
          expect(angleDiff(a.yaw, reference[i]!.yaw)).toBeLessThan(1e-9);
        }
        // The same with the roles swapped: the reference starts later than the track.
        const swapped = trackAnchor(ring(reference), ring(raw))!;
        expect(swapped.raw.stamp).toBe(reference[later]!.stamp);
      }),
    );
  });

  it("without fusion: waits until both tracks reach the later first stamp, and has none for an empty track", () => {
    const reference = ring([{ stamp: 100, x: 0, y: 0, yaw: 0 }], 4);
    const raw = ring([{ stamp: 300, x: 7, y: 7, yaw: 1 }], 4);
    // The reference has nothing at or after 300 ns yet.
    expect(trackAnchor(raw, reference)).toBeUndefined();
    reference.push({ stamp: 500, x: 4, y: 0, yaw: 0 });
    expect(trackAnchor(raw, reference)).toEqual({ raw: { stamp: 300, x: 7, y: 7, yaw: 1 }, target: { stamp: 300, x: 2, y: 0, yaw: 0 } });
    expect(trackAnchor(ring([]), reference)).toBeUndefined();
    expect(trackAnchor(raw, ring([]))).toBeUndefined();
  });
});
