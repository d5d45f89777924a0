import { Bag } from "@foxglove/rosbag";
import { parse as parseMessageDefinition } from "@foxglove/rosmsg";
import { MessageWriter } from "@foxglove/rosmsg-serialization";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { expectRobotMessages, robotCounts } from "./expectRobotMessages";
import { writeSyntheticBag, type SyntheticBagSummary } from "./syntheticBag";
import { syntheticDefinition, syntheticMessages, syntheticTopics, type SyntheticRobotOptions, type SyntheticType } from "./syntheticRobot";
import { recordingFacts } from "../src/recording";
import { openRecordingFile } from "../src/recording/node";
import { bagDataLengthAt, bagFieldAt } from "../src/recording/testing/bagFixtures";

const dir = mkdtempSync(join(tmpdir(), "lockstep-synthetic-bag-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** rosbag record's default chunk threshold, bytes of uncompressed chunk data. */
const THRESHOLD = 768 * 1024;
/**
 * Clouds of 750 KiB, just under the threshold: a chunk passes it a few small messages after its
 * cloud, so where each chunk ends depends on the threshold and every message's size (with 1 MiB
 * clouds every chunk would end at its cloud, whatever the threshold).
 */
const CLOUD_POINTS = 48_000;
const OPTIONS: SyntheticRobotOptions = { seconds: 2, cloudPoints: CLOUD_POINTS, diagnosticTopics: 3 };
const COUNTS = robotCounts(OPTIONS.seconds);

/** The length of a header field or of a connection record's data field, from the format: `<u32 length>name=value`. */
function fieldLength(name: string, valueBytes: number): number {
  return 4 + name.length + 1 + valueBytes;
}

/**
 * The chunks rosbag record would write for the robot, from the format's record sizes alone: per
 * chunk its uncompressed data size and message count. A message record is its data and a header
 * of op, conn and time; a connection record (before a connection's first message) has op, conn
 * and topic in its header, topic, type, md5sum "*" and the definition in its data.
 */
function expectedChunks(options: SyntheticRobotOptions): { size: number; messages: number }[] {
  const writers = new Map<SyntheticType, MessageWriter>();
  const seen = new Set<string>();
  const chunks: { size: number; messages: number }[] = [];
  let size = 0;
  let messages = 0;
  for (const m of syntheticMessages(options)) {
    const { topic, type } = m.topic;
    if (!seen.has(topic)) {
      seen.add(topic);
      const header = fieldLength("op", 1) + fieldLength("conn", 4) + fieldLength("topic", topic.length);
      const data =
        fieldLength("topic", topic.length) +
        fieldLength("type", type.length) +
        fieldLength("md5sum", 1) +
        fieldLength("message_definition", Buffer.byteLength(syntheticDefinition(type, "ros1")));
      size += 4 + header + 4 + data;
    }
    let writer = writers.get(type);
    if (writer == undefined) {
      writer = new MessageWriter(parseMessageDefinition(syntheticDefinition(type, "ros1")));
      writers.set(type, writer);
    }
    // The cloud's points go where the serialized empty `data` array is.
    const dataLength = writer.writeMessage(m.message).byteLength + (m.cloud?.byteLength ?? 0);
    size += 4 + fieldLength("op", 1) + fieldLength("conn", 4) + fieldLength("time", 8) + 4 + dataLength;
    messages++;
    if (size > THRESHOLD) {
      chunks.push({ size, messages });
      size = 0;
      messages = 0;
    }
  }
  if (messages > 0) {
    chunks.push({ size, messages });
  }
  return chunks;
}

// A small version of the recording-bag-1gb benchmark's bag (2 s, smaller clouds), read back
// through @foxglove/rosbag for its layout and Lockstep's reader for its messages.
describe("synthetic ROS 1 bag", () => {
  const path = join(dir, "tiny.bag");
  let summary: SyntheticBagSummary;
  beforeAll(async () => {
    summary = await writeSyntheticBag(path, OPTIONS);
  });

  it("is laid out as rosbag record lays one out: padded header, uncompressed chunks cut at 768 KiB, index data after each", async () => {
    expect(summary.counts).toEqual(COUNTS);
    const bytes = readFileSync(path);
    expect(bytes.length).toBe(summary.bytes);
    expect(bytes.subarray(0, 13).toString("latin1")).toBe("#ROSBAG V2.0\n");
    // rosbag pads the header record's header and data to 4096 bytes; the record adds two lengths.
    expect(bagDataLengthAt(bytes, 13) + 4 + bytes.readUInt32LE(bagDataLengthAt(bytes, 13))).toBe(13 + 4104);

    const bag = new Bag({ read: async (offset, length) => bytes.subarray(offset, offset + length), size: () => bytes.length }, { parse: false });
    await bag.open();
    const chunks = expectedChunks(OPTIONS);
    expect(chunks.length).toBeGreaterThan(10);
    expect(bag.header).toMatchObject({ connectionCount: 7, chunkCount: chunks.length });
    expect(summary.chunks).toBe(chunks.length);
    expect([...bag.connections.values()].map((c) => [c.conn, c.topic, c.type, c.md5sum])).toEqual(
      syntheticTopics(OPTIONS).map((t, i) => [i, t.topic, t.type, "*"]),
    );
    expect(bag.connections.get(0)?.messageDefinition).toBe(syntheticDefinition("sensor_msgs/Imu", "ros1"));
    expect(bag.chunkInfos[0]?.chunkPosition).toBe(13 + 4104);

    const laidOut = bag.chunkInfos.map((info) => {
      const pos = info.chunkPosition;
      const compression = bytes.subarray(bagFieldAt(bytes, pos, "compression"), bagFieldAt(bytes, pos, "compression") + 4).toString("latin1");
      const size = bytes.readUInt32LE(bagFieldAt(bytes, pos, "size"));
      const messages = info.connections.reduce((n, c) => n + c.count, 0);
      return { compression, size, messages };
    });
    expect(laidOut).toEqual(chunks.map((c) => ({ compression: "none", ...c })));

    // After each chunk record: one index data record (op 4, version 1) per connection in it, by id.
    for (const [k, info] of bag.chunkInfos.entries()) {
      const end = (pos: number): number => bagDataLengthAt(bytes, pos) + 4 + bytes.readUInt32LE(bagDataLengthAt(bytes, pos));
      const next = bag.chunkInfos[k + 1]?.chunkPosition ?? bag.header!.indexPosition;
      const records: [number, number, number, number][] = [];
      for (let pos = end(info.chunkPosition); pos < next; pos = end(pos)) {
        const field = (name: string): number => bytes.readUInt32LE(bagFieldAt(bytes, pos, name));
        records.push([bytes[bagFieldAt(bytes, pos, "op")]!, field("ver"), field("conn"), field("count")]);
      }
      const connections = [...info.connections].sort((a, b) => a.conn - b.conn);
      expect(records).toEqual(connections.map((c) => [4, 1, c.conn, c.count]));
    }
  });

  it("reads back, indexed, as the robot's messages: counts, receive times, stamps, values and clouds", async () => {
    const recording = await openRecordingFile(path);
    try {
      expect(recording.info.format).toBe("ros1bag");
      expect(recording.info.indexed).toBe(true);
      expect(Object.fromEntries(recording.info.messageCounts!)).toEqual(COUNTS);

      const checked = await expectRobotMessages(recording, OPTIONS, "ros1");
      expect(checked.stamps).toBeGreaterThan(100);
      expect(checked.imu).toBe(true);
      expect(checked.clouds).toBe(20);

      const facts = await recordingFacts(recording);
      expect(facts).toMatchObject({ format: "ros1bag", indexed: true, indexProblem: undefined, damages: [], sizeInBytes: summary.bytes });
    } finally {
      await recording.close();
    }
  });
});
