import { parseIDL } from "@foxglove/omgidl-parser";
import { MessageReader as OmgidlReader } from "@foxglove/omgidl-serialization";
import { parseRos2idl } from "@foxglove/ros2idl-parser";
import { parse as parseMessageDefinition } from "@foxglove/rosmsg";
import { MessageReader as Ros1Reader } from "@foxglove/rosmsg-serialization";
import { MessageReader as Ros2Reader } from "@foxglove/rosmsg2-serialization";

import { protobufDecoder } from "./protobufDecoder";
import type { RecordingChannel } from "./types";

/** Turns serialized bytes into a message object. Throws on malformed data. */
export type MessageDecoder = (data: Uint8Array) => unknown;

const textDecoder = new TextDecoder();

/**
 * A decoder for a channel's messages, built once per channel: ROS 1 (`ros1` / `ros1msg`), ROS 2
 * CDR with a `ros2msg`, `ros2idl` or `omgidl` schema (ROS 2 time fields `{sec, nanosec}`),
 * protobuf (`protobuf`, from the schema's FileDescriptorSet; `google.protobuf.Timestamp` as
 * `{sec, nsec}`) and JSON (`json`). Throws an Error naming the topic and the encodings when it is
 * anything else or the schema does not parse.
 */
export function createDecoder(channel: RecordingChannel): MessageDecoder {
  const { topic, messageEncoding, schemaEncoding } = channel;
  try {
    if (messageEncoding === "ros1") {
      const reader = new Ros1Reader(parseMessageDefinition(textDecoder.decode(channel.schemaData)));
      return (data) => reader.readMessage(data);
    }
    if (messageEncoding === "cdr" && schemaEncoding === "ros2msg") {
      const reader = new Ros2Reader(
        parseMessageDefinition(textDecoder.decode(channel.schemaData), { ros2: true }),
      );
      return (data) => reader.readMessage(data);
    }
    if (messageEncoding === "cdr" && schemaEncoding === "ros2idl") {
      const definitions = parseRos2idl(textDecoder.decode(channel.schemaData));
      const root = definitions.findIndex((d) => d.name === channel.schemaName);
      if (root > 0) {
        definitions.unshift(...definitions.splice(root, 1));
      }
      const reader = new Ros2Reader(definitions);
      return (data) => reader.readMessage(data);
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
