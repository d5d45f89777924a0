import { parseIDL } from "@foxglove/omgidl-parser";
import { MessageWriter as OmgidlWriter } from "@foxglove/omgidl-serialization";
import { parseRos2idl } from "@foxglove/ros2idl-parser";
import { parse as parseMessageDefinition } from "@foxglove/rosmsg";
import { MessageWriter as Ros1Writer } from "@foxglove/rosmsg-serialization";
import { MessageWriter as Ros2Writer } from "@foxglove/rosmsg2-serialization";
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";

import { ArrayByteSource } from "./ByteSource";
import { createDecoder } from "./decoders";
import { openRecording } from "./openRecording";
import { writeMcap } from "./testing/mcapFixtures";
import { descriptorSetOf, foxgloveProtobufRoot } from "./testing/protobufFixtures";
import type { RecordingChannel } from "./types";
import { readStamp } from "../messages";

const encoder = new TextEncoder();

function channel(partial: Partial<RecordingChannel> & Pick<RecordingChannel, "schemaName" | "schemaEncoding" | "messageEncoding">): RecordingChannel {
  return { topic: "/t", schemaData: new Uint8Array(), metadata: new Map(), ...partial };
}

describe("MCAP message encodings", () => {
  it("protobuf: foxglove.* schemas from their FileDescriptorSet; Timestamp becomes a stamp", async () => {
    const root = foxgloveProtobufRoot();
    const type = root.lookupType("foxglove.PoseInFrame");
    const schema = descriptorSetOf(root);
    const poses = [0, 1, 2].map((i) => ({
      timestamp: { seconds: 1_700_000_000 + i, nanos: 123_456_789 },
      frame_id: "map",
      pose: { position: { x: i, y: -i, z: 0.5 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    }));
    const bytes = await writeMcap(
      [{ topic: "/pose", schemaName: "foxglove.PoseInFrame", schemaEncoding: "protobuf", schema: "", messageEncoding: "protobuf" }],
      poses.map((p, i) => ({ channel: 0, logTime: BigInt(1_700_000_000 + i) * 1_000_000_000n + 200_000_000n, data: type.encode(type.fromObject(p)).finish() })),
      { schemaBytes: [schema] },
    );
    const recording = await openRecording(new ArrayByteSource(bytes));
    const got: { frame_id: string; pose: { position: { x: number } } }[] = [];
    for await (const m of recording.messages()) {
      got.push(m.message as (typeof got)[number]);
    }
    expect(got.map((m) => [readStamp(m), m.frame_id, m.pose.position.x])).toEqual(
      poses.map((_, i) => [{ sec: 1_700_000_000 + i, nsec: 123_456_789 }, "map", i]),
    );
  });

  it("protobuf: a user schema with nested messages, repeated fields, enums and 64-bit integers", () => {
    const root = protobuf.parse(
      `syntax = "proto3"; package acme;
       import "google/protobuf/timestamp.proto";
       message Meta { google.protobuf.Timestamp time = 1; }
       message Reading { enum Kind { A = 0; B = 1; } Meta meta = 1; repeated double values = 2; Kind kind = 3; int64 count = 4; bytes raw = 5; repeated Meta history = 6; }`,
      (() => {
        const withTimestamp = new protobuf.Root();
        withTimestamp.addJSON(protobuf.common.get("google/protobuf/timestamp.proto")!.nested!);
        return withTimestamp;
      })(),
      { keepCase: true },
    ).root;
    root.resolveAll();
    const type = root.lookupType("acme.Reading");
    const data = type.encode(type.fromObject({ meta: { time: { seconds: 12, nanos: 34 } }, values: [1.5, 2.5], kind: 1, count: 9_007_199_254, raw: new Uint8Array([1, 2]), history: [{ time: { seconds: 1, nanos: 2 } }] })).finish();
    const decode = createDecoder(channel({ schemaName: "acme.Reading", schemaEncoding: "protobuf", messageEncoding: "protobuf", schemaData: descriptorSetOf(root) }));
    const m = decode(data) as Record<string, unknown>;
    expect(m.meta).toEqual({ time: { sec: 12, nsec: 34 } });
    expect(m.values).toEqual([1.5, 2.5]);
    expect(m.kind).toBe(1);
    expect(m.count).toBe(9_007_199_254);
    expect(Array.from(m.raw as Uint8Array)).toEqual([1, 2]);
    expect(m.history).toEqual([{ time: { sec: 1, nsec: 2 } }]);
  });

  it("ros2idl and omgidl schemas with CDR messages", () => {
    const ros2idl = [
      "module my_pkg { module msg { struct Stamped { builtin_interfaces::msg::Time stamp; double value; }; }; };",
      "================================================================================",
      "IDL: builtin_interfaces/msg/Time",
      "module builtin_interfaces { module msg { struct Time { int32 sec; uint32 nanosec; }; }; };",
    ].join("\n");
    // The ros2idl parser maps builtin_interfaces/msg/Time to the builtin time type ({sec, nsec}).
    const message = { stamp: { sec: 5, nsec: 6 }, value: 2.25 };
    const defs = parseRos2idl(ros2idl);
    const root = defs.findIndex((d) => d.name === "my_pkg/msg/Stamped");
    const ordered = [defs[root]!, ...defs.filter((_, i) => i !== root)];
    const cdr = new Ros2Writer(ordered).writeMessage(message);
    const fromRos2idl = createDecoder(channel({ schemaName: "my_pkg/msg/Stamped", schemaEncoding: "ros2idl", messageEncoding: "cdr", schemaData: encoder.encode(ros2idl) }));
    expect(fromRos2idl(cdr)).toEqual(message);

    const omgidl = "module acme { struct Time { int32 sec; uint32 nanosec; }; struct Sample { Time stamp; float level; string name; }; };";
    const sample = { stamp: { sec: 7, nanosec: 8 }, level: 0.5, name: "x" };
    const omgCdr = new OmgidlWriter("acme::Sample", parseIDL(omgidl)).writeMessage(sample);
    const fromOmgidl = createDecoder(channel({ schemaName: "acme::Sample", schemaEncoding: "omgidl", messageEncoding: "cdr", schemaData: encoder.encode(omgidl) }));
    expect(fromOmgidl(omgCdr)).toEqual(sample);
  });

  it("JSON messages; an unknown encoding names the topic and the encoding", () => {
    const json = createDecoder(channel({ schemaName: "Thing", schemaEncoding: "jsonschema", messageEncoding: "json" }));
    expect(json(encoder.encode('{"timestamp":{"sec":1,"nsec":2}}'))).toEqual({ timestamp: { sec: 1, nsec: 2 } });
    expect(() => createDecoder(channel({ topic: "/cam", schemaName: "X", schemaEncoding: "flatbuffer", messageEncoding: "flatbuffer" }))).toThrow(
      /topic \/cam: message encoding "flatbuffer" with schema encoding "flatbuffer" is not supported/,
    );
  });
});

/** A message's bytes inside a larger buffer (a chunk, a page), `offset` bytes in: any alignment. */
function insideChunk(bytes: Uint8Array, offset: number): { chunk: Uint8Array; message: Uint8Array } {
  const chunk = new Uint8Array(offset + bytes.byteLength + 8);
  chunk.set(bytes, offset);
  return { chunk, message: chunk.subarray(offset, offset + bytes.byteLength) };
}

describe("CDR messages with float64 arrays (ros2msg)", () => {
  const IMU = [
    "std_msgs/Header header",
    "geometry_msgs/Quaternion orientation",
    "float64[9] orientation_covariance",
    "float64[] samples",
    "uint8 flag",
    "float64[3] tail",
    "================================================================================",
    "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id",
    "================================================================================",
    "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec",
    "================================================================================",
    "MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w",
  ].join("\n");
  const imuChannel = channel({ schemaName: "test_msgs/msg/Imu", schemaEncoding: "ros2msg", messageEncoding: "cdr", schemaData: encoder.encode(IMU) });
  const writer = new Ros2Writer(parseMessageDefinition(IMU, { ros2: true }));
  const arbitraryImu = fc.record({
    header: fc.record({ stamp: fc.record({ sec: fc.integer({ min: 0, max: 2 ** 31 - 1 }), nanosec: fc.nat(999_999_999) }), frame_id: fc.string({ maxLength: 12 }) }),
    orientation: fc.record({ x: fc.double(), y: fc.double(), z: fc.double(), w: fc.double() }),
    orientation_covariance: fc.array(fc.double(), { minLength: 9, maxLength: 9 }),
    samples: fc.array(fc.double(), { maxLength: 30 }),
    flag: fc.nat(255),
    tail: fc.array(fc.double(), { minLength: 3, maxLength: 3 }),
  });

  it("decode the same values wherever the bytes lie in memory, and the arrays keep none of the memory they were read from", () => {
    const decode = createDecoder(imuChannel);
    fc.assert(
      fc.property(arbitraryImu, fc.nat(15), (imu, offset) => {
        const { chunk, message } = insideChunk(writer.writeMessage(imu), offset);
        const decoded = decode(message) as Record<string, unknown>;
        for (const field of ["orientation_covariance", "samples", "tail"] as const) {
          const array = decoded[field] as Float64Array;
          expect(array).toBeInstanceOf(Float64Array);
          expect(Array.from(array)).toEqual(imu[field]);
          expect(array.buffer).not.toBe(chunk.buffer);
        }
        expect(decoded.orientation).toEqual(imu.orientation);
        expect(decoded.header).toEqual(imu.header);
        expect(decoded.flag).toBe(imu.flag);
      }),
      { numRuns: 300 },
    );
  });
});

describe("ROS 1 messages with arrays of numbers", () => {
  const SCAN = [
    "Header header",
    "float64[9] covariance",
    "float32[] ranges",
    "uint8[] data",
    "byte[] raw",
    "int32 count",
    "================================================================================",
    "MSG: std_msgs/Header\nuint32 seq\ntime stamp\nstring frame_id",
  ].join("\n");
  const scanChannel = channel({ schemaName: "test_msgs/Scan", schemaEncoding: "ros1msg", messageEncoding: "ros1", schemaData: encoder.encode(SCAN) });
  const writer = new Ros1Writer(parseMessageDefinition(SCAN));
  const arbitraryScan = fc.record({
    header: fc.record({ seq: fc.nat(), stamp: fc.record({ sec: fc.nat(), nsec: fc.nat(999_999_999) }), frame_id: fc.string({ maxLength: 12 }) }),
    covariance: fc.array(fc.double(), { minLength: 9, maxLength: 9 }),
    ranges: fc.array(fc.float(), { maxLength: 20 }),
    data: fc.uint8Array({ maxLength: 40 }),
    raw: fc.int8Array({ maxLength: 10 }),
    count: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  });

  it("decode the same values wherever the bytes lie in a chunk, and the arrays keep none of the chunk alive", () => {
    const decode = createDecoder(scanChannel);
    fc.assert(
      fc.property(arbitraryScan, fc.nat(15), (scan, offset) => {
        const { chunk, message } = insideChunk(writer.writeMessage(scan), offset);
        const decoded = decode(message) as Record<string, ArrayLike<number> & { buffer: ArrayBufferLike }>;
        for (const field of ["covariance", "ranges", "data", "raw"] as const) {
          expect(Array.from(decoded[field]!)).toEqual(Array.from(scan[field]));
          expect(decoded[field]!.buffer).not.toBe(chunk.buffer);
        }
        expect(decoded.header).toEqual(scan.header);
        expect(decoded.count).toBe(scan.count);
      }),
      { numRuns: 300 },
    );
  });
});
