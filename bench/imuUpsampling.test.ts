import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { upsampleImu, type ImuMessage, type TimedMessage } from "./imuUpsampling";
import { TimeBase } from "../src/time";

const base = new TimeBase(100);

/** An IMU message at relative `t` ns turned `yaw` rad about z, with the given rates. */
function imu(t: number, yaw: number, wz: number, ax: number): TimedMessage<ImuMessage & { frame: string }> {
  return {
    topic: "/imu/data",
    arrival: t + 3_000_000,
    message: {
      header: { stamp: base.toSecNsec(t) },
      orientation: { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) },
      angular_velocity: { x: 0, y: 0, z: wz },
      linear_acceleration: { x: ax, y: 0, z: 9.8 },
      frame: `imu@${t}`,
    },
  };
}

const relative = (m: TimedMessage<ImuMessage>): number =>
  base.fromSecNsec(m.message.header.stamp.sec, m.message.header.stamp.nsec);

describe("upsampleImu", () => {
  it("puts one message on every 1 ms grid point between the originals, none past the last", () => {
    const out = upsampleImu([imu(0, 0, 0, 0), imu(33_333_333, 0, 0, 0), imu(66_666_667, 0, 0, 0)], 1000, base);
    expect(out.map(relative)).toEqual(Array.from({ length: 67 }, (_, k) => k * 1_000_000));
    // The copied fields come from the message before each grid point.
    expect(out[33]!.message.frame).toBe("imu@0");
    expect(out[34]!.message.frame).toBe("imu@33333333");
  });

  it("reproduces fields that change linearly in time, and the receive times", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5_000_000 }),
        fc.array(fc.integer({ min: 1_000_000, max: 60_000_000 }), { minLength: 1, maxLength: 8 }),
        fc.double({ min: -2, max: 2, noNaN: true }),
        fc.double({ min: -5, max: 5, noNaN: true }),
        (start, gaps, slope, offset) => {
          // Angular velocity and acceleration are affine in t, so linear interpolation is exact.
          const value = (t: number): number => offset + slope * (t / 1e9);
          const stamps = gaps.reduce((s, g) => [...s, s[s.length - 1]! + g], [start]);
          const out = upsampleImu(stamps.map((t) => imu(t, 0, value(t), -value(t))), 1000, base);
          const first = Math.ceil(start / 1e6) * 1e6;
          const last = stamps[stamps.length - 1]!;
          expect(out.length).toBe(Math.ceil((last - first) / 1e6));
          for (const m of out) {
            const t = relative(m);
            expect(t % 1_000_000).toBe(0);
            expect(m.message.angular_velocity.z).toBeCloseTo(value(t), 9);
            expect(m.message.linear_acceleration.x).toBeCloseTo(-value(t), 9);
            expect(m.arrival).toBe(t + 3_000_000);
          }
        },
      ),
    );
  });

  it("turns the orientation monotonically along the shorter arc, at unit length", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.boolean(),
        (yawA, turn, flip) => {
          const b = imu(50_000_000, yawA + turn, 0, 0);
          const q = b.message.orientation;
          // −q is the same rotation as q; the interpolation must not take the long way round.
          const other = flip ? { ...b, message: { ...b.message, orientation: { x: -q.x, y: -q.y, z: -q.z, w: -q.w } } } : b;
          const out = upsampleImu([imu(0, yawA, 0, 0), other], 1000, base);
          expect(out).toHaveLength(50);
          let previous = -Infinity;
          for (const m of out) {
            const o = m.message.orientation;
            expect(Math.hypot(o.x, o.y, o.z, o.w)).toBeCloseTo(1, 12);
            // Yaw relative to the start, unwrapped: grows with the turn's sign from 0 to `turn`.
            const yaw = Math.atan2(2 * o.w * o.z, 1 - 2 * o.z * o.z);
            const travelled = (turn < 0 ? -1 : 1) * Math.atan2(Math.sin(yaw - yawA), Math.cos(yaw - yawA));
            expect(travelled).toBeGreaterThanOrEqual(previous - 1e-12);
            expect(travelled).toBeLessThanOrEqual(Math.abs(turn) + 1e-9);
            previous = travelled;
          }
        },
      ),
    );
  });

  it("refuses stamps that do not increase and rates that are not whole ns per sample", () => {
    expect(() => upsampleImu([imu(5, 0, 0, 0), imu(5, 0, 0, 0)], 1000, base)).toThrow(/stamps must increase/);
    expect(() => upsampleImu([imu(0, 0, 0, 0)], 3, base)).toThrow(/whole number of ns/);
  });
});
