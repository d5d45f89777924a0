import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { expectRobotMessages, robotCounts } from "./expectRobotMessages";
import { type SyntheticRobotOptions } from "./syntheticRobot";
import { writeSyntheticRosbag2 } from "./syntheticRosbag2";
import { openRecordingFile } from "../src/recording/node";
import { parseRosbag2Metadata } from "../src/recording/rosbag2Metadata";

const dir = mkdtempSync(join(tmpdir(), "lockstep-synthetic-rosbag2-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

// A tiny version of the recording-db3-1gb benchmark's bag (2 s, small clouds), read back
// through Lockstep's own rosbag2 reader.
describe("synthetic rosbag2 bag", () => {
  it("opens as a Humble sqlite3 bag whose counts, order, stamps and values are the robot's", async () => {
    const options: SyntheticRobotOptions = { seconds: 2, cloudPoints: 256, diagnosticTopics: 3 };
    const summary = await writeSyntheticRosbag2(join(dir, "tiny"), { ...options, name: "tiny" });
    const counts = robotCounts(options.seconds);
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
      const checked = await expectRobotMessages(recording, options, "ros2");
      expect(checked.stamps).toBeGreaterThan(100);
      expect(checked.imu).toBe(true);
      expect(checked.clouds).toBe(20);
    } finally {
      await recording.close();
    }
  });
});
