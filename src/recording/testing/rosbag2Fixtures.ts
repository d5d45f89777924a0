import { parse } from "@foxglove/rosmsg";
import { MessageWriter } from "@foxglove/rosmsg2-serialization";

import { loadSqlJsNode } from "../sqlJsNode";

/** One message of a fixture bag: topic id (1-based, as in the topics table), receive time (ns), data. */
export interface FixtureRow {
  topicId: number;
  timestamp: bigint;
  data: Uint8Array;
}

/** Test helper: CDR bytes of a std_msgs/msg/String with `data`. */
export function stringMessage(data: string): Uint8Array {
  return new MessageWriter(parse("string data", { ros2: true })).writeMessage({ data });
}

/**
 * Test helper: a rosbag2 sqlite3 file written with sql.js, in the Foxy layout (`topics` and
 * `messages` tables only) or the Jazzy layout (with `message_definitions`). Rows are inserted in
 * the given order (that order is the file order). `timestampIndex: false` leaves out the index
 * rosbag2 writes on the receive time.
 */
export async function writeDb3(
  topics: readonly { name: string; type: string }[],
  rows: readonly FixtureRow[],
  options: { definitions?: Record<string, string>; timestampIndex?: boolean } = {},
): Promise<Uint8Array> {
  const SQL = await loadSqlJsNode();
  const db = new SQL.Database();
  db.exec(
    "CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL);" +
      "CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL, data BLOB NOT NULL);" +
      (options.timestampIndex === false ? "" : "CREATE INDEX timestamp_idx ON messages (timestamp ASC);"),
  );
  topics.forEach((t, i) => {
    db.run("insert into topics values (?, ?, ?, 'cdr', '')", [i + 1, t.name, t.type]);
  });
  if (options.definitions) {
    db.exec("CREATE TABLE message_definitions(id INTEGER PRIMARY KEY,topic_type TEXT NOT NULL,encoding TEXT NOT NULL,encoded_message_definition TEXT NOT NULL,type_description_hash TEXT NOT NULL);");
    for (const [type, text] of Object.entries(options.definitions)) {
      db.run("insert into message_definitions (topic_type, encoding, encoded_message_definition, type_description_hash) values (?, 'ros2msg', ?, '')", [type, text]);
    }
  }
  for (const r of rows) {
    // The timestamp goes in as text and is cast, so it stays exact beyond 2^53.
    db.run("insert into messages (topic_id, timestamp, data) values (?, cast(? as integer), ?)", [r.topicId, r.timestamp.toString(), r.data]);
  }
  const bytes = db.export();
  db.close();
  return bytes;
}

/** Test helper: a metadata.yaml (version 5 layout) for the given files, topics and compression. */
export function metadataYaml(options: {
  files: readonly string[];
  topics: readonly { name: string; type: string; count: number }[];
  compressionMode?: "FILE" | "MESSAGE" | "";
  storage?: string;
}): string {
  const total = options.topics.reduce((n, t) => n + t.count, 0);
  const mode: string = options.compressionMode ?? "";
  return [
    "rosbag2_bagfile_information:",
    "  version: 5",
    `  storage_identifier: ${options.storage ?? "sqlite3"}`,
    "  duration:",
    "    nanoseconds: 0",
    "  starting_time:",
    "    nanoseconds_since_epoch: 0",
    `  message_count: ${total}`,
    "  topics_with_message_count:",
    ...options.topics.flatMap((t) => [
      "    - topic_metadata:",
      `        name: ${t.name}`,
      `        type: ${t.type}`,
      "        serialization_format: cdr",
      '        offered_qos_profiles: ""',
      `      message_count: ${t.count}`,
    ]),
    `  compression_format: ${mode === "" ? '""' : "zstd"}`,
    `  compression_mode: ${mode === "" ? '""' : mode}`,
    "  relative_file_paths:",
    ...options.files.map((f) => `    - ${f}`),
    "",
  ].join("\n");
}
