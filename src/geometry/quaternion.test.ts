import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { quatFromRpy, quatInverse, quatMultiply, quatNormalize, quatYaw, rpyOfXyzw, yawOfXyzw } from "./quaternion";

const angle = fc.double({ min: -3, max: 3, noNaN: true });
const scale = fc.double({ min: 0.01, max: 100, noNaN: true });

describe("quaternion", () => {
  it("yaw and rpy of any scale are those of the normalized quaternion", () => {
    fc.assert(
      fc.property(angle, fc.double({ min: -1.5, max: 1.5, noNaN: true }), angle, scale, (r, p, y, k) => {
        const q = quatFromRpy(r, p, y);
        const [x, qy, z, w] = q.map((c) => c * k) as [number, number, number, number];
        const [rr, pp, yy] = rpyOfXyzw(x, qy, z, w);
        expect(rr).toBeCloseTo(r, 9);
        expect(pp).toBeCloseTo(p, 9);
        expect(yy).toBeCloseTo(y, 9);
        expect(yawOfXyzw(x, qy, z, w)).toBeCloseTo(y, 9);
      }),
    );
  });

  it("for a unit quaternion the yaw equals fuse_core's 1 − 2(y² + z²) form", () => {
    fc.assert(
      fc.property(angle, angle, angle, (r, p, y) => {
        const [x, qy, z, w] = quatFromRpy(r, p, y);
        const fuse = Math.atan2(2 * (w * z + x * qy), 1 - 2 * (qy * qy + z * z));
        expect(quatYaw([x, qy, z, w])).toBeCloseTo(fuse, 12);
      }),
    );
  });

  it("q · q⁻¹ is the identity and normalizing refuses a zero quaternion", () => {
    const q: [number, number, number, number] = [0.1, -0.4, 0.7, 2];
    const id = quatMultiply(q, quatInverse(q));
    [0, 0, 0, 1].forEach((c, i) => {
      expect(id[i]).toBeCloseTo(c, 12);
    });
    expect(() => quatNormalize([0, 0, 0, 0])).toThrow(/cannot be normalized/);
  });
});
