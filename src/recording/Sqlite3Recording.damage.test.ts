import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ArrayByteSource } from "./ByteSource";
import { RecordingError, type RecordingDamage } from "./RecordingError";
import { openRecording } from "./openRecording";
import { openRecordingFile } from "./openRecordingFile";
import { loadSqlJsNode } from "./sqlJsNode";
import { HAS_SHARED_DATA, sharedRecording } from "./testing/paths";
import { stringMessage, writeDb3, type FixtureRow } from "./testing/rosbag2Fixtures";
import type { ReadOptions, RecordedMessage, Recording } from "./types";

/** Everything one read delivers, the damage it reports as it goes, and the error that ends it. */
async function read(recording: Recording, options: ReadOptions = {}): Promise<{ messages: RecordedMessage[]; damages: RecordingDamage[]; error: unknown }> {
  const messages: RecordedMessage[] = [];
  const damages: RecordingDamage[] = [];
  let error: unknown;
  try {
    for await (const m of recording.messages({ ...options, onDamage: (d) => damages.push(d) })) {
      messages.push(m);
    }
  } catch (err) {
    error = err;
  }
  return { messages, damages, error };
}

/** A damage with no byte offset (SQLite rows) that lost `lost` per topic, or nothing the read asked for. */
function rowDamage(reason: string, lost?: Record<string, number>): RecordingDamage {
  return { offset: undefined, reason, lost: lost == undefined ? undefined : new Map(Object.entries(lost)) };
}

/** Rewrites the .db3 at `path` with SQLite statements (sql.js, the engine Lockstep reads with). */
async function mutate(path: string, sql: string): Promise<void> {
  const SQL = await loadSqlJsNode();
  const db = new SQL.Database(new Uint8Array(await readFile(path)));
  try {
    db.exec(sql);
    await writeFile(path, db.export());
  } finally {
    db.close();
  }
}

/** "topic receive-time-ns" of each message, in delivery order. */
function placed(messages: readonly RecordedMessage[]): string[] {
  return messages.map((m) => `${m.topic} ${BigInt(m.receiveTime.sec) * 1_000_000_000n + BigInt(m.receiveTime.nsec)}`);
}

const TALKER = sharedRecording("rosbag2-upstream/sqlite3-talker");
const HUSKY = sharedRecording("ros2/husky-2015-sqlite3");

/** The tail every metadata.yaml count note ends with. */
const NOTE_TAIL =
  ": reads deliver what the files hold and name what they skip; a recorder that did not close the bag leaves metadata.yaml as it last wrote it, otherwise the bag was changed or damaged after it was written";

describe.skipIf(!HAS_SHARED_DATA)("rosbag2 .db3 topics tables that do not match their messages (copies of ../shared/data bags)", () => {
  let dir: string;
  let serial = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lockstep-sqlite3-damage-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A copy of the bag folder `from`, its .db3 (`file`) changed by `sql`. */
  async function copyOf(from: string, file: string, sql: string): Promise<string> {
    const folder = join(dir, `bag${serial++}`);
    await cp(from, folder, { recursive: true });
    if (sql !== "") {
      await mutate(join(folder, file), sql);
    }
    return folder;
  }

  /** The talker's rows as SQLite orders them, read without Lockstep: the oracle of a clean read. */
  async function talkerRows(topics?: readonly string[]): Promise<string[]> {
    const SQL = await loadSqlJsNode();
    const db = new SQL.Database(new Uint8Array(await readFile(join(TALKER, "talker.db3"))));
    try {
      const rows = db.exec("select t.name, cast(m.timestamp as text) from messages m join topics t on t.id = m.topic_id order by m.timestamp, m.id")[0]!.values;
      return rows.filter(([topic]) => topics?.includes(String(topic)) ?? true).map(([topic, ns]) => `${String(topic)} ${String(ns)}`);
    } finally {
      db.close();
    }
  }

  it("a clean bag reports nothing new and delivers every row, as its own tables order them", async () => {
    const folder = await copyOf(TALKER, "talker.db3", "");
    const recording = await openRecordingFile(folder);
    try {
      expect(recording.info.indexed).toBe(true);
      expect(recording.info.indexProblem).toBeUndefined();
      expect(recording.info.notes).toEqual([]);
      expect(recording.info.channels.map((c) => `${c.topic} ${c.schemaName}`)).toEqual([
        "/rosout rcl_interfaces/msg/Log",
        "/parameter_events rcl_interfaces/msg/ParameterEvent",
        "/topic std_msgs/msg/String",
      ]);
      expect(Object.fromEntries(recording.info.messageCounts!)).toEqual({ "/rosout": 10, "/parameter_events": 0, "/topic": 10 });
      const all = await read(recording);
      expect(all.error).toBeUndefined();
      expect(all.damages).toEqual([]);
      expect(placed(all.messages)).toEqual(await talkerRows());
      expect(all.messages.every((m) => m.decodeError == undefined && typeof m.message === "object")).toBe(true);
      const some = await read(recording, { topics: ["/topic"] });
      expect(some.error).toBeUndefined();
      expect(some.damages).toEqual([]);
      expect(placed(some.messages)).toEqual(await talkerRows(["/topic"]));
    } finally {
      await recording.close();
    }
  });

  it("an emptied topics table (st_23): its 20 rows are named as damage by every read, the index as unusable, metadata.yaml's counts as not met", async () => {
    const folder = await copyOf(TALKER, "talker.db3", "DELETE FROM topics");
    const recording = await openRecordingFile(folder);
    try {
      const db3 = join(folder, "talker.db3");
      expect(recording.info.channels).toEqual([]);
      expect(recording.info.indexed).toBe(false);
      expect(recording.info.indexProblem).toBe(
        `${db3}: 20 message rows name a topic_id its topics table does not have, so its list of topics is incomplete; a read skips those rows and names them`,
      );
      expect(recording.info.notes).toEqual([
        `${folder}/metadata.yaml counts 20 messages where the storage files hold 0 on the topics their topics tables list ("/topic": 10 in metadata.yaml, 0 in the files; "/rosout": 10 in metadata.yaml, 0 in the files)${NOTE_TAIL}`,
      ]);
      const orphans = rowDamage(`${db3}: message rows name a topic_id its topics table does not have: 20 skipped (the first: row 1, topic_id 1)`);
      for (const options of [{}, { topics: ["/topic"] }, { decode: false }]) {
        const { messages, damages, error } = await read(recording, options);
        expect(messages).toEqual([]);
        expect(damages).toEqual([orphans]);
        expect(error).toBeInstanceOf(RecordingError);
        expect((error as RecordingError).readPast).toBe(true);
        expect((error as RecordingError).damages).toEqual([orphans]);
      }
    } finally {
      await recording.close();
    }
  });

  it("one row on a topic_id the topics table lacks is named by a read of other topics too, and the rest is delivered", async () => {
    const folder = await copyOf(TALKER, "talker.db3", "UPDATE messages SET topic_id = 999 WHERE id = 5");
    const recording = await openRecordingFile(folder);
    try {
      const db3 = join(folder, "talker.db3");
      expect(recording.info.indexProblem).toBe(
        `${db3}: 1 message rows name a topic_id its topics table does not have, so its list of topics is incomplete; a read skips those rows and names them`,
      );
      expect(recording.info.notes).toEqual([
        `${folder}/metadata.yaml counts 20 messages where the storage files hold 19 on the topics their topics tables list ("/rosout": 10 in metadata.yaml, 9 in the files)${NOTE_TAIL}`,
      ]);
      const orphan = rowDamage(`${db3}: message rows name a topic_id its topics table does not have: 1 skipped (the first: row 5, topic_id 999)`);
      const all = await read(recording);
      expect(all.damages).toEqual([orphan]);
      expect(placed(all.messages)).toEqual((await talkerRows()).filter((r) => r !== "/rosout 1585866236112742168"));
      // Before, a read of other topics left the row out of its SQL and never saw it.
      const some = await read(recording, { topics: ["/topic"] });
      expect(some.damages).toEqual([orphan]);
      expect(placed(some.messages)).toEqual(await talkerRows(["/topic"]));
    } finally {
      await recording.close();
    }
  });

  it("two topic rows with one name and different types (dup): none of their rows is delivered under the other's type; they are counted on the name", async () => {
    const folder = await copyOf(TALKER, "talker.db3", "UPDATE topics SET name = '/rosout' WHERE id = 3");
    const recording = await openRecordingFile(folder);
    try {
      const db3 = join(folder, "talker.db3");
      expect(recording.info.channels.map((c) => c.topic)).toEqual(["/parameter_events"]);
      expect(recording.info.indexProblem).toBe(
        `${db3}: 20 message rows are on topic rows without a name or with a name that rows of another type have, so its list of topics is incomplete; a read skips those rows and names them`,
      );
      const why = `${db3}: the topic "/rosout" is on rows of its topics table with different types (row 1: rcl_interfaces/msg/Log; row 3: std_msgs/msg/String); its message rows are skipped, as a topic has one type and each of these may be the wrong one: 20 skipped (the first: row 1, topic_id 1)`;
      const all = await read(recording);
      expect(all.messages).toEqual([]);
      expect(all.damages).toEqual([rowDamage(why, { "/rosout": 20 })]);
      const asked = await read(recording, { topics: ["/rosout"] });
      expect(asked.messages).toEqual([]);
      expect(asked.damages).toEqual([rowDamage(why, { "/rosout": 20 })]);
      // A read that did not ask for the topic is told of the rows, but loses none of its own.
      const other = await read(recording, { topics: ["/parameter_events"] });
      expect(other.damages).toEqual([rowDamage(why)]);
    } finally {
      await recording.close();
    }
  });

  it("every topic name empty (st_22) is named, not one nameless topic; one empty name leaves the other topics whole", async () => {
    const all = await copyOf(TALKER, "talker.db3", "UPDATE topics SET name = ''");
    const recording = await openRecordingFile(all);
    try {
      expect(recording.info.channels).toEqual([]);
      const { messages, damages } = await read(recording);
      expect(messages).toEqual([]);
      expect(damages).toEqual([
        rowDamage(
          `${join(all, "talker.db3")}: rows of its topics table have an empty topic name (row 1: rcl_interfaces/msg/Log; row 2: rcl_interfaces/msg/ParameterEvent; row 3: std_msgs/msg/String); the message rows on them are skipped, as they belong to no topic: 20 skipped (the first: row 1, topic_id 1)`,
        ),
      ]);
    } finally {
      await recording.close();
    }
    const one = await copyOf(TALKER, "talker.db3", "UPDATE topics SET name = '' WHERE id = 3");
    const partly = await openRecordingFile(one);
    try {
      expect(partly.info.channels.map((c) => c.topic)).toEqual(["/rosout", "/parameter_events"]);
      const { messages, damages } = await read(partly);
      expect(placed(messages)).toEqual(await talkerRows(["/rosout"]));
      expect(damages).toEqual([
        rowDamage(
          `${join(one, "talker.db3")}: a row of its topics table has an empty topic name (row 3: std_msgs/msg/String); the message rows on it are skipped, as they belong to no topic: 10 skipped (the first: row 2, topic_id 3)`,
        ),
      ]);
    } finally {
      await partly.close();
    }
  });

  it("two topic rows with one name and one type stay one topic: one channel, every message, nothing reported", async () => {
    const folder = await copyOf(
      TALKER,
      "talker.db3",
      "INSERT INTO topics (id, name, type, serialization_format, offered_qos_profiles, type_description_hash) VALUES (4, '/topic', 'std_msgs/msg/String', 'cdr', '', ''); UPDATE messages SET topic_id = 4 WHERE id IN (2, 4)",
    );
    const recording = await openRecordingFile(folder);
    try {
      expect(recording.info.channels.map((c) => c.topic)).toEqual(["/rosout", "/parameter_events", "/topic"]);
      expect(recording.info.messageCounts?.get("/topic")).toBe(10);
      expect(recording.info.notes).toEqual([]);
      const { messages, damages, error } = await read(recording, { topics: ["/topic"] });
      expect(error).toBeUndefined();
      expect(damages).toEqual([]);
      expect(placed(messages)).toEqual(await talkerRows(["/topic"]));
      expect(new Set(messages.map((m) => m.channel)).size).toBe(1);
    } finally {
      await recording.close();
    }
  });

  it("rows gone from the messages table, with nothing else wrong: metadata.yaml's counts are noted, for the folder and for its .db3 alone", async () => {
    const folder = await copyOf(TALKER, "talker.db3", "DELETE FROM messages WHERE id IN (2, 4, 6)");
    const recording = await openRecordingFile(folder);
    const counts = `counts 20 messages where the storage files hold 17 on the topics their topics tables list ("/topic": 10 in metadata.yaml, 7 in the files)${NOTE_TAIL}`;
    try {
      expect(recording.info.indexed).toBe(true);
      expect(recording.info.notes).toEqual([`${folder}/metadata.yaml ${counts}`]);
      const { messages, damages } = await read(recording);
      expect(messages).toHaveLength(17);
      expect(damages).toEqual([]);
    } finally {
      await recording.close();
    }
    const db3 = join(folder, "talker.db3");
    const alone = await openRecordingFile(db3);
    try {
      expect(alone.info.notes).toEqual([`the metadata.yaml beside ${db3} ${counts}`]);
    } finally {
      await alone.close();
    }
  });

  it("husky-2015 with an emptied topics table: a read of the analyzed topics names its 16,806 rows", async () => {
    const folder = await copyOf(HUSKY, "husky-2015-sqlite3_0.db3", "DELETE FROM topics");
    const recording = await openRecordingFile(folder);
    try {
      const db3 = join(folder, "husky-2015-sqlite3_0.db3");
      // Unindexed, so that a config naming /imu/data is read rather than refused as "not in" the file.
      expect(recording.info.indexed).toBe(false);
      expect(recording.info.notes).toEqual([
        `${folder}/metadata.yaml counts 16806 messages where the storage files hold 0 on the topics their topics tables list ("/imu/data": 11865 in metadata.yaml, 0 in the files; "/husky_velocity_controller/odom": 3952 in metadata.yaml, 0 in the files; "/fix": 989 in metadata.yaml, 0 in the files)${NOTE_TAIL}`,
      ]);
      const { messages, damages } = await read(recording, { topics: ["/imu/data", "/husky_velocity_controller/odom", "/fix"] });
      expect(messages).toEqual([]);
      expect(damages).toEqual([rowDamage(`${db3}: message rows name a topic_id its topics table does not have: 16806 skipped (the first: row 1, topic_id 1)`)]);
    } finally {
      await recording.close();
    }
  });
});

describe("rosbag2 .db3 topic rows that cannot be told apart (files written here)", () => {
  const row = (topicId: number, t: bigint, label: string): FixtureRow => ({ topicId, timestamp: t, data: stringMessage(label) });

  it("one name in two serialization formats is as ambiguous as two types; the other topics are read", async () => {
    const SQL = await loadSqlJsNode();
    const topics = [
      { name: "/a", type: "std_msgs/msg/String" },
      { name: "/a", type: "std_msgs/msg/String" },
      { name: "/b", type: "std_msgs/msg/String" },
    ];
    const db = new SQL.Database(await writeDb3(topics, [row(1, 1n, "a1"), row(2, 2n, "a2"), row(3, 3n, "b3"), row(1, 4n, "a4")]));
    db.exec("UPDATE topics SET serialization_format = 'json' WHERE id = 2");
    const bytes = db.export();
    db.close();
    const recording = await openRecording(new ArrayByteSource(bytes), { sqlJs: loadSqlJsNode });
    expect(recording.info.channels.map((c) => c.topic)).toEqual(["/b"]);
    const { messages, damages } = await read(recording);
    expect(messages.map((m) => (m.message as { data: string }).data)).toEqual(["b3"]);
    expect(damages).toEqual([
      rowDamage(
        'the .db3 file: the topic "/a" is on rows of its topics table with different types (row 1: std_msgs/msg/String (serialization "cdr"); row 2: std_msgs/msg/String (serialization "json")); its message rows are skipped, as a topic has one type and each of these may be the wrong one: 3 skipped (the first: row 1, topic_id 1)',
        { "/a": 3 },
      ),
    ]);
  });

  it("a thousand different topic_ids no topic row has are one damage line with their count", async () => {
    const rows = Array.from({ length: 1000 }, (_, k) => row(100 + k, BigInt(k + 1), `m${k}`));
    const bytes = await writeDb3([{ name: "/a", type: "std_msgs/msg/String" }], [row(1, 0n, "kept"), ...rows]);
    const recording = await openRecording(new ArrayByteSource(bytes), { sqlJs: loadSqlJsNode });
    expect(recording.info.indexProblem).toBe(
      "the .db3 file: 1000 message rows name a topic_id its topics table does not have, so its list of topics is incomplete; a read skips those rows and names them",
    );
    expect(recording.info.messageCounts?.get("/a")).toBe(1);
    const { messages, damages } = await read(recording, { topics: ["/a"] });
    expect(messages.map((m) => (m.message as { data: string }).data)).toEqual(["kept"]);
    expect(damages).toEqual([rowDamage("the .db3 file: message rows name a topic_id its topics table does not have: 1000 skipped (the first: row 2, topic_id 100)")]);
  });
});
