import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { TransformBuffer, TransformError } from "./TransformBuffer";
import { quatFromRpy, transformPoint, type RigidTransform } from "../../geometry";

const S = 1_000_000_000;

/** Rotation matrix of fixed-axis roll/pitch/yaw, written independently of the quaternion code. */
function rpyMatrix(r: number, p: number, y: number): number[][] {
  const [cr, sr, cp, sp, cy, sy] = [Math.cos(r), Math.sin(r), Math.cos(p), Math.sin(p), Math.cos(y), Math.sin(y)];
  return [
    [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
    [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
    [-sp, cp * sr, cp * cr],
  ];
}

function close(a: readonly number[], b: readonly number[], eps = 1e-9): void {
  a.forEach((x, i) => { expect(x).toBeCloseTo(b[i]!, -Math.log10(eps)); });
}

describe("TransformBuffer", () => {
  it("husky's base_link -> imu_link extrinsic maps IMU axes as the rpy matrix says", () => {
    const tf = new TransformBuffer();
    const rpy = [1.570796327, 0, -1.570796327] as const;
    tf.setStaticTransform("base_link", "imu_link", { translation: [0, -0.3, 0.52], rotation: quatFromRpy(...rpy) });
    const t = tf.lookup("base_link", "imu_link", 123 * S);
    const m = rpyMatrix(...rpy);
    for (const p of [
      [1, 0, 0],
      [0, 1, 0],
      [0.2, -3, 4],
    ]) {
      const expected = [0, 1, 2].map((i) => m[i]![0]! * p[0]! + m[i]![1]! * p[1]! + m[i]![2]! * p[2]! + [0, -0.3, 0.52][i]!);
      close(transformPoint(t, p as [number, number, number]), expected);
    }
    // and the inverse direction round-trips
    const back = tf.lookup("imu_link", "base_link", 0);
    close(transformPoint(back, transformPoint(t, [0.5, 0.6, 0.7])), [0.5, 0.6, 0.7]);
  });

  it("interpolates linearly in translation and along the shorter arc in rotation", () => {
    const tf = new TransformBuffer();
    const yawQ = (yaw: number): [number, number, number, number] => [0, 0, Math.sin(yaw / 2), Math.cos(yaw / 2)];
    tf.setTransform("odom", "base", 10 * S, { translation: [0, 0, 0], rotation: yawQ(0) });
    tf.setTransform("odom", "base", 20 * S, { translation: [10, -4, 2], rotation: yawQ(1.0) });
    fc.assert(
      fc.property(fc.integer({ min: 10 * S, max: 20 * S }), (stamp) => {
        const f = (stamp - 10 * S) / (10 * S);
        const t = tf.lookup("odom", "base", stamp);
        close(t.translation, [10 * f, -4 * f, 2 * f], 1e-9);
        close(t.rotation, yawQ(f), 1e-9);
      }),
    );
  });

  it("composes through a common ancestor", () => {
    const tf = new TransformBuffer();
    const id: RigidTransform = { translation: [0, 0, 0], rotation: [0, 0, 0, 1] };
    tf.setStaticTransform("map", "odom", { ...id, translation: [1, 2, 0] });
    tf.setTransform("odom", "base", 5, { ...id, translation: [3, 0, 0] });
    tf.setStaticTransform("base", "laser", { ...id, translation: [0, 0, 1] });
    tf.setStaticTransform("map", "gps", { ...id, translation: [0, 0, 5] });
    close(transformPoint(tf.lookup("gps", "laser", 5), [0, 0, 0]), [4, 2, -4]);
    close(transformPoint(tf.lookup("gps", "laser"), [0, 0, 0]), [4, 2, -4]); // latest
  });

  it("finds the path between any two frames of a tree, whichever is the other's ancestor", () => {
    // Translation-only trees: the transform between two frames is the difference of their
    // offsets from the root, summed along each one's path (an oracle without any lookup logic).
    const tree = fc.array(
      fc.record({ parent: fc.nat(), offset: fc.tuple(fc.integer({ min: -9, max: 9 }), fc.integer({ min: -9, max: 9 })) }),
      { minLength: 1, maxLength: 12 },
    );
    fc.assert(
      fc.property(tree, fc.nat(), fc.nat(), (frames, a, b) => {
        const tf = new TransformBuffer();
        const parent = frames.map((f, k) => f.parent % (k + 1)); // frame k + 1 hangs below 0 … k
        frames.forEach((f, k) => {
          tf.setStaticTransform(`f${parent[k]!}`, `f${k + 1}`, { translation: [f.offset[0], f.offset[1], 0], rotation: [0, 0, 0, 1] });
        });
        const inRoot = (k: number): [number, number] => {
          let x = 0;
          let y = 0;
          for (let at = k; at > 0; at = parent[at - 1]!) {
            x += frames[at - 1]!.offset[0];
            y += frames[at - 1]!.offset[1];
          }
          return [x, y];
        };
        const target = a % (frames.length + 1);
        const source = b % (frames.length + 1);
        const [sx, sy] = inRoot(source);
        const [tx, ty] = inRoot(target);
        close(transformPoint(tf.lookup(`f${target}`, `f${source}`), [0, 0, 0]), [sx - tx, sy - ty, 0]);
      }),
    );
  });

  it("names unknown frames, disconnected trees and extrapolation", () => {
    const tf = new TransformBuffer({ cacheTime: 10 * S });
    const id: RigidTransform = { translation: [0, 0, 0], rotation: [0, 0, 0, 1] };
    tf.setTransform("a", "b", 1 * S, id).setTransform("a", "b", 2 * S, id);
    tf.setStaticTransform("x", "y", id);
    const err = (f: () => unknown): TransformError => {
      try {
        f();
      } catch (e) {
        return e as TransformError;
      }
      throw new Error("did not throw");
    };
    expect(err(() => tf.lookup("a", "zz", S)).message).toMatch(/frame "zz" is unknown \(known frames: a, b, x, y\)/);
    expect(err(() => tf.lookup("a", "y", S)).kind).toBe("not-connected");
    expect(err(() => tf.lookup("a", "b", 3 * S)).kind).toBe("extrapolation-future");
    expect(err(() => tf.lookup("a", "b", 0)).message).toMatch(/into the past: data covers 1000000000 \.\. 2000000000/);
    expect(tf.availability("a", "b", 3 * S)).toBe("pending");
    // pruning: history older than newest - cacheTime goes
    // (1 s + 10 s < 11.5 s: pruned; 2 s + 10 s >= 11.5 s: kept)
    tf.setTransform("a", "b", 11.5 * S, id);
    expect(tf.availability("a", "b", 2 * S)).toBe("available");
    expect(tf.availability("a", "b", 2 * S - 1)).toBe("pending");
    expect(tf.availability("a", "b", 1.5 * S - 1)).toBe("expired");
    expect(tf.availability("a", "b", 1.5 * S)).toBe("pending");
  });
});
