import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import { robotCounts } from "./expectRobotMessages";
import {
  SYNTHETIC_CONFIG_TEXT,
  SYNTHETIC_SYNC_TOPICS,
  writeSyntheticRecording,
} from "./syntheticRecording";
import { parseConfigText, Pipeline } from "../src/pipeline";
import { openRecording } from "../src/recording";
import { FileByteSource } from "../src/recording/node";

const dir = mkdtempSync(join(tmpdir(), "lockstep-synthetic-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Stamped {
  header: { stamp: { sec: number; nsec: number } };
}

// A tiny version of the recording-1gb benchmark's file (1 s, small clouds), read back through
// the readers the benchmark times.
describe("synthetic recording generator", () => {
  it("writes an indexed zstd MCAP whose topics, counts and messages read back as written", async () => {
    const path = join(dir, "tiny.mcap");
    const summary = await writeSyntheticRecording(path, {
      seconds: 1,
      cloudPoints: 256,
      diagnosticTopics: 3,
    });
    expect(summary.counts).toEqual(robotCounts(1));
    const source = await FileByteSource.open(path);
    try {
      expect(source.size).toBe(summary.bytes);
      const recording = await openRecording(source);
      expect(recording.info.indexed).toBe(true);
      expect(recording.info.channels.map((c) => c.topic).sort()).toEqual(
        Object.keys(summary.counts).sort(),
      );
      const seen: Record<string, number> = {};
      let lastLog = -1;
      for await (const m of recording.messages()) {
        seen[m.topic] = (seen[m.topic] ?? 0) + 1;
        const log = m.receiveTime.sec * 1e9 + m.receiveTime.nsec - 1.7e18;
        expect(log).toBeGreaterThanOrEqual(lastLog);
        lastLog = log;
        if (m.topic === "/lidar/points") {
          const cloud = m.message as { width: number; point_step: number; data: Uint8Array };
          expect(cloud.width).toBe(256);
          expect(cloud.data.length).toBe(256 * cloud.point_step);
        }
        if (m.topic === "/imu/data") {
          // Header stamps lag the log time by 1.5 ms latency plus up to 1 ms of jitter.
          const { sec, nsec } = (m.message as Stamped).header.stamp;
          const lag =
            (BigInt(m.receiveTime.sec) - BigInt(sec)) * 1_000_000_000n +
            BigInt(m.receiveTime.nsec - nsec);
          expect(lag >= 1_500_000n && lag < 2_500_000n).toBe(true);
        }
      }
      expect(seen).toEqual(summary.counts);

      const pipeline = new Pipeline(parseConfigText(SYNTHETIC_CONFIG_TEXT));
      expect(pipeline.topics).toEqual(expect.arrayContaining([...SYNTHETIC_SYNC_TOPICS]));
      expect(pipeline.topics).not.toContain("/lidar/points");
      let tuples = 0;
      pipeline.onTuple(() => {
        tuples++;
      });
      for await (const m of (await openRecording(source)).messages({ topics: pipeline.topics })) {
        pipeline.push(m);
      }
      pipeline.finish();
      // One set per GPS message, give or take the last ones still held.
      expect(tuples).toBeGreaterThanOrEqual(8);
      expect(tuples).toBeLessThanOrEqual(10);
    } finally {
      await source.close();
    }
  });
});
