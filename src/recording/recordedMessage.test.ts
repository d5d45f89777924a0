import { describe, expect, it } from "vitest";

import { toRecordedMessage } from "./recordedMessage";
import type { RecordingChannel } from "./types";

function channel(messageEncoding: "ros1" | "cdr", definition: string): RecordingChannel {
  return {
    topic: "/t",
    schemaName: messageEncoding === "ros1" ? "test_msgs/Named" : "test_msgs/msg/Named",
    schemaEncoding: messageEncoding === "ros1" ? "ros1msg" : "ros2msg",
    schemaData: new TextEncoder().encode(definition),
    messageEncoding,
    metadata: new Map(),
  };
}

const read = (c: RecordingChannel, bytes: number[]): ReturnType<typeof toRecordedMessage> =>
  toRecordedMessage({ channel: c }, Uint8Array.from(bytes), { sec: 1, nsec: 0 }, "decode", 100, 7, (n) => `(message ${n})`);

describe("toRecordedMessage", () => {
  const ros1 = channel("ros1", "uint32 value\nstring name");

  it("decodes whole bytes", () => {
    const m = read(ros1, [5, 0, 0, 0, 2, 0, 0, 0, 104, 105]);
    expect(m.decodeError).toBeUndefined();
    expect(m.message).toEqual({ value: 5, name: "hi" });
  });

  it("says in words that bytes cut short or a damaged length field are why they do not decode", () => {
    const prefix = "a test_msgs/Named message on /t (message 7) in the record at byte offset 100 does not decode: ";
    // The string's length says 2, one byte follows; then a length of 2^31 with nothing after it.
    for (const bytes of [[5, 0, 0, 0, 2, 0, 0, 0, 104], [5, 0, 0, 0, 0, 0, 0, 0x80]]) {
      const m = read(ros1, bytes);
      expect(m.message).toBeUndefined();
      expect(m.decodeError).toMatch(new RegExp(`^${prefix.replace(/[()]/g, "\\$&")}its ${bytes.length} bytes end before the fields its definition asks for, or a length field in it is damaged \\(.+\\)$`));
    }
    // CDR: encapsulation header, then a uint32 and a string length of 150,994,943.
    const cdr = read(channel("cdr", "uint32 value\nstring name"), [0, 1, 0, 0, 5, 0, 0, 0, 0xff, 0xff, 0xff, 0x08]);
    expect(cdr.decodeError).toMatch(/does not decode: its 12 bytes end before the fields its definition asks for, or a length field in it is damaged \(/);
  });
});
