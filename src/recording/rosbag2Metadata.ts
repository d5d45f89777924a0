import { parse as parseYaml } from "yaml";

/** One topic as a rosbag2 `metadata.yaml` lists it. */
export interface Rosbag2TopicMetadata {
  readonly name: string;
  /** As stored: "sensor_msgs/msg/Imu", or "test_msgs/BasicTypes" in the oldest bags. */
  readonly type: string;
  /** rosbag2's `serialization_format`, "cdr" for every ROS 2 middleware. */
  readonly serializationFormat: string;
  readonly messageCount: number;
}

/**
 * What Lockstep uses of a rosbag2 `metadata.yaml` (versions 3 to 9 and later: Foxy to Jazzy).
 * `compressionMode` is "" (none), "file" (each storage file compressed whole) or "message"
 * (each message's data compressed); `compressionFormat` is "zstd" when used.
 */
export interface Rosbag2Metadata {
  readonly version: number;
  /** "sqlite3" or "mcap". */
  readonly storage: string;
  /** Storage files in recording order (the split `_0` … `_n`). */
  readonly files: readonly string[];
  readonly topics: readonly Rosbag2TopicMetadata[];
  readonly messageCount: number;
  readonly compressionFormat: string;
  readonly compressionMode: "" | "file" | "message";
  /** `ros_distro` (version 6 and later), e.g. "jazzy"; undefined for older bags. */
  readonly distro: string | undefined;
}

/** A metadata.yaml that cannot be used; the message names the field. */
export class Rosbag2MetadataError extends Error {
  public constructor(message: string) {
    super(`metadata.yaml: ${message}`);
    this.name = "Rosbag2MetadataError";
  }
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== "object" || value == undefined || Array.isArray(value)) {
    throw new Rosbag2MetadataError(`${path} is missing or not a map`);
  }
  return value as Record<string, unknown>;
}

/** Longest stretch of a wrong value an error shows (a field may hold a whole map). */
const SHOWN_CHARS = 80;

/**
 * A value read from the YAML as the error names it: integers as written (they are BigInts, which
 * JSON cannot show), strings quoted, maps and lists as JSON, cut at SHOWN_CHARS.
 */
function shown(value: unknown): string {
  const out =
    typeof value === "bigint"
      ? value.toString()
      : ((JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) as string | undefined) ?? String(value));
  return out.length > SHOWN_CHARS ? `${out.slice(0, SHOWN_CHARS)}…` : out;
}

function text(value: unknown, path: string, fallback?: string): string {
  if (value == undefined && fallback != undefined) {
    return fallback;
  }
  if (value == undefined) {
    throw new Rosbag2MetadataError(`${path} is missing (a string is required)`);
  }
  if (typeof value !== "string") {
    throw new Rosbag2MetadataError(`${path} must be a string, found ${shown(value)}`);
  }
  return value;
}

function count(value: unknown, path: string): number {
  if (value == undefined) {
    throw new Rosbag2MetadataError(`${path} is missing (a count is required)`);
  }
  if (typeof value === "bigint" && value >= 0n) {
    return Number(value);
  }
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) {
    return value;
  }
  throw new Rosbag2MetadataError(`${path} must be a count, found ${shown(value)}`);
}

/**
 * Parses the text of a rosbag2 `metadata.yaml` (with the `yaml` package; integers kept exact).
 * Throws Rosbag2MetadataError naming the field for anything it needs that is missing or wrong.
 */
export function parseRosbag2Metadata(yamlText: string): Rosbag2Metadata {
  let doc: unknown;
  try {
    doc = parseYaml(yamlText, { intAsBigInt: true });
  } catch (err) {
    throw new Rosbag2MetadataError(`not valid YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const info = record(record(doc, "the document").rosbag2_bagfile_information, "rosbag2_bagfile_information");
  const at = (key: string): string => `rosbag2_bagfile_information.${key}`;
  const version = count(info.version, at("version"));
  const storage = text(info.storage_identifier, at("storage_identifier"));
  const rawFiles = info.relative_file_paths;
  if (!Array.isArray(rawFiles) || rawFiles.length === 0) {
    throw new Rosbag2MetadataError(`${at("relative_file_paths")} must list the bag's files`);
  }
  const files = rawFiles.map((f, i) => text(f, `${at("relative_file_paths")}[${i}]`));
  files.forEach((f, i) => {
    // The bag's storage files are names inside its folder, each read once.
    if (f === "" || f.startsWith("/") || f.split(/[\\/]/).includes("..")) {
      throw new Rosbag2MetadataError(`${at("relative_file_paths")}[${i}] is ${JSON.stringify(f)}, not a file inside the bag folder`);
    }
    if (files.indexOf(f) !== i) {
      throw new Rosbag2MetadataError(`${at("relative_file_paths")} lists ${JSON.stringify(f)} twice`);
    }
  });
  const rawTopics = info.topics_with_message_count ?? [];
  if (!Array.isArray(rawTopics)) {
    throw new Rosbag2MetadataError(`${at("topics_with_message_count")} must be a list`);
  }
  const topics = rawTopics.map((entry, i): Rosbag2TopicMetadata => {
    const path = `${at("topics_with_message_count")}[${i}]`;
    const e = record(entry, path);
    const t = record(e.topic_metadata, `${path}.topic_metadata`);
    return {
      name: text(t.name, `${path}.topic_metadata.name`),
      type: text(t.type, `${path}.topic_metadata.type`),
      serializationFormat: text(t.serialization_format, `${path}.topic_metadata.serialization_format`, "cdr"),
      messageCount: count(e.message_count, `${path}.message_count`),
    };
  });
  const mode = text(info.compression_mode, at("compression_mode"), "").toLowerCase();
  if (mode !== "" && mode !== "file" && mode !== "message" && mode !== "none") {
    throw new Rosbag2MetadataError(`${at("compression_mode")} "${mode}" is neither FILE nor MESSAGE`);
  }
  const distro = info.ros_distro;
  return {
    version,
    storage,
    files,
    topics,
    messageCount: info.message_count == undefined ? topics.reduce((n, t) => n + t.messageCount, 0) : count(info.message_count, at("message_count")),
    compressionFormat: text(info.compression_format, at("compression_format"), "").toLowerCase(),
    compressionMode: mode === "none" ? "" : mode,
    distro: typeof distro === "string" && distro !== "" ? distro : undefined,
  };
}
