import { errorText } from "./RecordingError";
import { secNsecText } from "../time";
import { createDecoder, standardDefinitionOf, type MessageDecoder } from "./decoders";
import type { ReadOptions, RecordTime, RecordedMessage, RecordingChannel, RecordingInfo } from "./types";

/** A channel of a recording and its decoder (created on the first message that is decoded). */
export interface ChannelEntry {
  channel: RecordingChannel;
  decoder?: MessageDecoder;
  /** Why no decoder can be built for this channel (kept so it is tried once). */
  decoderError?: string;
}

/**
 * The channel's decoder, built on first use. Throws (every time, from a cached reason) when the
 * channel cannot be decoded: an unsupported encoding, a schema that does not parse, or a
 * connection recorded without its message definition (only an empty message type has an empty
 * definition, and its messages have no bytes).
 */
function decoderOf(entry: ChannelEntry, data: Uint8Array): MessageDecoder {
  if (entry.decoder) {
    return entry.decoder;
  }
  const { channel } = entry;
  if (
    entry.decoderError == undefined &&
    channel.schemaData.byteLength === 0 &&
    data.byteLength > 0 &&
    channel.messageEncoding !== "json" &&
    standardDefinitionOf(channel) == undefined
  ) {
    entry.decoderError = `topic ${channel.topic}: the recording holds no message definition (${channel.schemaName || "no type"}) for it, so its messages cannot be decoded; record it with its definition or leave the topic out`;
  }
  if (entry.decoderError != undefined) {
    throw new Error(entry.decoderError);
  }
  try {
    entry.decoder = createDecoder(channel);
  } catch (err) {
    entry.decoderError = errorText(err);
    throw err;
  }
  return entry.decoder;
}

/**
 * One RecordedMessage from serialized bytes, decoded unless `decode` is "raw". Bytes that do not
 * decode never throw: the message comes back with `decodeError` naming the topic, the message
 * (`describe(context)`, e.g. "(log time 12)", built only then) and the byte offset `offset` of
 * the chunk or record that held it.
 */
export function toRecordedMessage<C>(
  entry: ChannelEntry,
  data: Uint8Array,
  receiveTime: RecordTime,
  decode: "raw" | "decode",
  offset: number,
  context: C,
  describe: (context: C) => string,
  publishTime?: RecordTime,
): RecordedMessage {
  const { channel } = entry;
  let message: unknown;
  let decodeError: string | undefined;
  if (decode === "decode") {
    try {
      message = decoderOf(entry, data)(data);
    } catch (err) {
      decodeError = `a ${channel.schemaName} message on ${channel.topic} ${describe(context)} in the record at byte offset ${offset} does not decode: ${decodeFailure(err, data.byteLength)}`;
    }
  }
  const out: RecordedMessage = {
    topic: channel.topic,
    schemaName: channel.schemaName,
    receiveTime,
    publishTime,
    message,
    sizeInBytes: data.byteLength,
    data,
    channel,
  };
  return decodeError == undefined ? out : { ...out, decodeError };
}

/**
 * Why bytes did not decode, in words: the decoders signal bytes that end before the fields the
 * definition asks for (a message cut short, or a length or count field damaged into a huge one)
 * with the RangeErrors of typed arrays and DataViews, whose text names neither; it is kept after.
 */
function decodeFailure(err: unknown, size: number): string {
  return err instanceof RangeError
    ? `its ${size} bytes end before the fields its definition asks for, or a length field in it is damaged (${errorText(err)})`
    : errorText(err);
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
    publishTimes: format === "mcap",
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

/** A receive time as seconds.nanoseconds (`secNsecText`: digits as stored, a damaged nsec shows as it is). */
export function timeText(time: RecordTime): string {
  return secNsecText(time.sec, time.nsec);
}
