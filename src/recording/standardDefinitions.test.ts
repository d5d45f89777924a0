import { describe, expect, it } from "vitest";

import { ArrayByteSource } from "./ByteSource";
import { createDecoder, standardDefinitionOf } from "./decoders";
import { openRecordingFile } from "./node";
import { openRecording } from "./openRecording";
import { writeMcap } from "./testing/mcapFixtures";
import { HAS_SHARED_DATA, HUSKY_BAG, sharedRecording } from "./testing/paths";
import type { RecordingChannel } from "./types";

/** Up to `n` raw messages per topic, with the channel that describes them. */
async function rawSamples(file: string, n: number): Promise<{ channel: RecordingChannel; data: Uint8Array[] }[]> {
  const rec = await openRecordingFile(file);
  const byTopic = new Map<string, Uint8Array[]>();
  for await (const m of rec.messages({ decode: false })) {
    const list = byTopic.get(m.topic) ?? [];
    if (list.length < n) {
      list.push(m.data);
      byTopic.set(m.topic, list);
    }
  }
  await rec.close();
  return rec.info.channels.map((channel) => ({ channel, data: byTopic.get(channel.topic) ?? [] }));
}

describe("channels whose writer named the type but left the schema empty get the standard definition", () => {
  const cases = [
    ["ROS 2 MCAP (cdr)", sharedRecording("ros2/husky-2015.mcap"), HAS_SHARED_DATA],
    ["ROS 1 bag (ros1)", HUSKY_BAG, true],
  ] as const;
  for (const [title, file, present] of cases) {
    it.skipIf(!present)(`${title}: every topic decodes as with its own schema`, async () => {
      const samples = await rawSamples(file, 5);
      expect(samples.length).toBeGreaterThan(2);
      for (const { channel, data } of samples) {
        expect(data.length, channel.topic).toBeGreaterThan(0);
        const own = createDecoder(channel);
        const standard = createDecoder({ ...channel, schemaData: new Uint8Array() });
        for (const bytes of data) {
          expect(standard(bytes), channel.topic).toEqual(own(bytes));
        }
      }
    });
  }

  it("a channel without a schema, or with an empty one of a non-standard type, is named with the reason", async () => {
    const base: RecordingChannel = { topic: "/x", schemaName: "", schemaEncoding: "", schemaData: new Uint8Array(), messageEncoding: "cdr", metadata: new Map() };
    expect(standardDefinitionOf(base)).toBeUndefined();
    expect(standardDefinitionOf({ ...base, schemaName: "my_pkg/msg/Thing", schemaEncoding: "ros2msg" })).toBeUndefined();
    expect(standardDefinitionOf({ ...base, schemaName: "sensor_msgs/msg/Imu", schemaEncoding: "ros2msg" })).toContain("MSG: std_msgs/Header");
    const file = await writeMcap(
      [
        { topic: "/thing", schemaName: "my_pkg/msg/Thing", schemaEncoding: "ros2msg", schema: "", messageEncoding: "cdr" },
        { topic: "/chatter", schemaName: "std_msgs/msg/String", schemaEncoding: "ros2msg", schema: "", messageEncoding: "cdr" },
      ],
      [
        { channel: 0, logTime: 1_000_000_000n, data: new Uint8Array([0, 1, 0, 0, 1, 2, 3, 4]) },
        // CDR little-endian header, then the string "hi" with its length (3, the NUL included).
        { channel: 1, logTime: 2_000_000_000n, data: new Uint8Array([0, 1, 0, 0, 3, 0, 0, 0, 104, 105, 0]) },
      ],
    );
    const rec = await openRecording(new ArrayByteSource(file));
    const read: { topic: string; message: unknown; decodeError?: string }[] = [];
    for await (const m of rec.messages()) {
      read.push(m);
    }
    expect(read[0]!.decodeError).toContain("holds no message definition (my_pkg/msg/Thing)");
    expect(read[1]).toMatchObject({ topic: "/chatter", message: { data: "hi" } });
    expect(read[1]!.decodeError).toBeUndefined();
  });
});
