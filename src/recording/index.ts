export { ArrayByteSource, BlobByteSource, checkRange, type ByteSource } from "./ByteSource";
export { BagRecording } from "./BagRecording";
export { McapRecording } from "./McapRecording";
export { RecordingError, type RecordingDamage } from "./RecordingError";
export { createDecoder, type MessageDecoder } from "./decoders";
export {
  DEFAULT_MAX_CHUNK_BYTES,
  loadDecompressors,
  type Decompressor,
  type Decompressors,
  type OpenOptions,
} from "./decompress";
export { openRecording, readRecording, type OpenRecordingOptions } from "./openRecording";
export { formatName } from "./formatName";
export { recordingFacts, type RecordingFacts } from "./recordingFacts";
export { TopicFactsCollector, type FactsInput, type MessageFacts, type TopicFacts } from "./TopicFacts";
export { MergedRecording } from "./MergedRecording";
export { Sqlite3Recording, type Sqlite3Options } from "./Sqlite3Recording";
export { openRosbag2, openRosbag2File, type BagFolder, type Rosbag2Options } from "./Rosbag2Recording";
export { parseRosbag2Metadata, Rosbag2MetadataError, type Rosbag2Metadata, type Rosbag2TopicMetadata } from "./rosbag2Metadata";
export { standardRos2Definition } from "./ros2Definitions";
export { defaultSqlJs, sqlJsFromWasm, type SqlJsLoader } from "./sqlJs";
// Every type of the recording contract (Recording, RecordedMessage, ReadOptions, …).
export type * from "./types";
export {
  namespacedTopic,
  SynchronizedMcapWriter,
  type SynchronizedMcapWriterOptions,
  type TupleMessage,
} from "./SynchronizedMcapWriter";
