import type { Database, SqlValue } from "@foxglove/sql.js";

import { RecordingError, errorText } from "./RecordingError";

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
