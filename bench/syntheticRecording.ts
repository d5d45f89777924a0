/**
 * The synthetic robot's recording (bench/syntheticRobot.ts) as an MCAP file of any size, for
 * timing whole-recording analysis at realistic scale (the `recording-1gb` benchmark): ROS 1
 * encoding, zstd-compressed 4 MiB chunks, with summary and chunk index.
 */

import { parse as parseMessageDefinition } from "@foxglove/rosmsg";
import { MessageWriter } from "@foxglove/rosmsg-serialization";
import { compress, isLoaded as zstdLoaded } from "@foxglove/wasm-zstd";
import { McapWriter } from "@mcap/core";

import {
  spliceCloudData,
  syntheticDefinition,
  syntheticMessages,
  syntheticTopics,
  type SyntheticRobotOptions,
  type SyntheticType,
  type SyntheticWriteSummary,
} from "./syntheticRobot";
import { FileWritable } from "../src/recording/node";

export { SYNTHETIC_CONFIG_TEXT, SYNTHETIC_SYNC_TOPICS } from "./syntheticRobot";

/** Parameters of a synthetic recording (each second holds about 12 MB, so 90 s is just over 1 GB). */
export type SyntheticRecordingOptions = SyntheticRobotOptions;

/** What was written. */
export type SyntheticRecordingSummary = SyntheticWriteSummary;

/** Writes the recording to `path` (overwriting it). */
export async function writeSyntheticRecording(
  path: string,
  options: SyntheticRecordingOptions,
): Promise<SyntheticRecordingSummary> {
  await zstdLoaded;
  const topics = syntheticTopics(options);
  const file = await FileWritable.create(path);
  const writer = new McapWriter({
    writable: file,
    chunkSize: 4 << 20,
    compressChunk: (data) => ({ compression: "zstd", compressedData: compress(data, 1) }),
  });
  await writer.start({ profile: "ros1", library: "lockstep bench syntheticRecording" });
  const writers = new Map<SyntheticType, MessageWriter>();
  const channels: number[] = [];
  for (const spec of topics) {
    const text = syntheticDefinition(spec.type, "ros1");
    if (!writers.has(spec.type)) {
      writers.set(spec.type, new MessageWriter(parseMessageDefinition(text)));
    }
    const schemaId = await writer.registerSchema({
      name: spec.type,
      encoding: "ros1msg",
      data: new TextEncoder().encode(text),
    });
    channels.push(
      await writer.registerChannel({
        topic: spec.topic,
        schemaId,
        messageEncoding: "ros1",
        metadata: new Map(),
      }),
    );
  }
  const counts: Record<string, number> = {};
  let messages = 0;
  for (const m of syntheticMessages(options)) {
    let data = writers.get(m.topic.type)!.writeMessage(m.message);
    if (m.cloud != undefined) {
      data = spliceCloudData(data, m.cloud);
    }
    await writer.addMessage({
      channelId: channels[m.topicIndex]!,
      sequence: m.sequence,
      logTime: m.logNs,
      publishTime: m.logNs,
      data,
    });
    counts[m.topic.topic] = (counts[m.topic.topic] ?? 0) + 1;
    messages++;
  }
  await writer.end();
  await file.close();
  return { path, bytes: Number(file.position()), messages, counts };
}
