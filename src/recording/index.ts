export { ArrayByteSource, BlobByteSource, checkRange, type ByteSource } from "./ByteSource";
export { BagRecording } from "./BagRecording";
export { McapRecording } from "./McapRecording";
export { RecordingError } from "./RecordingError";
export { createDecoder, type MessageDecoder } from "./decoders";
export { loadDecompressors, type Decompressor, type Decompressors } from "./decompress";
export { openRecording, readRecording } from "./openRecording";
export type {
  ReadOptions,
  ReadProgress,
  RecordTime,
  RecordedMessage,
  Recording,
  RecordingChannel,
  RecordingInfo,
} from "./types";
export {
  namespacedTopic,
  SynchronizedMcapWriter,
  type SynchronizedMcapWriterOptions,
  type TupleMessage,
} from "./SynchronizedMcapWriter";
