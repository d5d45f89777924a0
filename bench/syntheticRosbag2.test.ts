import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { syntheticMessages, type SyntheticRobotOptions } from "./syntheticRobot";
import { writeSyntheticRosbag2 } from "./syntheticRosbag2";
import { openRecordingFile } from "../src/recording/node";
import { parseRosbag2Metadata } from "../src/recording/rosbag2Metadata";

const dir = mkdtempSync(join(tmpdir(), "lockstep-synthetic-rosbag2-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Stamped {
  header: { stamp: { sec: number; nanosec: number }; frame_id: string };
}

function ns(t: { sec: number; nsec: number }): bigint {
  return BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);
}

// A tiny version of the recording-db3-1gb benchmark's bag (2 s, small clouds), read back
// through Lockstep's own rosbag2 reader.
describe("synthetic rosbag2 bag", () => {
  it("opens as a Humble sqlite3 bag whose counts, order, stamps and values are the robot's", async () => {
    const options: SyntheticRobotOptions = { seconds: 2, cloudPoints: 256, diagnosticTopics: 3 };
    const summary = await writeSyntheticRosbag2(join(dir, "tiny"), { ...options, name: "tiny" });
    const counts = {
      "/imu/data": 800,
      "/cmd_vel_stamped": 100,
      "/gps/point": 20,
      "/lidar/points": 20,
      "/diagnostics/0": 20,
      "/diagnostics/1": 20,
      "/diagnostics/2": 20,
    };
    expect(summary.counts).toEqual(counts);
    const metadata = parseRosbag2Metadata(readFileSync(join(summary.path, "metadata.yaml"), "utf8"));
    expect(metadata).toMatchObject({ version: 5, storage: "sqlite3", files: ["tiny_0.db3"], compressionMode: "", messageCount: 1000 });
    const db3 = readFileSync(summary.db3Path);
    expect(db3.length).toBe(summary.bytes);
    expect(db3.readUInt16BE(16)).toBe(4096); // the page size in the SQLite header

    const recording = await openRecordingFile(summary.path);
    try {
      expect(recording.info.format).toBe("rosbag2");
      expect(Object.fromEntries(recording.info.messageCounts!)).toEqual(counts);
      expect(recording.info.channels.find((c) => c.topic === "/imu/data")?.schemaName).toBe("sensor_msgs/msg/Imu");
      expect(recording.info.unreadableTopics?.size ?? 0).toBe(0);

      // The bag holds the schedule's messages in the schedule's order (receive time, ties as written).
      const schedule = syntheticMessages(options);
      let checkedStamps = 0;
      let checkedImu = false;
      for await (const m of recording.messages()) {
        const step = schedule.next();
        if (step.done === true) {
          throw new Error(`the bag has more messages than the schedule (${m.topic} at ${ns(m.receiveTime)})`);
        }
        const expected = step.value;
        expect([m.topic, ns(m.receiveTime)]).toEqual([expected.topic.topic, expected.logNs]);
        expect(m.decodeError).toBeUndefined();
        if (expected.sequence % 7 === 3 && expected.topic.latencyNs > 0) {
          const { stamp, frame_id } = (m.message as Stamped).header;
          expect(BigInt(stamp.sec) * 1_000_000_000n + BigInt(stamp.nanosec)).toBe(expected.stampNs);
          expect(frame_id).toBe(expected.topic.topic.slice(1).replace(/\//g, "_"));
          checkedStamps++;
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
          checkedImu = true;
        }
        if (m.topic === "/lidar/points") {
          const cloud = m.message as { width: number; data: Uint8Array };
          expect(cloud.width).toBe(256);
          expect(Buffer.from(cloud.data).equals(Buffer.from(expected.cloud ?? []))).toBe(true);
        }
      }
      expect(schedule.next().done).toBe(true);
      expect(checkedStamps).toBeGreaterThan(100);
      expect(checkedImu).toBe(true);
    } finally {
      await recording.close();
    }
  });
});
