import { describe, expect, it } from "vitest";

import { ArrayByteSource } from "./ByteSource";
import { RecordingError } from "./RecordingError";
import { openRecording } from "./openRecording";
import { bagDataLengthAt, writeBag, type BagFixtureConnection, type BagFixtureMessage } from "./testing/bagFixtures";
import type { RecordedMessage, Recording } from "./types";

const CONNECTIONS: BagFixtureConnection[] = [
  { topic: "/a", type: "test_msgs/Value", definition: "uint32 value" },
  { topic: "/b", type: "test_msgs/Value", definition: "uint32 value" },
];
/** 200 messages, alternating topics, 10 ms apart: 4 chunks of 50. */
const MESSAGES: BagFixtureMessage[] = [...Array(200).keys()].map((i) => ({
  conn: i % 2,
  sec: 100 + Math.floor(i / 100),
  nsec: (i % 100) * 10_000_000,
  data: Uint8Array.of(i & 0xff, 0, 0, 0),
}));

/** Reads everything (undecoded); returns what was delivered and the error that ended the read. */
async function drain(recording: Recording): Promise<{ messages: RecordedMessage[]; error?: RecordingError }> {
  const messages: RecordedMessage[] = [];
  try {
    for await (const m of recording.messages({ decode: false })) {
      messages.push(m);
    }
  } catch (error) {
    expect(error).toBeInstanceOf(RecordingError);
    return { messages, error: error as RecordingError };
  }
  return { messages };
}

function setU32(bytes: Uint8Array, at: number, value: number): void {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(at, value, true);
}

describe("a bag whose length fields are 0xFFFFFFFF", () => {
  const bag = writeBag(CONNECTIONS, MESSAGES);
  const chunk = bag.chunks[1]!;

  it("names a chunk's header length as the unsigned 4294967295 and what the file holds after it", async () => {
    const bad = bag.bytes.slice();
    setU32(bad, chunk.offset, 0xffffffff);
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [chunk.offset, `the chunk is unreadable: record header length 4294967295 is impossible: it says 4294967295 bytes but the file has ${bad.length - chunk.offset - 4} after it (corrupt data)`],
    ]);
    expect(messages.length).toBe(MESSAGES.length - chunk.messages.length);
  });

  it("names a chunk's data length as 4294967295 and the bytes before the index, not a truncation", async () => {
    const bad = bag.bytes.slice();
    const at = bagDataLengthAt(bad, chunk.offset);
    setU32(bad, at, 0xffffffff);
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [
        chunk.offset,
        `the chunk is unreadable: record data length 4294967295 is impossible: the record here (op 5) says its data is 4294967295 bytes but only ${bag.indexPos - at - 4} lie between its header and the index at byte ${bag.indexPos} (corrupt data)`,
      ],
    ]);
    expect(messages.length).toBe(MESSAGES.length - chunk.messages.length);
  });

  it("names the data length of a record read without an index as 4294967295 and what the file holds after it", async () => {
    const unindexed = writeBag(CONNECTIONS, MESSAGES, { noIndex: true });
    const last = unindexed.chunks.at(-1)!;
    const bad = unindexed.bytes.slice();
    const at = bagDataLengthAt(bad, last.offset);
    setU32(bad, at, 0xffffffff);
    const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
    expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([
      [
        last.offset,
        `the file is truncated or this record's length is corrupt: the record here (op 5) says its data is 4294967295 bytes but the file has ${bad.length - at - 4} after its header`,
      ],
    ]);
    expect(messages.length).toBe(MESSAGES.length - last.messages.length);
  });

  it("names the bag header's length as 4294967295 in the index problem", async () => {
    const bad = bag.bytes.slice();
    setU32(bad, 13, 0xffffffff);
    const recording = await openRecording(new ArrayByteSource(bad));
    expect(recording.info.indexProblem).toContain("record header length 4294967295 is impossible");
    const { messages, error } = await drain(recording);
    expect(error?.damages.map((d) => d.reason)).toEqual([expect.stringContaining("record header length 4294967295 is impossible")]);
    expect(messages.length).toBe(MESSAGES.length);
  });

  it("names the header and data lengths of a record inside a chunk as unsigned", async () => {
    const dataStart = bagDataLengthAt(bag.bytes, chunk.offset) + 4;
    // The chunk's first record is a message (its connections were defined by the first chunk).
    for (const [at, what] of [
      [dataStart, "record header length 4294967295"],
      [bagDataLengthAt(bag.bytes, dataStart), "record data length 4294967295"],
    ] as const) {
      const bad = bag.bytes.slice();
      setU32(bad, at, 0xffffffff);
      const { messages, error } = await drain(await openRecording(new ArrayByteSource(bad)));
      expect(error?.damages.map((d) => [d.offset, d.reason])).toEqual([[chunk.offset, expect.stringContaining(`chunk data is corrupt: ${what} (`)]]);
      expect(error?.message).not.toContain("-1");
      expect(messages.length).toBe(MESSAGES.length - chunk.messages.length);
    }
  });
});
