/**
 * Test helper for the synthetic robot's writers: reads a written recording back and checks it
 * against the robot's schedule (bench/syntheticRobot.ts), whatever the file format.
 */

import { expect } from "vitest";

import { syntheticMessages, type RosVersion, type SyntheticRobotOptions } from "./syntheticRobot";
import type { Recording } from "../src/recording";

/** A stamped message's header as each ROS version's decoder gives it. */
interface ReadHeader {
  readonly seq?: number;
  readonly stamp: { readonly sec: number; readonly nsec?: number; readonly nanosec?: number };
  readonly frame_id: string;
}

/** What `expectRobotMessages` checked beyond every message's topic and receive time. */
export interface RobotMessagesChecked {
  /** Headers compared (every 7th message of a stamped topic). */
  readonly stamps: number;
  /** Whether the sixth Imu's values were compared. */
  readonly imu: boolean;
  /** Clouds compared, width and bytes. */
  readonly clouds: number;
}

function ns(t: { sec: number; nsec: number }): bigint {
  return BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);
}

/**
 * Reads every message of `recording`, decoded, and expects the schedule of the robot `options`
 * makes, in its order: each message's topic and receive time, no decode error; on every 7th
 * message of a stamped topic its header (stamp and frame id, and for ROS 1 its `seq`); the sixth
 * Imu's values; every cloud's width and bytes. Throws at a message the schedule does not have,
 * and fails when the schedule has more. The caller judges the counts it returns.
 */
export async function expectRobotMessages(recording: Recording, options: SyntheticRobotOptions, ros: RosVersion): Promise<RobotMessagesChecked> {
  const schedule = syntheticMessages(options);
  let stamps = 0;
  let imu = false;
  let clouds = 0;
  for await (const m of recording.messages()) {
    const step = schedule.next();
    if (step.done === true) {
      throw new Error(`the recording has more messages than the schedule (${m.topic} at ${ns(m.receiveTime)})`);
    }
    const expected = step.value;
    expect([m.topic, ns(m.receiveTime)]).toEqual([expected.topic.topic, expected.logNs]);
    expect(m.decodeError).toBeUndefined();
    if (expected.sequence % 7 === 3 && expected.topic.latencyNs > 0) {
      const { seq, stamp, frame_id } = (m.message as { header: ReadHeader }).header;
      const frame = expected.topic.topic.slice(1).replace(/\//g, "_");
      if (ros === "ros1") {
        expect([seq, ns({ sec: stamp.sec, nsec: stamp.nsec! }), frame_id]).toEqual([expected.sequence, expected.stampNs, frame]);
      } else {
        expect(ns({ sec: stamp.sec, nsec: stamp.nanosec! })).toBe(expected.stampNs);
        expect(frame_id).toBe(frame);
      }
      stamps++;
    }
    if (m.topic === "/imu/data" && expected.sequence === 5) {
      const written = expected.message as Record<string, unknown>;
      const read = m.message as Record<string, unknown>;
      for (const field of ["orientation", "angular_velocity", "linear_acceleration"]) {
        expect(read[field]).toEqual(written[field]);
      }
      for (const field of ["orientation_covariance", "angular_velocity_covariance", "linear_acceleration_covariance"]) {
        expect(Array.from(read[field] as Float64Array)).toEqual(written[field]);
      }
      imu = true;
    }
    if (m.topic === "/lidar/points") {
      const cloud = m.message as { width: number; data: Uint8Array };
      expect(cloud.width).toBe(options.cloudPoints ?? 65_536);
      expect(Buffer.from(cloud.data).equals(Buffer.from(expected.cloud ?? []))).toBe(true);
      clouds++;
    }
  }
  expect(schedule.next().done).toBe(true);
  return { stamps, imu, clouds };
}

/**
 * What the robot records per topic in `seconds` with three diagnostic topics, from its rates as
 * written down here (IMU 400 Hz, stamped commands 50 Hz, GPS, clouds and each diagnostic topic
 * 10 Hz): the writers' tests compare their counts with it, not with the robot's own schedule.
 */
export function robotCounts(seconds: number): Record<string, number> {
  return {
    "/imu/data": 400 * seconds,
    "/cmd_vel_stamped": 50 * seconds,
    "/gps/point": 10 * seconds,
    "/lidar/points": 10 * seconds,
    "/diagnostics/0": 10 * seconds,
    "/diagnostics/1": 10 * seconds,
    "/diagnostics/2": 10 * seconds,
  };
}
