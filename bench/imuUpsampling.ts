/**
 * A high-rate IMU stream made from a real one, for timing the fusion preview at rates a recording
 * does not have (the "live use at 1 kHz IMU rates"): the robot's real motion, sampled
 * more often.
 */

import type { Stamp, TimeBase } from "../src/time";

/** The fields of a decoded `sensor_msgs/Imu` the upsampling reads (the rest is copied). */
export interface ImuMessage {
  readonly header: { readonly stamp: { readonly sec: number; readonly nsec: number } };
  readonly orientation: { readonly x: number; readonly y: number; readonly z: number; readonly w: number };
  readonly angular_velocity: Vector3;
  readonly linear_acceleration: Vector3;
}

interface Vector3 {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

/** One message of a stream fed to the fusion runner: its topic, payload and receive time. */
export interface TimedMessage<M = unknown> {
  readonly topic: string;
  readonly message: M;
  readonly arrival: Stamp;
}

/**
 * Resamples an IMU stream onto the grid of multiples of `1/rateHz` s (relative to `base`) that
 * lie in `[first stamp, last stamp)`. Each new message copies the message before it (frame,
 * covariances) with its stamp on the grid; its angular velocity, linear acceleration and receive
 * time (rounded to whole ns) are interpolated linearly between the two originals around it, its
 * orientation by normalized linear interpolation along the shorter arc (unit length, between the
 * two). Messages must be in stamp order with strictly increasing stamps; the result is too.
 */
export function upsampleImu<M extends ImuMessage>(
  messages: readonly TimedMessage<M>[],
  rateHz: number,
  base: TimeBase,
): TimedMessage<M>[] {
  if (!(rateHz > 0) || !Number.isInteger(1e9 / rateHz)) {
    throw new RangeError(`upsampleImu: rate ${rateHz} Hz does not give a whole number of ns per sample`);
  }
  const period = 1e9 / rateHz;
  const out: TimedMessage<M>[] = [];
  for (let i = 0; i + 1 < messages.length; i++) {
    const a = messages[i]!;
    const b = messages[i + 1]!;
    const ta = base.fromSecNsec(a.message.header.stamp.sec, a.message.header.stamp.nsec);
    const tb = base.fromSecNsec(b.message.header.stamp.sec, b.message.header.stamp.nsec);
    if (!(tb > ta)) {
      throw new RangeError(`upsampleImu: stamps must increase (message ${i + 1} is not after message ${i})`);
    }
    for (let t = Math.ceil(ta / period) * period; t < tb; t += period) {
      const f = (t - ta) / (tb - ta);
      out.push({
        topic: a.topic,
        arrival: Math.round(lerp(a.arrival, b.arrival, f)),
        message: {
          ...a.message,
          header: { ...a.message.header, stamp: base.toSecNsec(t) },
          orientation: nlerp(a.message.orientation, b.message.orientation, f),
          angular_velocity: lerp3(a.message.angular_velocity, b.message.angular_velocity, f),
          linear_acceleration: lerp3(a.message.linear_acceleration, b.message.linear_acceleration, f),
        },
      });
    }
  }
  return out;
}

function lerp(a: number, b: number, f: number): number {
  return a + (b - a) * f;
}

function lerp3(a: Vector3, b: Vector3, f: number): Vector3 {
  return { x: lerp(a.x, b.x, f), y: lerp(a.y, b.y, f), z: lerp(a.z, b.z, f) };
}

function nlerp(a: ImuMessage["orientation"], b: ImuMessage["orientation"], f: number): ImuMessage["orientation"] {
  // q and −q are the same rotation: interpolate towards whichever of them is nearer.
  const s = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0 ? -1 : 1;
  const x = lerp(a.x, s * b.x, f);
  const y = lerp(a.y, s * b.y, f);
  const z = lerp(a.z, s * b.z, f);
  const w = lerp(a.w, s * b.w, f);
  const norm = Math.hypot(x, y, z, w);
  return { x: x / norm, y: y / norm, z: z / norm, w: w / norm };
}
