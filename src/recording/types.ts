import type { RecordingDamage } from "./RecordingError";

/** A ROS time as recordings store receive times: whole seconds and nanoseconds (0 <= nsec < 1e9). */
export interface RecordTime {
  sec: number;
  nsec: number;
}

/**
 * One topic of a recording, with everything needed to decode its messages or to write them to
 * another file unchanged (schema text and encodings, as MCAP names them).
 */
export interface RecordingChannel {
  readonly topic: string;
  /** Message type, e.g. "sensor_msgs/Imu" (ROS 1) or "sensor_msgs/msg/Imu" (ROS 2). */
  readonly schemaName: string;
  /** MCAP schema encoding: "ros1msg", "ros2msg", "jsonschema" or "" (none). */
  readonly schemaEncoding: string;
  /** Schema text as bytes (the full message definition for ROS). */
  readonly schemaData: Uint8Array;
  /** MCAP message encoding: "ros1", "cdr" or "json". */
  readonly messageEncoding: string;
  /** Extra channel metadata (for ROS 1 bags: md5sum, callerid, latching). */
  readonly metadata: ReadonlyMap<string, string>;
}

/**
 * One message as the readers deliver it. `data` is the serialized message exactly as stored (owned
 * by the event: the reader never reuses it), `message` the decoded object (undefined when the
 * reader was asked not to decode, or when it does not decode: then `decodeError` says why).
 */
export interface RecordedMessage {
  readonly topic: string;
  readonly schemaName: string;
  /** Receive (bag record / MCAP log) time. */
  readonly receiveTime: RecordTime;
  /** MCAP publish time (undefined for formats without one). */
  readonly publishTime?: RecordTime;
  readonly message: unknown;
  /** Serialized size in bytes. */
  readonly sizeInBytes: number;
  /** The serialized bytes. */
  readonly data: Uint8Array;
  /** The channel it belongs to (one shared object per topic). */
  readonly channel: RecordingChannel;
  /**
   * Set when decoding was asked for and the bytes do not decode (cut short, garbage, no usable
   * schema): the reason, naming the topic. The message is still delivered, so it can be counted.
   */
  readonly decodeError?: string;
}

/** Progress of a read, in bytes of the recording. */
export interface ReadProgress {
  /** Furthest byte the reader has consumed. */
  readonly bytesRead: number;
  readonly totalBytes: number;
  /** bytesRead / totalBytes, in [0, 1]. */
  readonly fraction: number;
}

/** Options of `Recording.messages`. */
export interface ReadOptions {
  /** Only these topics (default: all). Unknown topics are ignored (check `info.channels`). */
  readonly topics?: readonly string[];
  /** Called after each chunk (or block, for unindexed files) with the bytes consumed so far. */
  readonly onProgress?: (progress: ReadProgress) => void;
  /** Decode `message` (default true). False skips deserialization (only `data` is set). */
  readonly decode?: boolean;
  /** Called for each damaged region as soon as the reader skips it (see `Recording.messages`). */
  readonly onDamage?: (damage: RecordingDamage) => void;
}

/** What a recording holds, known after opening it without reading messages. */
export interface RecordingInfo {
  /** "rosbag2": a rosbag2 bag (folder or single .db3; its storage files may be MCAP). */
  readonly format: "ros1bag" | "mcap" | "rosbag2";
  /** "ros1" or "ros2" when it can tell (bag: ros1; MCAP: header profile or message encoding). */
  readonly profile: "ros1" | "ros2" | undefined;
  /** One entry per topic (the first channel of a topic when an MCAP has several). */
  readonly channels: readonly RecordingChannel[];
  /** Message count per topic, when the file's index has it (undefined for unindexed files). */
  readonly messageCounts: ReadonlyMap<string, number> | undefined;
  /** Earliest and latest receive time from the index (undefined when unknown). */
  readonly startTime: RecordTime | undefined;
  readonly endTime: RecordTime | undefined;
  /**
   * Whether messages carry the time their publisher sent them (`RecordedMessage.publishTime`):
   * true for MCAP, false for ROS 1 bags and rosbag2 SQLite databases, which store receive times
   * only; undefined when the parts of a split recording disagree.
   */
  readonly publishTimes?: boolean;
  /** Whether messages come from the index (sorted by receive time) or a sequential recovery scan. */
  readonly indexed: boolean;
  /** Why the index could not be used (when `indexed` is false). */
  readonly indexProblem: string | undefined;
  /**
   * The recording's bytes as stored, and what read progress counts to: the file, every part of a
   * bag folder, a `.db3`'s write-ahead log, a `.db3.zstd` compressed (an MCAP part compressed
   * whole counts decompressed, as its reader's progress does).
   */
  readonly sizeInBytes: number;
  /**
   * Topics whose messages cannot be decoded (no message definition anywhere, an unsupported
   * encoding), with the reason. Decoding reads skip them; raw reads (`decode: false`) deliver them.
   */
  readonly unreadableTopics?: ReadonlyMap<string, string>;
  /**
   * What a user should know about how the recording was read that is neither damage nor an index
   * problem, in words naming the file: a rosbag2 `.db3` read together with the write-ahead log its
   * recorder left beside it, or such a log that SQLite ignores.
   */
  readonly notes?: readonly string[];
}

/**
 * An opened recording. `messages()` streams messages in receive-time order (ties keep file order);
 * memory is bounded by the chunks that overlap in time (one chunk for a normal recording), never by
 * the file size. It may be called several times.
 */
export interface Recording {
  readonly info: RecordingInfo;
  /**
   * Streams the messages. A damaged chunk or record (corrupt, truncated, too large to decompress)
   * never ends the read: the reader skips it (reporting it to `onDamage`), goes on with the next
   * readable one (through the index when there is one, by scanning for the next record when
   * not), and after the last message throws one `RecordingError` whose `damages` name every
   * skipped offset. A message that does not decode is delivered with `decodeError`.
   */
  messages(options?: ReadOptions): AsyncIterableIterator<RecordedMessage>;
}
