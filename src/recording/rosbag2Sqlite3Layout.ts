import type { Database, SqlValue } from "@foxglove/sql.js";

import { RecordingError, errorText } from "./RecordingError";
import { previewValue } from "../time";

/**
 * The tables of a rosbag2 sqlite3 file and the columns Lockstep reads of each (every layout from
 * Foxy to Jazzy has at least these). `topics` and `messages` are in every bag; the others are
 * newer and optional.
 */
const TABLES = {
  topics: ["id", "name", "type", "serialization_format"],
  messages: ["id", "topic_id", "timestamp", "data"],
  schema: ["schema_version", "ros_distro"],
  metadata: ["id", "metadata"],
  message_definitions: ["topic_type", "encoding", "encoded_message_definition"],
} as const;

/** A table of the rosbag2 sqlite3 layout. */
export type Rosbag2Table = keyof typeof TABLES;

const REQUIRED: readonly Rosbag2Table[] = ["topics", "messages"];

/** The RecordingError for an SQLite error (a malformed page, most often) reading `table` of the file `name`. */
export function unreadableTable(name: string, table: Rosbag2Table | "sqlite_master", err: unknown): RecordingError {
  return new RecordingError(undefined, `${name}: SQLite cannot read its ${table} table: ${errorText(err)} (the file is damaged)`, { cause: err });
}

/**
 * The rows of a query on an opened database. An SQLite error is thrown as a RecordingError
 * naming the file `name` and the table the query reads (see `unreadableTable`).
 */
export function queryRows(db: Database, sql: string, name: string, table: Rosbag2Table | "sqlite_master"): SqlValue[][] {
  try {
    return db.exec(sql)[0]?.values ?? [];
  } catch (err) {
    throw unreadableTable(name, table, err);
  }
}

/**
 * Checks once, at open, that the database `name` has the rosbag2 tables with the columns Lockstep
 * reads, so that no read fails later on a missing column. Returns the rosbag2 tables it has (the
 * optional ones may be absent). Throws RecordingError naming the file, the table and the column.
 */
export function checkRosbag2Layout(db: Database, name: string): ReadonlySet<Rosbag2Table> {
  const present = new Set(queryRows(db, "select name from sqlite_master where type = 'table'", name, "sqlite_master").map((r) => String(r[0])));
  const found = new Set<Rosbag2Table>();
  for (const [table, columns] of Object.entries(TABLES) as [Rosbag2Table, readonly string[]][]) {
    if (!present.has(table)) {
      if (REQUIRED.includes(table)) {
        throw new RecordingError(undefined, `${name} is an SQLite database but not a rosbag2 bag: it has no "${table}" table`);
      }
      continue;
    }
    const has = new Set(queryRows(db, `select name from pragma_table_info('${table}')`, name, table).map((r) => String(r[0])));
    const missing = columns.find((c) => !has.has(c));
    if (missing != undefined) {
      throw new RecordingError(
        undefined,
        `${name}: its ${table} table has no column ${missing}: not the rosbag2 sqlite3 layout (${table}: ${columns.join(", ")})`,
      );
    }
    found.add(table);
  }
  return found;
}

/** One row of a rosbag2 `topics` table as read: `name` as SQLite gives it (text in any bag rosbag2 wrote). */
export interface TopicTableRow {
  readonly id: number;
  readonly name: SqlValue;
  readonly type: string;
  readonly format: string;
}

/**
 * The rows of a `topics` table that are one topic: one name, one type and serialization format
 * (`rows[0]` gives them). Several rows only in a damaged or hand-made file: rosbag2 writes one row
 * per topic.
 */
export interface TopicRowGroup {
  readonly topic: string;
  readonly rows: readonly TopicTableRow[];
}

/**
 * Topic rows whose message rows no read delivers: `why` is the start of the damage line that
 * counts those message rows; `topic` is their shared name (undefined when they have none).
 */
export interface RejectedTopicRows {
  readonly topic: string | undefined;
  readonly ids: readonly number[];
  readonly why: string;
}

/** Topic rows a damage line lists by id and type; the rest are counted. */
const LISTED_ROWS = 4;
/** Longest stretch of a name or type a damage line quotes (a damaged table may hold anything). */
const SHOWN_CHARS = 80;

function shown(text: string): string {
  return previewValue(text, SHOWN_CHARS);
}

/** "row 1: rcl_interfaces/msg/Log; row 3: std_msgs/msg/String", the format too where only that differs. */
function listed(rows: readonly TopicTableRow[]): string {
  const withFormat = new Set(rows.map((r) => r.type)).size === 1 && rows.length > 1;
  const text = rows
    .slice(0, LISTED_ROWS)
    .map((r) => `row ${r.id}: ${r.type.slice(0, SHOWN_CHARS)}${withFormat ? ` (serialization ${shown(r.format)})` : ""}`)
    .join("; ");
  return rows.length > LISTED_ROWS ? `${text}; and ${rows.length - LISTED_ROWS} more` : text;
}

/**
 * Sorts the rows of the `topics` table of the file `name` into topics, in the order of their
 * first row. A name on rows of different types (or serialization formats), and rows without a
 * name, are rejected: their message rows are skipped and named as damage by every read.
 */
export function groupTopicRows(rows: readonly TopicTableRow[], name: string): { groups: TopicRowGroup[]; rejected: RejectedTopicRows[] } {
  const byName = new Map<string, TopicTableRow[]>();
  const nameless: TopicTableRow[] = [];
  for (const row of rows) {
    if (typeof row.name !== "string" || row.name === "") {
      nameless.push(row);
      continue;
    }
    const same = byName.get(row.name);
    if (same) {
      same.push(row);
    } else {
      byName.set(row.name, [row]);
    }
  }
  const groups: TopicRowGroup[] = [];
  const rejected: RejectedTopicRows[] = [];
  for (const [topic, same] of byName) {
    if (new Set(same.map((r) => `${r.type}\0${r.format}`)).size === 1) {
      groups.push({ topic, rows: same });
      continue;
    }
    // Skipped rather than each row decoded by its own type: a recording has one type per topic
    // (its channel, its count, what `topics` selects, what `info` shows), so whichever type the
    // topic were given, the other rows' messages would be shown and analyzed under it. Named as
    // damage, not refused at open, so that every other topic of the file is still read.
    rejected.push({
      topic,
      ids: same.map((r) => r.id),
      why: `${name}: the topic ${shown(topic)} is on rows of its topics table with different types (${listed(same)}); its message rows are skipped, as a topic has one type and each of these may be the wrong one`,
    });
  }
  if (nameless.length > 0) {
    // An empty name is no ROS topic, and a read could not select the rows by it.
    rejected.push({
      topic: undefined,
      ids: nameless.map((r) => r.id),
      why: `${name}: ${nameless.length === 1 ? "a row of its topics table has" : "rows of its topics table have"} an empty topic name (${listed(nameless)}); the message rows on ${nameless.length === 1 ? "it" : "them"} are skipped, as they belong to no topic`,
    });
  }
  return { groups, rejected };
}
