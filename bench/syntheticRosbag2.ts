/**
 * The synthetic robot's recording (bench/syntheticRobot.ts) as a rosbag2 bag folder with sqlite3
 * storage, laid out as ROS 2 Humble's rosbag2 writes one: `metadata.yaml` (version 5) and one
 * `<name>_0.db3` with the tables `schema`, `metadata`, `topics` (with `offered_qos_profiles`) and
 * `messages` (index `timestamp_idx`), 4096-byte pages, messages CDR-serialized and not compressed
 * (rosbag2's defaults). For the `recording-db3-1gb` benchmark.
 */

import { parse as parseMessageDefinition } from "@foxglove/rosmsg";
import { MessageWriter } from "@foxglove/rosmsg2-serialization";
import { mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { stringify as toYaml } from "yaml";

import {
  ros2TypeName,
  spliceCloudData,
  syntheticDefinition,
  syntheticMessages,
  syntheticTopics,
  type SyntheticRobotOptions,
  type SyntheticType,
  type SyntheticWriteSummary,
} from "./syntheticRobot";
import { loadSqlJsNode } from "../src/recording/node";

/** Parameters of a synthetic rosbag2 bag (each second holds about 10.7 MB of .db3). */
export interface SyntheticRosbag2Options extends SyntheticRobotOptions {
  /** The bag's name, which names its storage file `<name>_0.db3` (default: the folder's name). */
  readonly name?: string;
}

/** What was written (`path` is the bag folder, `bytes` its storage file's size), and that file. */
export interface SyntheticRosbag2Summary extends SyntheticWriteSummary {
  /** The storage file. */
  readonly db3Path: string;
}

/** The bag's `rosbag2_bagfile_information` version (Humble's). */
const METADATA_VERSION = 5;
/** The layout version Humble's sqlite3 storage writes into its `schema` table. */
const SCHEMA_VERSION = 3;
/** SQLite page size rosbag2 sets. */
const PAGE_SIZE = 4096;

/** Humble's tables, as its sqlite3 storage plugin creates them. */
const TABLES = [
  "CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL);",
  "CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,metadata TEXT NOT NULL);",
  "CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL);",
  "CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL, data BLOB NOT NULL);",
  "CREATE INDEX timestamp_idx ON messages (timestamp ASC);",
].join("");

/** rosbag2's YAML of one publisher's QoS (reliable, volatile, durations left at "infinite"). */
const QOS_PROFILES = toYaml([
  {
    history: 3,
    depth: 0,
    reliability: 1,
    durability: 2,
    deadline: { sec: 2147483647, nsec: 4294967295 },
    lifespan: { sec: 2147483647, nsec: 4294967295 },
    liveliness: 1,
    liveliness_lease_duration: { sec: 2147483647, nsec: 4294967295 },
    avoid_ros_namespace_conventions: false,
  },
]);

/**
 * Writes the bag into the folder `path` (created if missing; its files are overwritten). The
 * database is built whole in sql.js's memory, in one transaction, and exported: this takes about
 * three times the .db3's size in memory for a moment. The .db3 is written to `<file>.partial`
 * and renamed, then metadata.yaml is written.
 */
export async function writeSyntheticRosbag2(path: string, options: SyntheticRosbag2Options): Promise<SyntheticRosbag2Summary> {
  const name = options.name ?? basename(path);
  const fileName = `${name}_0.db3`;
  const topics = syntheticTopics(options);
  const writers = new Map<SyntheticType, MessageWriter>();
  for (const { type } of topics) {
    if (!writers.has(type)) {
      writers.set(type, new MessageWriter(parseMessageDefinition(syntheticDefinition(type, "ros2"), { ros2: true })));
    }
  }
  const SQL = await loadSqlJsNode();
  const db = new SQL.Database();
  const counts: Record<string, number> = {};
  let messages = 0;
  let first: bigint | undefined;
  let last = 0n;
  let bytes: Uint8Array;
  let metadata: string;
  try {
    // Before the first table: the page size of an empty database can still change.
    db.exec(`PRAGMA page_size = ${PAGE_SIZE};`);
    db.exec(TABLES);
    db.exec("BEGIN;");
    db.run("insert into schema (schema_version, ros_distro) values (?, 'humble')", [SCHEMA_VERSION]);
    const insertTopic = db.prepare("insert into topics (id, name, type, serialization_format, offered_qos_profiles) values (?, ?, ?, 'cdr', ?)");
    topics.forEach((t, i) => {
      insertTopic.run([i + 1, t.topic, ros2TypeName(t.type), QOS_PROFILES]);
    });
    insertTopic.free();
    // Receive times pass as text and are cast by SQLite: they are beyond 2^53, a JS number would round them.
    const insertMessage = db.prepare("insert into messages (topic_id, timestamp, data) values (?, cast(? as integer), ?)");
    for (const m of syntheticMessages(options)) {
      let data = writers.get(m.topic.type)!.writeMessage(m.message);
      if (m.cloud != undefined) {
        data = spliceCloudData(data, m.cloud);
      }
      insertMessage.run([m.topicIndex + 1, m.logNs.toString(), data]);
      first ??= m.logNs;
      last = m.logNs;
      counts[m.topic.topic] = (counts[m.topic.topic] ?? 0) + 1;
      messages++;
    }
    insertMessage.free();
    metadata = metadataYaml({
      topics: topics.map((t) => ({ name: t.topic, type: ros2TypeName(t.type), count: counts[t.topic] ?? 0 })),
      fileName,
      startNs: first ?? 0n,
      durationNs: first == undefined ? 0n : last - first,
      messages,
    });
    db.run("insert into metadata (metadata_version, metadata) values (?, ?)", [METADATA_VERSION, metadata]);
    db.exec("COMMIT;");
    bytes = db.export();
  } finally {
    db.close();
  }
  mkdirSync(path, { recursive: true });
  const db3Path = join(path, fileName);
  writeFileSync(`${db3Path}.partial`, bytes);
  renameSync(`${db3Path}.partial`, db3Path);
  writeFileSync(join(path, "metadata.yaml"), metadata);
  return { path, db3Path, bytes: statSync(db3Path).size, messages, counts };
}

/** The text of a Humble metadata.yaml for one storage file (also stored in its `metadata` table). */
function metadataYaml(bag: {
  topics: readonly { name: string; type: string; count: number }[];
  fileName: string;
  startNs: bigint;
  durationNs: bigint;
  messages: number;
}): string {
  return toYaml({
    rosbag2_bagfile_information: {
      version: METADATA_VERSION,
      storage_identifier: "sqlite3",
      duration: { nanoseconds: bag.durationNs },
      starting_time: { nanoseconds_since_epoch: bag.startNs },
      message_count: bag.messages,
      topics_with_message_count: bag.topics.map((t) => ({
        topic_metadata: { name: t.name, type: t.type, serialization_format: "cdr", offered_qos_profiles: QOS_PROFILES },
        message_count: t.count,
      })),
      compression_format: "",
      compression_mode: "",
      relative_file_paths: [bag.fileName],
      files: [
        {
          path: bag.fileName,
          starting_time: { nanoseconds_since_epoch: bag.startNs },
          duration: { nanoseconds: bag.durationNs },
          message_count: bag.messages,
        },
      ],
    },
  });
}
