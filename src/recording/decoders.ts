import { parseIDL } from "@foxglove/omgidl-parser";
import { MessageReader as OmgidlReader } from "@foxglove/omgidl-serialization";
import { parseRos2idl } from "@foxglove/ros2idl-parser";
import { parse as parseMessageDefinition } from "@foxglove/rosmsg";
import { MessageReader as Ros1Reader } from "@foxglove/rosmsg-serialization";
import { MessageReader as Ros2Reader } from "@foxglove/rosmsg2-serialization";

import { MessageSlab } from "./MessageSlab";
import { protobufDecoder } from "./protobufDecoder";
import { standardRos1Definition, standardRos2Definition } from "./ros2Definitions";
import type { RecordingChannel } from "./types";

/** Turns serialized bytes into a message object. Throws on malformed data. */
export type MessageDecoder = (data: Uint8Array) => unknown;

const textDecoder = new TextDecoder();

/**
 * The standard definition that stands in for a channel's empty schema: a writer may name a ROS
 * type (`sensor_msgs/msg/Imu`, `sensor_msgs/Imu`) but leave its schema empty, as a rosbag2
 * without definitions does. Undefined when the schema is not empty, the encoding is not ros1 /
 * cdr, or the type is not a standard one (@foxglove/rosmsg-msgs-common).
 */
export function standardDefinitionOf(channel: RecordingChannel): string | undefined {
  const { messageEncoding, schemaEncoding, schemaName } = channel;
  if (channel.schemaData.length > 0 || schemaName === "") {
    return undefined;
  }
  if (messageEncoding === "ros1") {
    return standardRos1Definition(schemaName);
  }
  return messageEncoding === "cdr" && (schemaEncoding === "ros2msg" || schemaEncoding === "") ? standardRos2Definition(schemaName) : undefined;
}

/**
 * Decodes CDR messages with `reader` from a copy of their bytes (`MessageSlab`) placed 4 bytes
 * past a multiple of 8 in memory. CDR aligns 8-byte fields from the end of its 4-byte
 * encapsulation header, so they then lie on multiples of 8, and the reader returns float64 arrays
 * (covariances) as views of the copy instead of reading them value by value; a message's arrays
 * then keep only the copy's slab alive, never the chunk or page they were read from.
 */
function ros2Decoder(reader: Ros2Reader): MessageDecoder {
  const slab = new MessageSlab();
  return (data) => reader.readMessage(slab.copy(data, 4));
}

/** The element types of which the ROS 1 reader returns arrays as views of the bytes it reads. */
const VIEWED_ARRAY_TYPES: ReadonlySet<string> = new Set(["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"]);

/**
 * Decodes ROS 1 messages of `definitions`. The reader returns arrays of numbers (`uint8[] data`,
 * covariances) as views of the bytes it reads, where they are aligned: when the definitions have
 * such arrays, a message is read from a copy of its bytes (`MessageSlab`), so that a message held
 * (in a policy's queue, a fusion window) keeps only the copy's slab alive, never the decompressed
 * chunk it was read from, as the CDR decoders do. Messages without them are read in place.
 */
function ros1Decoder(definitions: ReturnType<typeof parseMessageDefinition>): MessageDecoder {
  const reader = new Ros1Reader(definitions);
  if (!definitions.some((d) => d.definitions.some((f) => f.isArray === true && VIEWED_ARRAY_TYPES.has(f.type)))) {
    return (data) => reader.readMessage(data);
  }
  const slab = new MessageSlab();
  return (data) => reader.readMessage(slab.copy(data));
}

/**
 * A decoder for a channel's messages, built once per channel: ROS 1 (`ros1` / `ros1msg`), ROS 2
 * CDR with a `ros2msg`, `ros2idl` or `omgidl` schema (ROS 2 time fields `{sec, nanosec}`),
 * protobuf (`protobuf`, from the schema's FileDescriptorSet; `google.protobuf.Timestamp` as
 * `{sec, nsec}`) and JSON (`json`); an empty ros1 / cdr schema of a standard ROS type is read with
 * that type's standard definition (`standardDefinitionOf`). Throws an Error naming the topic and
 * the encodings when it is anything else or the schema does not parse.
 */
export function createDecoder(channel: RecordingChannel): MessageDecoder {
  const { topic, messageEncoding, schemaEncoding } = channel;
  const standard = standardDefinitionOf(channel);
  if (standard != undefined) {
    const definitions = parseMessageDefinition(standard, { ros2: messageEncoding === "cdr" });
    if (messageEncoding === "ros1") {
      return ros1Decoder(definitions);
    }
    return ros2Decoder(new Ros2Reader(definitions));
  }
  try {
    if (messageEncoding === "ros1") {
      return ros1Decoder(parseMessageDefinition(textDecoder.decode(channel.schemaData)));
    }
    if (messageEncoding === "cdr" && schemaEncoding === "ros2msg") {
      return ros2Decoder(new Ros2Reader(parseMessageDefinition(textDecoder.decode(channel.schemaData), { ros2: true })));
    }
    if (messageEncoding === "cdr" && schemaEncoding === "ros2idl") {
      const definitions = parseRos2idl(textDecoder.decode(channel.schemaData));
      const root = definitions.findIndex((d) => d.name === channel.schemaName);
      if (root > 0) {
        definitions.unshift(...definitions.splice(root, 1));
      }
      return ros2Decoder(new Ros2Reader(definitions));
    }
    if ((messageEncoding === "cdr" || messageEncoding === "xcdr2") && schemaEncoding === "omgidl") {
      const reader = new OmgidlReader(channel.schemaName, parseIDL(textDecoder.decode(channel.schemaData)));
      return (data) => reader.readMessage(data);
    }
    if (messageEncoding === "protobuf" && schemaEncoding === "protobuf") {
      return protobufDecoder(channel.schemaName, channel.schemaData);
    }
    if (messageEncoding === "json") {
      return (data) => JSON.parse(textDecoder.decode(data)) as unknown;
    }
  } catch (err) {
    throw new Error(
      `topic ${topic}: cannot parse its ${schemaEncoding} schema "${channel.schemaName}": ${
        err instanceof Error ? err.message : String(err)
      }`,
    );
  }
  throw new Error(
    `topic ${topic}: message encoding "${messageEncoding}" with schema encoding "${schemaEncoding}" ` +
      `is not supported (Lockstep decodes ros1, cdr with ros2msg/ros2idl/omgidl, protobuf and json); leave this topic out`,
  );
}
