import type { Database, SqlValue, Statement } from "@foxglove/sql.js";

/**
 * A rosbag2 `messages` table's rows in receive-time order (timestamp, then row id, the order
 * rosbag2 replays them in), each as `[id, topic_id, timestamp as text, bytes of data, data]`,
 * where data is null when the row holds more than `limit` bytes (its length comes from the row's
 * header, so SQLite does not read such a row's data).
 *
 * With the `timestamp_idx` index every rosbag2 version writes, SQLite walks the index and holds
 * nothing. Without it, sorting the rows would hold every selected row, data included, in
 * SQLite's memory, which a large file runs out of: the order is then sorted from the row ids and
 * timestamps alone (a few dozen bytes a row) and each row is fetched by its id.
 *
 * Statements throw SQLite's errors (a malformed page) from `next`; `free` releases them.
 */
export class MessageRows {
  readonly #order: Statement;
  readonly #byId: Statement | undefined;

  private constructor(order: Statement, byId: Statement | undefined) {
    this.#order = order;
    this.#byId = byId;
  }

  /**
   * The rows of the table in `db` that `where` selects (an SQL condition on its columns, or ""
   * for all). Throws SQLite's error when the table cannot be queried, RangeError when `limit` is
 * not a byte count.
   */
  public static open(db: Database, where: string, limit: number): MessageRows {
    // The limit is written into the SQL text: only a byte count may go there.
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new RangeError(`the row limit must be a whole number of bytes, not ${limit}`);
    }
    const columns = `id, topic_id, cast(timestamp as text), length(data), case when length(data) <= ${limit} then data end`;
    const filter = where === "" ? "" : ` where ${where}`;
    const ordered = `from messages${filter} order by timestamp, id`;
    if (!sortsInMemory(db, `select id ${ordered}`)) {
      return new MessageRows(db.prepare(`select ${columns} ${ordered}`), undefined);
    }
    const order = db.prepare(`select id ${ordered}`);
    try {
      return new MessageRows(order, db.prepare(`select ${columns} from messages where id = ?`));
    } catch (err) {
      order.free();
      throw err;
    }
  }

  /** The next row, or undefined after the last. */
  public next(): SqlValue[] | undefined {
    if (!this.#order.step()) {
      return undefined;
    }
    const byId = this.#byId;
    if (byId == undefined) {
      return this.#order.get();
    }
    const id = this.#order.get()[0]!;
    byId.bind([id]);
    try {
      return byId.step() ? byId.get() : undefined;
    } finally {
      byId.reset();
    }
  }

  /** Releases the statements. */
  public free(): void {
    this.#order.free();
    this.#byId?.free();
  }
}

/** Whether SQLite would sort the rows of `query` itself (no index gives its order). */
function sortsInMemory(db: Database, query: string): boolean {
  const plan = db.exec(`explain query plan ${query}`)[0]?.values ?? [];
  return plan.some((step) => step.some((value) => typeof value === "string" && value.includes("TEMP B-TREE")));
}
