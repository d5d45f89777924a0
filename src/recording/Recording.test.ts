import { Bag } from "@foxglove/rosbag";
import { parse } from "@foxglove/rosmsg";
import { MessageWriter as Ros1Writer } from "@foxglove/rosmsg-serialization";
import { MessageWriter as Ros2Writer } from "@foxglove/rosmsg2-serialization";
import zstd from "@foxglove/wasm-zstd";
import { McapIndexedReader, McapWriter, TempBuffer } from "@mcap/core";
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";

import { ArrayByteSource, BlobByteSource } from "./ByteSource";
import { RecordingError } from "./RecordingError";
import { crc32 } from "./crc32";
import { openRecording } from "./openRecording";
import { openRecordingFile } from "./openRecordingFile";
import { bagFieldAt } from "./testing/bagFixtures";
import { lz4StoredFrame } from "./testing/lz4Frame";
import { writeMcap, type FixtureChannel, type FixtureMessage } from "./testing/mcapFixtures";
import { HAS_SHARED_DATA, sharedRecording } from "./testing/paths";
import { ReadSizeProbe } from "./testing/readSizeProbe";
import type { RecordedMessage, Recording } from "./types";
import { readStamp } from "../messages";
import { ROS1_VALUE_DEFINITION, ROS2_VALUE_DEFINITION } from "./testing/valueDefinitions";

/** Reads everything; returns what was delivered and the error that ended the read, if any. */
async function drain(recording: Recording, topics?: string[]): Promise<{ messages: RecordedMessage[]; error?: unknown }> {
  const messages: RecordedMessage[] = [];
  try {
    for await (const m of recording.messages({ topics })) {
      messages.push(m);
    }
  } catch (error) {
    return { messages, error };
  }
  return { messages };
}

function ns(m: RecordedMessage): bigint {
  return BigInt(m.receiveTime.sec) * 1_000_000_000n + BigInt(m.receiveTime.nsec);
}

function countByTopic(messages: RecordedMessage[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of messages) {
    out[m.topic] = (out[m.topic] ?? 0) + 1;
  }
  return out;
}

// Counts as listed in /work/shared/data/README.md (not from this reader).
const EXPECTED: Record<string, Record<string, number>> = {
  "husky-2015.bag": { "/imu/data": 11865, "/husky_velocity_controller/odom": 3952, "/fix": 989 },
  "mustang-2014.bag": {
    "/xsens/imu_data": 13334,
    "/my_odometry2imu/imu_data": 13333,
    "/wheel_odometry": 1294,
    "/stereo_odometer/odometry": 1313,
  },
  "cartographer-b0-2014-short.bag": { imu: 1974, horizontal_laser_2d: 345, vertical_laser_2d: 385 },
  "fuse-tutorial-turtlebot3.bag": { "/odom": 2741, "/imu": 2253, "/scan": 457, "/cmd_vel": 2335, "/joint_states": 2741 },
};

describe.skipIf(!HAS_SHARED_DATA)("ROS 1 bags from ../shared/data", () => {
  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(`${file}: every message, per-topic counts as documented, receive times non-decreasing`, async () => {
      const recording = await openRecordingFile(sharedRecording(file));
      try {
        expect(recording.info.format).toBe("ros1bag");
        expect(recording.info.profile).toBe("ros1");
        expect(recording.info.indexed).toBe(true);
        const { messages, error } = await drain(recording);
        expect(error).toBeUndefined();
        expect(countByTopic(messages)).toEqual(expected);
        expect(Object.fromEntries(recording.info.messageCounts!)).toEqual(expected);
        for (let i = 1; i < messages.length; i++) {
          expect(ns(messages[i]!) >= ns(messages[i - 1]!)).toBe(true);
        }
        // decoded, with readable headers
        const first = messages.find((m) => m.topic !== "/cmd_vel")!;
        expect(typeof readStamp(first.message)).toBe("object");
      } finally {
        await recording.close();
      }
    });
  }

  it("husky-2015.bag: topic filter, progress and documented frame ids", async () => {
    const recording = await openRecordingFile(sharedRecording("husky-2015.bag"));
    const fractions: number[] = [];
    const frames = new Set<string>();
    let n = 0;
    for await (const m of recording.messages({ topics: ["/fix"], onProgress: (p) => fractions.push(p.fraction) })) {
      expect(m.topic).toBe("/fix");
      expect(m.schemaName).toBe("sensor_msgs/NavSatFix");
      frames.add((m.message as { header: { frame_id: string } }).header.frame_id);
      n++;
    }
    await recording.close();
    expect(n).toBe(989);
    expect([...frames]).toEqual(["/gps"]);
    expect(fractions.at(-1)).toBe(1);
    expect(fractions.every((f, i) => i === 0 || f >= fractions[i - 1]!)).toBe(true);
  });
});

describe.skipIf(!HAS_SHARED_DATA)("truncated and corrupted bags", () => {
  let bytes: Uint8Array;
  let chunks: { pos: number; count: number; start: bigint; end: bigint }[];
  let full: RecordedMessage[];
  beforeAll(async () => {
    bytes = new Uint8Array(await readFile(sharedRecording("husky-2015.bag")));
    // The chunk layout, from @foxglove/rosbag directly (independent of our reader).
    const bag = new Bag({ read: async (o, l) => bytes.subarray(o, o + l), size: () => bytes.length }, { parse: false });
    await bag.open();
    chunks = bag.chunkInfos.map((c) => ({
      pos: c.chunkPosition,
      count: c.connections.reduce((s, x) => s + x.count, 0),
      start: BigInt(c.startTime.sec) * 1_000_000_000n + BigInt(c.startTime.nsec),
      end: BigInt(c.endTime.sec) * 1_000_000_000n + BigInt(c.endTime.nsec),
    }));
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i]!.start > chunks[i - 1]!.end).toBe(true); // precondition: no overlap
    }
    full = (await drain(await openRecording(new ArrayByteSource(bytes)))).messages;
  });

  const fieldAt = (pos: number, name: string): number => bagFieldAt(bytes, pos, name);
  /** The first record at or after `pos` whose op is `op`. */
  const recordWithOp = (pos: number, op: number): number => {
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    for (let p = pos; p < bytes.length; ) {
      if (bytes[fieldAt(p, "op")] === op) {
        return p;
      }
      const headerLength = view.getUint32(p, true);
      p += 8 + headerLength + view.getUint32(p + 4 + headerLength, true);
    }
    throw new Error(`no record with op ${op}`);
  };

  it("an index that hides chunks (no chunk listed, or a chunk info with no connection) is not used: every message is read, the index named as damage", async () => {
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    const indexPos = Number(view.getBigUint64(fieldAt(13, "index_pos"), true));
    const noChunks = bytes.slice();
    new DataView(noChunks.buffer).setUint32(fieldAt(13, "chunk_count"), 0, true);
    const emptyInfo = bytes.slice();
    new DataView(emptyInfo.buffer).setUint32(fieldAt(recordWithOp(indexPos, 6), "count"), 0, true);
    for (const bad of [noChunks, emptyInfo]) {
      const recording = await openRecording(new ArrayByteSource(bad));
      expect(recording.info.indexed).toBe(false);
      expect(recording.info.indexProblem).toMatch(
        /the index at byte \d+ is unreadable: (the bag header says 0 chunks but the index holds more|the chunk info record at byte \d+ says it lists 0 connections)/,
      );
      const { messages, error } = await drain(recording);
      expect(error).toBeInstanceOf(RecordingError);
      expect((error as RecordingError).readPast).toBe(true);
      expect((error as RecordingError).damages.map((d) => d.reason)).toEqual([`${recording.info.indexProblem!}; the file was read sequentially instead`]);
      expect(messages.length).toBe(full.length);
    }
  });

  it("a first chunk whose op is damaged is named and skipped; later chunks are read with the connections the index repeats", async () => {
    const bad = bytes.slice();
    bad[fieldAt(chunks[0]!.pos, "op")] = 2;
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).damages.map((d) => [d.offset, d.reason])).toEqual([
      [chunks[0]!.pos, expect.stringMatching(/^a record of op 2 stands where a bag has chunks/)],
    ]);
    expect(messages.length).toBe(full.length - chunks[0]!.count);
  });

  it("a truncated bag delivers every complete chunk, then names the offset of the cut chunk", async () => {
    const k = 5;
    const cut = bytes.subarray(0, chunks[k]!.pos + 1000);
    const recording = await openRecording(new ArrayByteSource(cut));
    expect(recording.info.indexed).toBe(false);
    expect(recording.info.indexProblem).toMatch(/truncated/);
    const { messages, error } = await drain(recording);
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).offset).toBe(chunks[k]!.pos);
    expect((error as RecordingError).message).toMatch(new RegExp(`at byte offset ${chunks[k]!.pos}: the file is truncated`));
    const before = chunks.slice(0, k).reduce((s, c) => s + c.count, 0);
    expect(messages.length).toBe(before);
    messages.forEach((m, i) => {
      expect(m.topic).toBe(full[i]!.topic);
      expect(ns(m)).toBe(ns(full[i]!));
    });
  });

  it("a bag cut right after a chunk's index records reports the missing index after delivering all", async () => {
    const cut = bytes.subarray(0, chunks[3]!.pos);
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(cut)));
    expect(messages.length).toBe(chunks.slice(0, 3).reduce((s, c) => s + c.count, 0));
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).offset).toBe(chunks[3]!.pos);
    expect((error as RecordingError).reason).toMatch(/index starts at byte/);
  });

  it("a corrupted chunk is skipped: every other chunk is delivered in order, the error names its offset and losses", async () => {
    const k = 3;
    const bad = bytes.slice();
    for (let i = 0; i < 64; i++) {
      bad[chunks[k]!.pos + 400 + i] = bad[chunks[k]!.pos + 400 + i]! ^ 0x5a;
    }
    const recording = await openRecording(new ArrayByteSource(bad));
    expect(recording.info.indexed).toBe(true);
    const { messages, error } = await drain(recording);
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).offset).toBe(chunks[k]!.pos);
    expect((error as RecordingError).reason).toMatch(/chunk is unreadable: bz2 decompression/);
    const damages = (error as RecordingError).damages;
    expect(damages.map((d) => d.offset)).toEqual([chunks[k]!.pos]);
    expect([...damages[0]!.lost!.values()].reduce((a, b) => a + b, 0)).toBe(chunks[k]!.count);
    const lostStart = chunks.slice(0, k).reduce((s, c) => s + c.count, 0);
    const expected = [...full.slice(0, lostStart), ...full.slice(lostStart + chunks[k]!.count)];
    expect(messages.length).toBe(expected.length);
    messages.forEach((m, i) => {
      expect(m.topic).toBe(expected[i]!.topic);
      expect(ns(m)).toBe(ns(expected[i]!));
    });
  });

  it("garbage is rejected at offset 0", async () => {
    await expect(openRecording(new ArrayByteSource(new TextEncoder().encode("hello world, not a bag")))).rejects.toThrow(
      /at byte offset 0: not a recording Lockstep reads/,
    );
  });

  it("reads through a Blob (the Web Worker path)", async () => {
    const recording = await openRecording(new BlobByteSource(new Blob([bytes as Uint8Array<ArrayBuffer>])));
    const { messages } = await drain(recording, ["/husky_velocity_controller/odom"]);
    expect(messages.length).toBe(3952);
  });
});

// ---- MCAP files made here ----

const ROS2_DEF = ROS2_VALUE_DEFINITION;
const ROS1_DEF = ROS1_VALUE_DEFINITION;

function ros2Fixture(n: number): { channels: FixtureChannel[]; messages: FixtureMessage[]; values: number[] } {
  const writer = new Ros2Writer(parse(ROS2_DEF, { ros2: true }));
  const channels: FixtureChannel[] = ["/a", "/b"].map((topic) => ({
    topic,
    schemaName: "test_msgs/msg/Value",
    schemaEncoding: "ros2msg",
    schema: ROS2_DEF,
    messageEncoding: "cdr",
  }));
  const messages: FixtureMessage[] = [];
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = 1_700_000_000_000_000_000n + BigInt(i) * 10_000_000n;
    values.push(i * 0.5);
    messages.push({
      channel: i % 2,
      logTime: t,
      data: writer.writeMessage({
        header: { stamp: { sec: Number(t / 1_000_000_000n), nanosec: Number(t % 1_000_000_000n) - 1000 }, frame_id: `f${i % 2}` },
        value: i * 0.5,
      }),
    });
  }
  return { channels, messages, values };
}

async function mcapRecording(bytes: Uint8Array): Promise<Recording> {
  return await openRecording(new ArrayByteSource(bytes));
}

async function chunkOffsets(bytes: Uint8Array): Promise<bigint[]> {
  const buf = new TempBuffer(bytes);
  const reader = await McapIndexedReader.Initialize({ readable: buf });
  return reader.chunkIndexes.map((c) => c.chunkStartOffset);
}

/**
 * `bytes` (an MCAP with uncompressed chunks) with the channel id of the messages `hit` picks (by
 * their index in the file) set to `channelId`, each chunk's CRC fixed up: only the ids are damaged.
 */
async function withChannelIds(bytes: Uint8Array, channelId: number, hit: (index: number) => boolean): Promise<{ bytes: Uint8Array; offsets: number[] }> {
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  const offsets: number[] = [];
  let index = 0;
  for (const chunk of await chunkOffsets(bytes)) {
    const c = Number(chunk) + 9;
    const start = c + 32 + view.getUint32(c + 28, true) + 8;
    const end = start + Number(view.getBigUint64(start - 8, true));
    for (let pos = start; pos < end; pos += 9 + Number(view.getBigUint64(pos + 1, true))) {
      if (out[pos] === 0x05 && hit(index++)) {
        view.setUint16(pos + 9, channelId, true);
        offsets.push(pos);
      }
    }
    view.setUint32(c + 24, crc32(out.subarray(start, end)), true);
  }
  return { bytes: out, offsets };
}

describe("MCAP", () => {
  beforeAll(async () => {
    await zstd.isLoaded;
  });
  const zstdCompress = (data: Uint8Array): { compression: string; compressedData: Uint8Array } => ({
    compression: "zstd",
    compressedData: new Uint8Array(zstd.compress(data, 3)),
  });

  it("ROS 2 cdr, zstd chunks: every message decoded, in log-time order, profile ros2", async () => {
    const { channels, messages, values } = ros2Fixture(400);
    const bytes = await writeMcap(channels, messages, { profile: "ros2", compress: zstdCompress, chunkSize: 2048 });
    expect((await chunkOffsets(bytes)).length).toBeGreaterThan(3);
    const recording = await mcapRecording(bytes);
    expect(recording.info.format).toBe("mcap");
    expect(recording.info.profile).toBe("ros2");
    expect(Object.fromEntries(recording.info.messageCounts!)).toEqual({ "/a": 200, "/b": 200 });
    const { messages: read, error } = await drain(recording);
    expect(error).toBeUndefined();
    expect(read.map((m) => (m.message as { value: number }).value)).toEqual(values);
    expect(read.map((m) => m.topic)).toEqual(messages.map((m) => channels[m.channel]!.topic));
    expect(read.map(ns)).toEqual(messages.map((m) => m.logTime));
    const stamp = readStamp(read[3]!.message);
    expect(stamp).toEqual({ sec: 1_700_000_000, nanosec: 30_000_000 - 1000 });
    expect(read[3]!.channel.messageEncoding).toBe("cdr");
  });

  it("ROS 1, lz4 chunks, time-overlapping chunks merged by log time", async () => {
    const writer = new Ros1Writer(parse(ROS1_DEF));
    const channels: FixtureChannel[] = [
      { topic: "/x", schemaName: "test_msgs/Value", schemaEncoding: "ros1msg", schema: ROS1_DEF, messageEncoding: "ros1" },
    ];
    // written out of order: log times 0, 10, 20, … then 5, 15, 25, … (two overlapping runs)
    const messages: FixtureMessage[] = [];
    for (const offset of [0, 5]) {
      for (let i = 0; i < 150; i++) {
        const t = 1_000_000_000n + BigInt(i * 10 + offset) * 1_000_000n;
        messages.push({
          channel: 0,
          logTime: t,
          data: writer.writeMessage({ header: { seq: i, stamp: { sec: 1, nsec: i }, frame_id: "x" }, value: i * 10 + offset }),
        });
      }
    }
    const bytes = await writeMcap(channels, messages, {
      chunkSize: 1024,
      compress: (data) => ({ compression: "lz4", compressedData: lz4StoredFrame(data) }),
    });
    const recording = await mcapRecording(bytes);
    expect(recording.info.profile).toBe("ros1");
    const { messages: read, error } = await drain(recording);
    expect(error).toBeUndefined();
    const expectedValues = [...messages].sort((a, b) => Number(a.logTime - b.logTime)).map((m) => Number((m.logTime - 1_000_000_000n) / 1_000_000n));
    expect(read.map((m) => (m.message as { value: number }).value)).toEqual(expectedValues);
  });

  it("json encoding, uncompressed", async () => {
    const channels: FixtureChannel[] = [
      { topic: "/j", schemaName: "foxglove.Pose", schemaEncoding: "jsonschema", schema: "{}", messageEncoding: "json" },
    ];
    const messages: FixtureMessage[] = [1, 2, 3].map((i) => ({
      channel: 0,
      logTime: BigInt(i),
      data: new TextEncoder().encode(JSON.stringify({ timestamp: { sec: i, nsec: 0 }, frame_id: "map" })),
    }));
    const { messages: read } = await drain(await mcapRecording(await writeMcap(channels, messages)));
    expect(read.map((m) => readStamp(m.message))).toEqual([1, 2, 3].map((sec) => ({ sec, nsec: 0 })));
  });

  it("a truncated MCAP delivers the complete chunks, then names the offset of the cut chunk", async () => {
    const { channels, messages } = ros2Fixture(400);
    const bytes = await writeMcap(channels, messages, { compress: zstdCompress, chunkSize: 2048 });
    const offsets = await chunkOffsets(bytes);
    const k = 3;
    const cut = bytes.subarray(0, Number(offsets[k]!) + 10);
    const recording = await mcapRecording(cut);
    expect(recording.info.indexed).toBe(false);
    const { messages: read, error } = await drain(recording);
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).offset).toBe(Number(offsets[k]!));
    expect((error as RecordingError).reason).toMatch(/truncated/);
    // exactly the messages of chunks 0..k-1 (the reader of the intact file tells which)
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    const before = reader.chunkIndexes.slice(0, k);
    const expectedCount = messages.filter((m) => before.some((c) => m.logTime >= c.messageStartTime && m.logTime <= c.messageEndTime)).length;
    expect(read.length).toBe(expectedCount);
    expect(read.map(ns)).toEqual(messages.slice(0, expectedCount).map((m) => m.logTime));
  });

  it("an MCAP cut exactly between two records is named truncated at its end, after every record before it", async () => {
    const { channels, messages } = ros2Fixture(400);
    const bytes = await writeMcap(channels, messages, { compress: zstdCompress, chunkSize: 2048 });
    const offsets = await chunkOffsets(bytes);
    const k = 3;
    const cut = bytes.subarray(0, Number(offsets[k]!));
    const { messages: read, error } = await drain(await mcapRecording(cut));
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).damages.map((d) => d.offset)).toEqual([cut.byteLength]);
    expect((error as RecordingError).reason).toMatch(/^the file is truncated: it ends at byte \d+, after a complete record/);
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    const before = reader.chunkIndexes.slice(0, k);
    expect(read.length).toBe(messages.filter((m) => before.some((c) => m.logTime >= c.messageStartTime && m.logTime <= c.messageEndTime)).length);
  });

  it("a chunk holding no wanted topic is not read: its damage concerns only a read that wants its topics", async () => {
    // The first half of the file records only /a, the second only /b, so some chunks hold only /b.
    const { channels, messages } = ros2Fixture(400);
    const split = messages.map((m, i) => ({ ...m, channel: i < 200 ? 0 : 1 }));
    const bytes = await writeMcap(channels, split, { compress: zstdCompress, chunkSize: 2048 });
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    const idOfB = [...reader.channelsById.values()].find((c) => c.topic === "/b")!.id;
    const onlyB = reader.chunkIndexes.filter((c) => [...c.messageIndexOffsets.keys()].every((id) => id === idOfB));
    expect(onlyB.length).toBeGreaterThan(1);
    const chunk = onlyB[1]!;
    const bad = bytes.slice();
    // Garbage in place of its compressed records: zstd cannot decompress them.
    bad.fill(0xa5, Number(chunk.chunkStartOffset) + 60, Number(chunk.chunkStartOffset + chunk.chunkLength));
    const forA = await drain(await mcapRecording(bad), ["/a"]);
    expect(forA.error).toBeUndefined();
    expect(forA.messages.map(ns)).toEqual(split.filter((m) => m.channel === 0).map((m) => m.logTime));
    const forAll = await drain(await mcapRecording(bad));
    expect(forAll.error).toBeInstanceOf(RecordingError);
    expect((forAll.error as RecordingError).damages.map((d) => d.offset)).toEqual([Number(chunk.chunkStartOffset)]);
  });

  it("a byte lost inside the first chunk: that chunk alone is skipped, and later chunks are read with the channels the summary repeats", async () => {
    const { channels, messages } = ros2Fixture(400);
    const bytes = await writeMcap(channels, messages, { compress: zstdCompress, chunkSize: 2048 });
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    const chunk = reader.chunkIndexes[0]!;
    const at = Number(chunk.chunkStartOffset) + 100;
    // Every offset after it moves by one byte, so neither the index nor the summary offsets hold.
    const bad = new Uint8Array([...bytes.subarray(0, at), ...bytes.subarray(at + 1)]);
    const { messages: read, error } = await drain(await mcapRecording(bad));
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).damages.map((d) => d.offset)).toEqual([Number(chunk.chunkStartOffset)]);
    const inChunk = messages.filter((m) => m.logTime >= chunk.messageStartTime && m.logTime <= chunk.messageEndTime);
    expect(inChunk.length).toBeGreaterThan(0);
    expect(read.map(ns)).toEqual(messages.filter((m) => !inChunk.includes(m)).map((m) => m.logTime));
  });

  for (const read of ["indexed", "sequential"] as const) {
    it(`${read}: messages on a channel no Channel record defines are dropped and counted once per channel; the rest of their chunks is delivered`, async () => {
      const { channels, messages } = ros2Fixture(400);
      const whole = await writeMcap(channels, messages, { chunkSize: 2048 });
      // Every 7th message (in many chunks) names channel 99.
      const { bytes: damaged, offsets } = await withChannelIds(whole, 99, (i) => i % 7 === 3);
      // Without its summary the file is read sequentially (and is also named truncated).
      const dataEnd = (await McapIndexedReader.Initialize({ readable: new TempBuffer(whole) })).footer.summaryStart - 13n;
      const bytes = read === "indexed" ? damaged : damaged.subarray(0, Number(dataEnd));
      const recording = await mcapRecording(bytes);
      expect(recording.info.indexed).toBe(read === "indexed");
      const { messages: got, error } = await drain(recording);
      expect(got.map(ns)).toEqual(messages.filter((_, i) => i % 7 !== 3).map((m) => m.logTime));
      expect(error).toBeInstanceOf(RecordingError);
      const undefinedChannel = (error as RecordingError).damages.filter((d) => d.reason.includes("channel 99"));
      expect(undefinedChannel).toEqual([
        {
          offset: offsets[0],
          reason: `${offsets.length} messages on channel 99, which no Channel record defines, were dropped (the channel id is damaged, or its Channel record is lost; the first is the message record here)`,
          lost: undefined,
        },
      ]);
    });
  }

  it("sequential: a summary failing its CRC still defines the channels whose records were lost with a damaged chunk", async () => {
    const { channels, messages } = ros2Fixture(400);
    const bytes = (await writeMcap(channels, messages, { chunkSize: 2048 })).slice();
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    const first = reader.chunkIndexes[0]!;
    // The first chunk (which holds the Channel records) fails its CRC, and so does the summary.
    const inChunk = Number(first.chunkStartOffset + first.chunkLength) - 3;
    const inSummary = Number(reader.footer.summaryStart) + 20;
    bytes[inChunk] = bytes[inChunk]! ^ 0xff;
    bytes[inSummary] = bytes[inSummary]! ^ 0x01;
    const recording = await mcapRecording(bytes);
    expect(recording.info.indexed).toBe(false);
    const { messages: got, error } = await drain(recording);
    expect((error as RecordingError).damages.map((d) => d.offset)).toEqual([Number(first.chunkStartOffset)]);
    expect(got.map(ns)).toEqual(messages.filter((m) => m.logTime > first.messageEndTime).map((m) => m.logTime));
  });

  describe("sequential: a chunk record whose length is too large", () => {
    const channels: FixtureChannel[] = [{ topic: "/a", schemaName: "T", schemaEncoding: "jsonschema", schema: "{}", messageEncoding: "json" }];
    const written = writeMcap(
      channels,
      Array.from({ length: 400 }, (_, i) => ({ channel: 0, logTime: BigInt(i + 1), data: new TextEncoder().encode(JSON.stringify({ i, pad: "x".repeat(20) })) })),
      { chunkSize: 512 },
    );
    for (const [what, extra] of [
      ["by 3 bytes", 3n],
      ["into the next chunk", 700n],
      ["past two chunks", 1500n],
      ["exactly to the start of a later chunk", undefined],
    ] as const) {
      it(`${what}: the chunks after it are read, and the chunk is one damage naming its own end`, async () => {
        const bytes = (await written).slice();
        const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
        const [chunk, , later] = [...reader.chunkIndexes].sort((a, b) => Number(a.chunkStartOffset - b.chunkStartOffset)).slice(2);
        const at = Number(chunk!.chunkStartOffset);
        const view = new DataView(bytes.buffer);
        const own = view.getBigUint64(at + 1, true);
        const length = extra == undefined ? later!.chunkStartOffset - chunk!.chunkStartOffset - 9n : own + extra;
        view.setBigUint64(at + 1, length, true);
        // No summary: the file is read sequentially.
        const footer = bytes.length - 37;
        view.setBigUint64(footer + 9, 0n, true);
        view.setBigUint64(footer + 17, 0n, true);
        view.setUint32(footer + 25, 0, true);
        const recording = await mcapRecording(bytes);
        expect(recording.info.indexed).toBe(false);
        const { messages: got, error } = await drain(recording);
        expect(got.map((m) => (m.message as { i: number }).i)).toEqual(Array.from({ length: 400 }, (_, i) => i));
        const ownEnd = at + 9 + Number(own);
        expect((error as RecordingError).damages.map((d) => [d.offset, d.reason])).toEqual([
          [at, `the chunk record's length is damaged: it says the record ends at byte ${at + 9 + Number(length)}, but the chunk's own fields end it at byte ${ownEnd}, where the next record starts; reading resumed there`],
        ]);
      });
    }
  });

  it("a summary damaged on its own: every message is read sequentially, then the summary is named as damage", async () => {
    const { channels, messages } = ros2Fixture(400);
    const bytes = (await writeMcap(channels, messages, { chunkSize: 2048 })).slice();
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    const summaryStart = Number(reader.footer.summaryStart);
    bytes[summaryStart + 20] = bytes[summaryStart + 20]! ^ 0x01;
    const recording = await mcapRecording(bytes);
    expect(recording.info.indexed).toBe(false);
    const { messages: got, error } = await drain(recording);
    expect(got.map(ns)).toEqual(messages.map((m) => m.logTime));
    expect((error as RecordingError).readPast).toBe(true);
    expect((error as RecordingError).damages.map((d) => [d.offset, d.reason])).toEqual([
      [summaryStart, expect.stringMatching(/^the summary section is unusable: the summary's CRC-32 is \d+ but the footer says \d+: its bytes are damaged; the file was read sequentially instead$/)],
    ]);
  });

  it("a file its writer closed without a summary is read sequentially, and that is no damage", async () => {
    const { channels, messages } = ros2Fixture(40);
    const bytes = (await writeMcap(channels, messages, { chunkSize: 2048 })).slice();
    // The footer names no summary section (summary start 0, no CRC).
    const footer = new DataView(bytes.buffer, bytes.length - 37);
    footer.setBigUint64(9, 0n, true);
    footer.setBigUint64(17, 0n, true);
    footer.setUint32(25, 0, true);
    const recording = await mcapRecording(bytes);
    expect(recording.info.indexed).toBe(false);
    const { messages: got, error } = await drain(recording);
    expect(error).toBeUndefined();
    expect(got.length).toBe(messages.length);
  });

  it("a Header record whose length field is 0: the reason says so in Lockstep's words, never JavaScript's", async () => {
    const { channels, messages } = ros2Fixture(40);
    const bytes = (await writeMcap(channels, messages, { chunkSize: 2048 })).slice();
    new DataView(bytes.buffer).setBigUint64(9, 0n, true);
    const recording = await mcapRecording(bytes);
    const { messages: got, error } = await drain(recording);
    expect(got.length).toBe(messages.length);
    const sentence = "its fields run past the end of the record (its length field is smaller than they are)";
    expect(recording.info.indexProblem).toBe(`the summary section is unusable: ${sentence}`);
    expect((error as RecordingError).damages.map((d) => [d.offset, d.reason])).toEqual([[8, expect.stringMatching(new RegExp(`^the record here is unreadable: ${sentence.replace(/[()]/g, "\\$&")}`))]]);
  });

  it("bytes appended after the closing magic are named as such and ignored; the summary is used", async () => {
    const { channels, messages } = ros2Fixture(400);
    const whole = await writeMcap(channels, messages, { compress: zstdCompress, chunkSize: 2048 });
    const bytes = new Uint8Array([...whole, ...new Uint8Array(3000).fill(0xa5)]);
    const recording = await mcapRecording(bytes);
    expect(recording.info.indexed).toBe(true);
    const { messages: got, error } = await drain(recording);
    expect(got.map(ns)).toEqual(messages.map((m) => m.logTime));
    expect((error as RecordingError).damages).toEqual([
      {
        offset: whole.byteLength,
        reason: `3000 bytes after the MCAP's closing magic at byte ${whole.byteLength - 8} are not MCAP (appended data?); they were ignored`,
        lost: undefined,
      },
    ]);
  });

  it("more bytes appended than the search for the closing magic looks through: named as appended, not as a truncation; every message is read", async () => {
    const { channels, messages } = ros2Fixture(400);
    const whole = await writeMcap(channels, messages, { compress: zstdCompress, chunkSize: 2048 });
    const appended = 3 * 1024 * 1024;
    const bytes = new Uint8Array(whole.byteLength + appended);
    bytes.set(whole);
    bytes.fill(0xa5, whole.byteLength);
    const { messages: got, error } = await drain(await mcapRecording(bytes));
    expect(got.map(ns)).toEqual(messages.map((m) => m.logTime));
    expect((error as RecordingError).damages.map((d) => [d.offset, d.reason])).toEqual([
      [whole.byteLength, `${appended} bytes after the MCAP's closing magic at byte ${whole.byteLength - 8} are not MCAP (appended data?); they were ignored`],
    ]);
  });

  it("something else where the closing magic should be is named, not called a truncation", async () => {
    const { channels, messages } = ros2Fixture(400);
    const bytes = (await writeMcap(channels, messages, { compress: zstdCompress, chunkSize: 2048 })).slice();
    bytes.fill(0x58, bytes.byteLength - 8);
    const { messages: got, error } = await drain(await mcapRecording(bytes));
    expect(got.length).toBe(messages.length);
    expect((error as RecordingError).damages.map((d) => [d.offset, d.reason])).toEqual([
      [
        bytes.byteLength,
        `the file does not end with the MCAP closing magic: its last 8 bytes, after its footer at byte ${bytes.byteLength - 37}, are 58 58 58 58 58 58 58 58; every message was read, its summary was not used`,
      ],
    ]);
  });

  it("a corrupted MCAP chunk is skipped: the error names its offset and what its message indexes held", async () => {
    const { channels, messages } = ros2Fixture(400);
    const bytes = await writeMcap(channels, messages, { compress: zstdCompress, chunkSize: 2048 });
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    const k = 2;
    const chunk = reader.chunkIndexes[k]!;
    const bad = bytes.slice();
    const mid = Number(chunk.chunkStartOffset) + Number(chunk.chunkLength) - 40;
    for (let i = 0; i < 16; i++) {
      bad[mid + i] = bad[mid + i]! ^ 0xff;
    }
    const { messages: read, error } = await drain(await mcapRecording(bad));
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).offset).toBe(Number(chunk.chunkStartOffset));
    const inChunk = messages.filter((m) => m.logTime >= chunk.messageStartTime && m.logTime <= chunk.messageEndTime);
    const damages = (error as RecordingError).damages;
    expect(damages.map((d) => d.offset)).toEqual([Number(chunk.chunkStartOffset)]);
    expect(Object.fromEntries(damages[0]!.lost!)).toEqual({
      "/a": inChunk.filter((m) => m.channel === 0).length,
      "/b": inChunk.filter((m) => m.channel === 1).length,
    });
    expect(read.map(ns)).toEqual(messages.filter((m) => !inChunk.includes(m)).map((m) => m.logTime));
  });
});

describe("MCAP records larger than the read limit", () => {
  beforeAll(async () => {
    await zstd.isLoaded;
  });
  /** The bytes a read may ask for beyond the limit: a chunk's message indexes, a record prefix. */
  const SLACK = 8192;
  const FOOTER_AND_MAGIC = 37;
  const tooLarge = (n: number, limit: number): string =>
    `the chunk record here holds ${n} bytes, more than the limit of ${limit} (a damaged length or an unusually large chunk; raise the limit with --max-chunk-size if the recording is genuine)`;

  /**
   * 800 messages in chunks of about 8 KiB; message 300 carries 20,000 more bytes that compress
   * little, so its chunk is the one largest, and holds more compressed than any other chunk does
   * uncompressed: a limit just under it refuses that chunk alone.
   */
  async function fixture(compress?: typeof zstdCompress): Promise<{ bytes: Uint8Array; messages: FixtureMessage[] }> {
    const { channels, messages } = ros2Fixture(800);
    const big = messages[300]!;
    const writer = new Ros2Writer(parse(ROS2_DEF, { ros2: true }));
    let seed = 1;
    const noise = Array.from({ length: 20_000 }, () => String.fromCharCode(97 + ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 24) % 26)).join("");
    messages[300] = { ...big, data: writer.writeMessage({ header: { stamp: { sec: 0, nanosec: 0 }, frame_id: noise }, value: 0 }) };
    return { bytes: await writeMcap(channels, messages, { compress, chunkSize: 8192 }), messages };
  }
  const zstdCompress = (data: Uint8Array): { compression: string; compressedData: Uint8Array } => ({
    compression: "zstd",
    compressedData: new Uint8Array(zstd.compress(data, 3)),
  });
  /** The chunk holding message 300, the messages it holds, and a limit just under its record's length. */
  async function largest(bytes: Uint8Array, messages: readonly FixtureMessage[]): Promise<{ offset: number; length: number; inChunk: FixtureMessage[] }> {
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
    const sorted = [...reader.chunkIndexes].sort((a, b) => Number(b.chunkLength - a.chunkLength));
    const chunk = sorted[0]!;
    expect(sorted[1]!.chunkLength).toBeLessThan(chunk.chunkLength - 1n);
    const inChunk = messages.filter((m) => m.logTime >= chunk.messageStartTime && m.logTime <= chunk.messageEndTime);
    expect(inChunk).toContain(messages[300]);
    return { offset: Number(chunk.chunkStartOffset), length: Number(chunk.chunkLength), inChunk };
  }
  /** A copy whose footer names no summary: the file is read sequentially. */
  function withoutSummary(bytes: Uint8Array): Uint8Array {
    const out = bytes.slice();
    new DataView(out.buffer).setBigUint64(out.length - FOOTER_AND_MAGIC + 9, 0n, true);
    return out;
  }
  const times = (list: readonly RecordedMessage[]): bigint[] => list.map(ns);

  for (const [what, compress] of [["uncompressed", undefined], ["zstd", zstdCompress]] as const) {
    it(`${what}, indexed: the chunk is never read; it is one damage at its offset with what its message indexes held, every other chunk is delivered in order`, async () => {
      const { bytes, messages } = await fixture(compress);
      const { offset, length, inChunk } = await largest(bytes, messages);
      const source = new ReadSizeProbe(bytes);
      const recording = await openRecording(source, { maxChunkBytes: length - 1 });
      expect(recording.info.indexed).toBe(true);
      const { messages: read, error } = await drain(recording);
      expect((error as RecordingError).damages).toEqual([
        {
          offset,
          reason: `the chunk is unreadable: ${tooLarge(length, length - 1)}`,
          lost: new Map([["/a", inChunk.filter((m) => m.channel === 0).length], ["/b", inChunk.filter((m) => m.channel === 1).length]]),
        },
      ]);
      expect(times(read)).toEqual(messages.filter((m) => !inChunk.includes(m)).map((m) => m.logTime));
      expect(source.largestRead).toBeLessThanOrEqual(length - 1 + SLACK);
    });
  }

  it("sequential: the chunk is never read; it is one damage at its offset, and reading resumes at the record after it", async () => {
    const { bytes: written, messages } = await fixture();
    const { offset, length, inChunk } = await largest(written, messages);
    const bytes = withoutSummary(written);
    const source = new ReadSizeProbe(bytes);
    const recording = await openRecording(source, { maxChunkBytes: length - 1 });
    expect(recording.info.indexed).toBe(false);
    const { messages: read, error } = await drain(recording);
    expect((error as RecordingError).damages.map((d) => [d.offset, d.reason])).toEqual([
      [offset, `the chunk here is unreadable: ${tooLarge(length, length - 1)}; reading resumed at the next record, byte ${offset + length}`],
    ]);
    expect(times(read)).toEqual(messages.filter((m) => !inChunk.includes(m)).map((m) => m.logTime));
    expect(source.largestRead).toBeLessThanOrEqual(length - 1 + SLACK);
  });

  it("sequential: an attachment larger than the limit, which the read does not need, is passed over unread and is no damage", async () => {
    const buffer = new TempBuffer();
    const writer = new McapWriter({ writable: buffer, chunkSize: 1024 });
    await writer.start({ profile: "", library: "lockstep test" });
    const schemaId = await writer.registerSchema({ name: "T", encoding: "jsonschema", data: new TextEncoder().encode("{}") });
    const channelId = await writer.registerChannel({ topic: "/a", schemaId, messageEncoding: "json", metadata: new Map() });
    const message = async (i: number): Promise<void> => {
      await writer.addMessage({ channelId, sequence: i, logTime: BigInt(i), publishTime: BigInt(i), data: new TextEncoder().encode(JSON.stringify({ i })) });
    };
    for (let i = 0; i < 50; i++) {
      await message(i);
    }
    await writer.addAttachment({ name: "map.bin", logTime: 0n, createTime: 0n, mediaType: "application/octet-stream", data: new Uint8Array(50_000) });
    for (let i = 50; i < 100; i++) {
      await message(i);
    }
    await writer.end();
    const source = new ReadSizeProbe(withoutSummary(buffer.get()));
    const recording = await openRecording(source, { maxChunkBytes: 20_000 });
    expect(recording.info.indexed).toBe(false);
    const { messages: read, error } = await drain(recording);
    expect(error).toBeUndefined();
    expect(read.map((m) => (m.message as { i: number }).i)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(source.largestRead).toBeLessThanOrEqual(20_000 + SLACK);
  });

  it("a footer whose summary start makes the summary larger than the limit: the summary is not read but named, and the file read sequentially", async () => {
    const { bytes: written, messages } = await fixture();
    const { length } = await largest(written, messages);
    const first = Number((await chunkOffsets(written))[0]!);
    // The summary would start right after the first chunk's place (its Data End record there).
    const bytes = written.slice();
    new DataView(bytes.buffer).setBigUint64(bytes.length - FOOTER_AND_MAGIC + 9, BigInt(first + 13), true);
    const summaryRead = bytes.length - FOOTER_AND_MAGIC - first;
    const source = new ReadSizeProbe(bytes);
    const recording = await openRecording(source, { maxChunkBytes: length });
    expect(recording.info.indexProblem).toBe(
      `the summary section is unusable: the summary section at byte ${first} holds ${summaryRead} bytes, more than the limit of ${length} (a damaged length or an unusually large summary; raise the limit with --max-chunk-size if the recording is genuine)`,
    );
    const { messages: read } = await drain(recording);
    expect(times(read)).toEqual(messages.map((m) => m.logTime));
    expect(source.largestRead).toBeLessThanOrEqual(length + SLACK);
  });

  it("a chunk index saying 3 GiB in a 5 GiB file: the chunk is refused unread, the other chunks delivered", async () => {
    const { bytes, messages } = await fixture();
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    const footer = bytes.length - FOOTER_AND_MAGIC;
    const summaryStart = Number(view.getBigUint64(footer + 9, true));
    const { offset, inChunk } = await largest(bytes, messages);
    // The file as 5 GiB: its data section, zeros, then its Data End, summary and footer, which
    // name the new places (no summary offsets, no summary CRC).
    const tailAt = 5 * 2 ** 30;
    const tail = bytes.slice(summaryStart - 13);
    const tailView = new DataView(tail.buffer);
    const shift = BigInt(tailAt - (summaryStart - 13));
    for (let at = 13; at < tail.length - FOOTER_AND_MAGIC; at += 9 + Number(tailView.getBigUint64(at + 1, true))) {
      if (tail[at] === 0x08 && tailView.getBigUint64(at + 9 + 16, true) === BigInt(offset)) {
        tailView.setBigUint64(at + 9 + 24, 3n * 2n ** 30n, true);
      }
    }
    const tailFooter = tail.length - FOOTER_AND_MAGIC;
    tailView.setBigUint64(tailFooter + 9, BigInt(summaryStart) + shift, true);
    tailView.setBigUint64(tailFooter + 17, 0n, true);
    tailView.setUint32(tailFooter + 25, 0, true);
    const source = new ReadSizeProbe(
      [{ at: 0, bytes: bytes.subarray(0, summaryStart - 13) }, { at: tailAt, bytes: tail }],
      tailAt + tail.length,
    );
    const recording = await openRecording(source);
    expect(recording.info.indexed).toBe(true);
    const { messages: read, error } = await drain(recording);
    expect((error as RecordingError).damages).toEqual([
      {
        offset,
        reason: `the chunk is unreadable: ${tooLarge(3 * 2 ** 30, 64 * 1024 * 1024)}`,
        lost: new Map([["/a", inChunk.filter((m) => m.channel === 0).length], ["/b", inChunk.filter((m) => m.channel === 1).length]]),
      },
    ]);
    expect(times(read)).toEqual(messages.filter((m) => !inChunk.includes(m)).map((m) => m.logTime));
    expect(source.largestRead).toBeLessThan(2 ** 16);
  });

  it("a Header record whose length field is 2^64 - 1 is not read; its size is named exactly, and the file read sequentially", async () => {
    const { bytes: written, messages } = await fixture();
    const bytes = written.slice();
    new DataView(bytes.buffer).setBigUint64(9, 2n ** 64n - 1n, true);
    const source = new ReadSizeProbe(bytes);
    const recording = await openRecording(source);
    expect(recording.info.indexProblem).toBe(
      "the summary section is unusable: the Header record holds 18446744073709551624 bytes, more than the limit of 67108864 (a damaged length or an unusually large record; raise the limit with --max-chunk-size if the recording is genuine)",
    );
    const { messages: read } = await drain(recording);
    expect(times(read)).toEqual(messages.map((m) => m.logTime));
  });

  for (const read of ["indexed", "sequential"] as const) {
    it(`${read}: a chunk whose record length is 2^62 is one damage at its offset; every other chunk is delivered in order`, async () => {
      // Compressed: the records inside the chunk cannot be taken for records of the file.
      const { bytes: written, messages } = await fixture(zstdCompress);
      const { offset, inChunk } = await largest(written, messages);
      const bytes = read === "indexed" ? written.slice() : withoutSummary(written);
      new DataView(bytes.buffer).setBigUint64(offset + 1, 2n ** 62n, true);
      const source = new ReadSizeProbe(bytes);
      const recording = await openRecording(source);
      expect(recording.info.indexed).toBe(read === "indexed");
      const { messages: got, error } = await drain(recording);
      expect((error as RecordingError).damages.map((d) => d.offset)).toEqual([offset]);
      expect((error as RecordingError).message).not.toMatch(/RangeError|DataView|bounds/);
      expect(times(got)).toEqual(messages.filter((m) => !inChunk.includes(m)).map((m) => m.logTime));
      // Resynchronizing reads at most a MiB (and a record prefix) at a time.
      expect(source.largestRead).toBeLessThanOrEqual(2 ** 20 + 9);
    });
  }
});
