import { RecordingError, errorText } from "./RecordingError";
import { createDecoder, type MessageDecoder } from "./decoders";
import type { ReadOptions, RecordTime, RecordedMessage, RecordingChannel, RecordingInfo } from "./types";

/** A channel of a recording and its decoder (created on the first message that is decoded). */
export interface ChannelEntry {
  channel: RecordingChannel;
  decoder?: MessageDecoder;
}

/**
 * One RecordedMessage from serialized bytes, decoded unless `decode` is "raw". Throws a
 * RecordingError at `offset` when the bytes do not decode; `describe(context)` names the message
 * in that error (e.g. "(log time 12)"), so nothing is built for messages that decode.
 */
export function toRecordedMessage<C>(
  entry: ChannelEntry,
  data: Uint8Array,
  receiveTime: RecordTime,
  decode: "raw" | "decode",
  offset: number,
  context: C,
  describe: (context: C) => string,
): RecordedMessage {
  const { channel } = entry;
  let message: unknown;
  if (decode === "decode") {
    try {
      entry.decoder ??= createDecoder(channel);
      message = entry.decoder(data);
    } catch (err) {
      throw new RecordingError(
        offset,
        `a ${channel.schemaName} message on ${channel.topic} ${describe(context)} does not decode: ${errorText(err)}`,
        { cause: err },
      );
    }
  }
  return {
    topic: channel.topic,
    schemaName: channel.schemaName,
    receiveTime,
    message,
    sizeInBytes: data.byteLength,
    data,
    channel,
  };
}

/** The RecordingInfo of a file read without an index: nothing is known before reading it. */
export function unindexedInfo(
  format: RecordingInfo["format"],
  profile: RecordingInfo["profile"],
  indexProblem: string | undefined,
  sizeInBytes: number,
): RecordingInfo {
  return {
    format,
    profile,
    channels: [],
    messageCounts: undefined,
    startTime: undefined,
    endTime: undefined,
    indexed: false,
    indexProblem,
    sizeInBytes,
  };
}

/** Reports `bytesRead` of `totalBytes` to `options.onProgress` (if set); fraction 1 for an empty file. */
export function reportProgress(options: ReadOptions, bytesRead: number, totalBytes: number): void {
  options.onProgress?.({ bytesRead, totalBytes, fraction: totalBytes > 0 ? bytesRead / totalBytes : 1 });
}
