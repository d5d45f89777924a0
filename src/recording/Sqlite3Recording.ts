import type { SqlValue } from "@foxglove/sql.js";

import type { ByteSource } from "./ByteSource";
import { DamageLog } from "./DamageLog";
import { RecordingError, errorText } from "./RecordingError";
import { SkippedMessages } from "./SkippedMessages";
import { DEFAULT_MAX_CHUNK_BYTES, type Decompressors } from "./decompress";
import { MessageRows } from "./messageRows";
import { reportProgress, toRecordedMessage, type ChannelEntry } from "./recordedMessage";
import { standardRos2Definition } from "./ros2Definitions";
import { parseRosbag2Metadata } from "./rosbag2Metadata";
import {
  checkRosbag2Layout,
  groupTopicRows,
  queryRows,
  unreadableTable,
  type RejectedTopicRows,
  type Rosbag2Table,
  type TopicTableRow,
} from "./rosbag2Sqlite3Layout";
import type { SqlJsLoader } from "./sqlJs";
import { openSqliteDatabase, type SqliteDatabaseFile } from "./sqliteDatabaseFile";
import { sqliteCutShort, type SqliteCut } from "./sqliteFileSize";
import type { SqliteWriteAheadLog, UnreadTail } from "./sqliteWriteAheadLog";
import type { ReadOptions, RecordTime, RecordedMessage, Recording, RecordingChannel, RecordingInfo } from "./types";
import { decompressZstd } from "./zstdFrame";

/** The first 16 bytes of every SQLite 3 database file. */
export const SQLITE_MAGIC = new TextEncoder().encode("SQLite format 3\0");
/** Rows between progress reports. */
const PROGRESS_ROWS = 4096;
const encoder = new TextEncoder();

/** Options of `Sqlite3Recording.open`. */
export interface Sqlite3Options {
  /** The SQLite engine. */
  readonly sqlJs: SqlJsLoader;
  readonly decompressors: Decompressors;
  /**
   * Per-message compression as the bag's metadata.yaml declares it ("zstd"), "" for none.
   * Default: what the file's own `metadata` table says (Iron and later), else none.
   */
  readonly messageCompression?: string;
  /** ROS distro whose standard definitions to use first (default: the file's `schema` table, else the newest). */
  readonly distro?: string;
  /** Names this file in messages (default "the .db3 file"). */
  readonly name?: string;
  /**
   * The most bytes of one message row's data read into memory (`OpenOptions.maxChunkBytes`,
   * default `DEFAULT_MAX_CHUNK_BYTES`): a larger row is skipped and named without being read.
   */
  readonly maxChunkBytes?: number;
  /**
   * The write-ahead log read beside the file (`databaseWithLog`; the source given to `open` is
   * then the database with the log applied): named in `info.notes`, and what it holds after its
   * last commit is reported as damage by every read.
   */
  readonly writeAheadLog?: SqliteWriteAheadLog;
  /**
   * The bytes the database was read from, as they are stored (`info.sizeInBytes`, and what read
   * progress counts to): the file plus its write-ahead log, or a compressed file's size. Default:
   * the size of the source given to `open`.
   */
  readonly storedBytes?: number;
}

interface TopicRow {
  readonly id: number;
  readonly entry: ChannelEntry;
}

/** The topic rows of a file as reads use them. */
interface TopicRows {
  /** The rows of the recording's topics (several rows of one topic share their entry). */
  readonly topics: readonly TopicRow[];
  /** Rows whose message rows are skipped and named (see `groupTopicRows`). */
  readonly rejected: readonly RejectedTopicRows[];
  /**
   * Whether message rows may exist that no topic delivers (on a rejected topic row, or on a
   * topic_id the topics table lacks), or SQLite could not count them: every read then looks
   * at the rows of every topic_id but those of the topics it was not asked for.
   */
  readonly unplaced: boolean;
}

/** "1432235498025043042" → {sec, nsec}, exactly (no float on the way). */
export function timeOfNsText(ns: string): RecordTime {
  if (ns.length <= 9) {
    return { sec: 0, nsec: Number(ns) };
  }
  return { sec: Number(ns.slice(0, -9)), nsec: Number(ns.slice(-9)) };
}

function nsText(t: RecordTime): bigint {
  return BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);
}

/** Per-topic-row counts and the time range of a messages table, or why SQLite cannot tell them. */
interface MessagesSummary {
  /** Message rows per topic row id (every row of the topics table, none left out). */
  readonly counts: ReadonlyMap<number, number> | undefined;
  /** Message rows whose topic_id no row of the topics table has. */
  readonly orphans: number | undefined;
  readonly start: RecordTime | undefined;
  readonly end: RecordTime | undefined;
  /** Why counts and time range are unknown (a malformed page); undefined when they are known. */
  readonly problem: string | undefined;
}

function messagesSummary(file: SqliteDatabaseFile, topicIds: readonly number[]): MessagesSummary {
  const db = file.db;
  try {
    const counts = new Map<number, number>(topicIds.map((id) => [id, 0]));
    let orphans = 0;
    // Every topic_id the topics table lacks is one group (null), so the answer has at most a row
    // per topic row plus one, however many different topic_ids a damaged table holds.
    const query = "select case when topic_id in (select id from topics) then topic_id end, count(*) from messages group by 1";
    for (const [id, n] of db.exec(query)[0]?.values ?? []) {
      if (id == null || !counts.has(Number(id))) {
        orphans += Number(n);
      } else {
        counts.set(Number(id), counts.get(Number(id))! + Number(n));
      }
    }
    const [min, max] = db.exec("select cast(min(timestamp) as text), cast(max(timestamp) as text) from messages")[0]?.values[0] ?? [];
    return {
      counts,
      orphans,
      start: typeof min === "string" ? timeOfNsText(min) : undefined,
      end: typeof max === "string" ? timeOfNsText(max) : undefined,
      problem: undefined,
    };
  } catch (err) {
    // A malformed page: the rows before it may still be read, so the file opens and a read
    // names where it stops.
    return {
      counts: undefined,
      orphans: undefined,
      start: undefined,
      end: undefined,
      problem: `SQLite cannot count its messages table (${failureText(err, file)}), so message counts and time range are unknown; messages are read up to the damage`,
    };
  }
}

/**
 * One rosbag2 sqlite3 storage file (`.db3`), any layout rosbag2 has written from Foxy to Jazzy:
 * with or without the `schema`, `metadata` and `message_definitions` tables, type names with or
 * without `/msg/`. Messages come in receive-time order, ties in the order they were written (row
 * id). A topic's definition comes from the file's `message_definitions` (ros2msg or ros2idl), else
 * from the standard ROS 2 definitions; a topic with neither is listed in `info.unreadableTopics`
 * and skipped by decoding reads. Per-message zstd compression is undone before decoding.
 *
 * Message rows no topic can deliver (on a topic_id the topics table lacks, on topic rows without
 * a name, or on rows that give one name different types) are skipped and named as damage by
 * every read, whatever topics it asks for; a file with such rows opens unindexed, naming them.
 *
 * SQLite reads the file page by page from a source that can read synchronously (a file in Node,
 * a Blob in a Web Worker; see `openSqliteDatabase`), so memory is its page cache, whatever the
 * file's size; from any other source (a Blob on a browser's main thread) it needs the whole file
 * in memory while it reads. No message row larger than `maxChunkBytes` is read.
 */
export class Sqlite3Recording implements Recording {
  public readonly info: RecordingInfo;
  readonly #source: ByteSource;
  readonly #options: Sqlite3Options;
  readonly #topics: TopicRows;
  readonly #compression: string;
  /** Where the file was cut short, if it was (read once, at open). */
  readonly #cut: SqliteCut | undefined;

  private constructor(source: ByteSource, options: Sqlite3Options, info: RecordingInfo, topics: TopicRows, compression: string, cut: SqliteCut | undefined) {
    this.#source = source;
    this.#options = options;
    this.info = info;
    this.#topics = topics;
    this.#compression = compression;
    this.#cut = cut;
  }

  /**
   * Opens a `.db3` file: reads its topics, definitions, counts and time range, then releases the
   * database until `messages()` is called. Throws RecordingError when it is not a rosbag2 sqlite3
   * file (a table or column of the layout missing, named), its messages are compressed with
   * something other than zstd, or SQLite cannot read its topics. A
   * messages table SQLite cannot count, or with rows no topic it lists holds, opens unindexed
   * (`indexProblem` says why).
   */
  public static async open(source: ByteSource, options: Sqlite3Options): Promise<Sqlite3Recording> {
    const name = options.name ?? "the .db3 file";
    const cut = await sqliteCutShort(source);
    const file = await openDatabase(source, options, cut);
    const db = file.db;
    try {
      const tables = checkRosbag2Layout(db, name);
      const rows = (sql: string, table: Rosbag2Table): SqlValue[][] => queryRows(db, sql, name, table);
      let distro = options.distro;
      if (distro == undefined && tables.has("schema")) {
        const value = rows("select ros_distro from schema order by schema_version desc limit 1", "schema")[0]?.[0];
        distro = typeof value === "string" && value !== "" ? value : undefined;
      }
      let compression = options.messageCompression;
      if (compression == undefined && tables.has("metadata")) {
        const text = rows("select metadata from metadata order by id desc limit 1", "metadata")[0]?.[0];
        if (typeof text === "string") {
          try {
            const metadata = parseRosbag2Metadata(text);
            compression = metadata.compressionMode === "message" ? metadata.compressionFormat : "";
          } catch {
            // The embedded copy is informative only; the bag's own metadata.yaml decides when given.
          }
        }
      }
      if (compression != undefined && compression !== "" && compression !== "zstd") {
        throw new RecordingError(undefined, `${name}: messages are compressed with "${compression}"; Lockstep reads zstd`);
      }
      const definitions = new Map<string, { encoding: string; text: string }>();
      if (tables.has("message_definitions")) {
        for (const [type, encoding, text] of rows("select topic_type, encoding, encoded_message_definition from message_definitions", "message_definitions")) {
          if (typeof type === "string" && typeof encoding === "string" && typeof text === "string" && text !== "" && encoding !== "unknown") {
            definitions.set(type, { encoding, text });
          }
        }
      }
      const tableRows: TopicTableRow[] = rows("select id, name, type, serialization_format from topics order by id", "topics").map(([id, topic, type, format]) => ({
        id: Number(id),
        name: topic ?? null,
        type: String(type),
        format: String(format),
      }));
      const { groups, rejected } = groupTopicRows(tableRows, name);
      const topics: TopicRow[] = [];
      const channels: RecordingChannel[] = [];
      const unreadable = new Map<string, string>();
      for (const { topic, rows: same } of groups) {
        const { type: typeName, format } = same[0]!;
        const stored = definitions.get(typeName);
        const standard = stored ? undefined : standardRos2Definition(typeName, distro);
        let schemaEncoding = "";
        let schemaData = new Uint8Array();
        if (stored) {
          schemaEncoding = stored.encoding;
          schemaData = encoder.encode(stored.text);
        } else if (standard != undefined) {
          schemaEncoding = "ros2msg";
          schemaData = encoder.encode(standard);
        } else {
          unreadable.set(topic, `no message definition for ${typeName}: the bag has none and it is not a standard ROS 2 type`);
        }
        const channel: RecordingChannel = { topic, schemaName: typeName, schemaEncoding, schemaData, messageEncoding: format, metadata: new Map() };
        channels.push(channel);
        // Rows of one topic share its channel and decoder, as one channel of a bag would.
        const entry: ChannelEntry = { channel };
        for (const row of same) {
          topics.push({ id: row.id, entry });
        }
      }
      const summary = messagesSummary(file, tableRows.map((r) => r.id));
      let counts: Map<string, number> | undefined;
      if (summary.counts) {
        counts = new Map(channels.map((c) => [c.topic, 0]));
        for (const { id, entry } of topics) {
          const topic = entry.channel.topic;
          counts.set(topic, counts.get(topic)! + (summary.counts.get(id) ?? 0));
        }
      }
      const rejectedRows = rejected.reduce((n, r) => n + r.ids.reduce((m, id) => m + (summary.counts?.get(id) ?? 0), 0), 0);
      // Rows on topic_ids the topics table lacks may be on any topic, and rows of rejected topic
      // rows on none the recording lists: its topics are then not all the file's, as an index
      // that does not match its file (a reader asked for such a topic reads on, and names them).
      const orphans = summary.orphans ?? 0;
      const unlisted = [
        ...(orphans > 0 ? [`${orphans} message rows name a topic_id its topics table does not have`] : []),
        ...(rejectedRows > 0 ? [`${rejectedRows} message rows are on topic rows without a name or with a name that rows of another type have`] : []),
      ];
      const indexProblem =
        summary.problem != undefined
          ? `${name}: ${summary.problem}`
          : unlisted.length > 0
            ? `${name}: ${unlisted.join(", and ")}, so its list of topics is incomplete; a read skips those rows and names them`
            : undefined;
      const info: RecordingInfo = {
        format: "rosbag2",
        profile: "ros2",
        publishTimes: false,
        channels,
        messageCounts: counts,
        startTime: summary.start,
        endTime: summary.end,
        indexed: indexProblem == undefined,
        indexProblem,
        sizeInBytes: options.storedBytes ?? source.size,
        unreadableTopics: unreadable,
        notes: logNotes(options.writeAheadLog, name),
      };
      // Whether rows may exist that no topic delivers, which every read then looks for.
      const unplaced = summary.problem != undefined || orphans > 0 || rejectedRows > 0;
      return new Sqlite3Recording(source, options, info, { topics, rejected, unplaced }, compression ?? "", cut);
    } finally {
      db.close();
    }
  }

  public async *messages(options: ReadOptions = {}): AsyncIterableIterator<RecordedMessage> {
    const wantedTopics = options.topics ? new Set(options.topics) : undefined;
    const decode = options.decode === false ? "raw" : "decode";
    const unreadable = this.info.unreadableTopics;
    const entries = new Map<number, ChannelEntry>();
    // The entry a read uses per topic (one for all its rows), by the topic's shared entry.
    const used = new Map<ChannelEntry, ChannelEntry>();
    let expected = 0;
    for (const { id, entry } of this.#topics.topics) {
      const topic = entry.channel.topic;
      const reason = unreadable?.get(topic);
      if (wantedTopics ? wantedTopics.has(topic) : decode === "raw" || reason == undefined) {
        let readEntry = used.get(entry);
        if (!readEntry) {
          // A topic asked for by name that cannot be decoded still delivers its messages, each
          // with the reason as its decodeError (so a pipeline counts them, rather than none).
          readEntry = reason != undefined && decode === "decode" ? { channel: entry.channel, decoderError: reason } : entry;
          used.set(entry, readEntry);
          expected += this.info.messageCounts?.get(topic) ?? 0;
        }
        entries.set(id, readEntry);
      }
    }
    const total = this.info.sizeInBytes;
    const { unplaced, rejected } = this.#topics;
    if (entries.size === 0 && !unplaced) {
      reportProgress(options, total, total);
      return;
    }
    const name = this.#options.name ?? "the .db3 file";
    const compression = this.#compression;
    const decompressors = this.#options.decompressors;
    const limit = this.#options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
    const file = await openDatabase(this.#source, this.#options, this.#cut);
    const db = file.db;
    try {
      const unwanted = this.#topics.topics.filter((t) => !entries.has(t.id)).map((t) => t.id);
      // A file with rows no topic delivers has them looked at by every read, whatever it asks
      // for, so that they are counted and named; a file without reads only what is asked for.
      const selection = unwanted.length === 0 ? "" : unplaced ? `topic_id not in (${unwanted.join(",")})` : `topic_id in (${[...entries.keys()].join(",")})`;
      let rowsInOrder: MessageRows;
      try {
        rowsInOrder = MessageRows.open(db, selection, limit);
      } catch (err) {
        // A RangeError is a bad limit from the caller, not the file's.
        throw err instanceof RangeError ? err : unreadableTable(name, "messages", err);
      }
      // Rows no reader can place are skipped and counted (one line each kind, however many).
      const orphans = new SkippedMessages(`${name}: message rows name a topic_id its topics table does not have`);
      const refused = new Map<number, { readonly skipped: SkippedMessages; readonly topic: string | undefined }>();
      const refusals = rejected.map((r) => {
        // What was lost is counted on the topic only where the read asked for it.
        const skipped = { skipped: new SkippedMessages(r.why), topic: r.topic != undefined && (wantedTopics?.has(r.topic) ?? true) ? r.topic : undefined };
        for (const id of r.ids) {
          refused.set(id, skipped);
        }
        return skipped.skipped;
      });
      const untimed = new SkippedMessages(`${name}: message rows have a timestamp that is not a whole number of nanoseconds`);
      const undecompressed = new SkippedMessages(`${name}: message rows do not decompress`);
      const oversized = new SkippedMessages(
        `${name}: message rows hold more bytes than the limit of ${limit} (a damaged row or an unusually large message; raise the limit with --max-chunk-size if the recording is genuine)`,
      );
      // Where SQLite found the file malformed (the rows after it cannot be reached), if it did.
      let malformed: string | undefined;
      try {
        let read = 0;
        let rows = 0;
        // The last row read (its text is built only if SQLite fails after it).
        let lastRowId: SqlValue = null;
        let lastStamp: SqlValue = null;
        for (;;) {
          let row: SqlValue[] | undefined;
          try {
            row = rowsInOrder.next();
          } catch (err) {
            const where = rows === 0 ? "before any message row was read" : `after ${rows} message rows were read in receive-time order (the last: row ${String(lastRowId)}, receive time ${String(lastStamp)})`;
            malformed = stoppedText(name, where, err, file);
            break;
          }
          if (row == undefined) {
            break;
          }
          rows += 1;
          const [rowId, topicId, stamp, stored, blob] = row;
          lastRowId = rowId!;
          lastStamp = stamp!;
          const entry = entries.get(Number(topicId));
          if (entry == undefined) {
            const refusal = refused.get(Number(topicId));
            (refusal?.skipped ?? orphans).add(`row ${String(rowId)}, topic_id ${String(topicId)}`, refusal?.topic);
            continue;
          }
          const stampText = String(stamp);
          if (!/^\d{1,20}$/.test(stampText)) {
            untimed.add(`row ${String(rowId)} on ${entry.channel.topic}, timestamp "${stampText.slice(0, 40)}"`, entry.channel.topic);
            continue;
          }
          if (typeof stored === "number" && stored > limit) {
            oversized.add(`row ${String(rowId)} on ${entry.channel.topic}, ${stored} bytes`, entry.channel.topic);
            continue;
          }
          const time = timeOfNsText(stampText);
          let data = blob instanceof Uint8Array ? blob : new Uint8Array();
          if (compression === "zstd") {
            try {
              data = decompressZstd(data, decompressors, `message row ${String(rowId)} on ${entry.channel.topic}`);
            } catch (err) {
              // One bad row is one skipped message: the rows after it are read.
              undecompressed.add(errorText(err), entry.channel.topic);
              continue;
            }
          }
          yield toRecordedMessage(entry, data, time, decode, 0, { name, rowId: String(rowId), time }, describeRow);
          read += 1;
          if (read % PROGRESS_ROWS === 0 && expected > 0) {
            reportProgress(options, Math.min(total, Math.floor((total * read) / expected)), total);
          }
        }
      } finally {
        rowsInOrder.free();
      }
      const damage = new DamageLog(options.onDamage);
      for (const skipped of [orphans, ...refusals, untimed, oversized, undecompressed]) {
        skipped.report(damage);
      }
      const cut = this.#cut;
      if (cut != undefined) {
        // At a byte offset, so not named here: a split bag names the file of such a damage.
        damage.add(
          cut.size,
          `the file ends at byte ${cut.size}, before the ${cut.pages} pages of ${cut.pageSize} bytes its header declares (${cut.declared} bytes): it was cut short; rows were read in receive-time order up to the first one on a missing page`,
        );
      }
      if (malformed != undefined) {
        damage.add(undefined, malformed);
      }
      const log = this.#options.writeAheadLog;
      if (log?.uncommitted != undefined) {
        // An offset in the log, not in this file: named in the text.
        damage.add(undefined, unreadTailText(log.name, log.uncommitted));
      }
      damage.finish();
    } finally {
      db.close();
    }
    reportProgress(options, total, total);
  }
}

/** Why the end of a write-ahead log is not read, and what that loses. */
function unreadTailText(name: string, tail: UnreadTail): string {
  const what = `the ${tail.bytes} bytes from byte ${tail.offset} (pages: ${tail.frames})`;
  return tail.damage == undefined
    ? `${name}: ${what} were written after the log's last commit, by a transaction its writer never finished: SQLite does not read them, so the messages in them are lost`
    : `${name}: the log is damaged at byte ${tail.damage.offset} (a frame whose checksum does not match): ${what}, with commits marked after the damage: ${tail.damage.commitsAfter}, are not read, as SQLite stops there too; the messages in them are lost`;
}

/** What `info.notes` says of the write-ahead log read beside the file `name`. */
function logNotes(log: SqliteWriteAheadLog | undefined, name: string): string[] {
  if (log == undefined) {
    return [];
  }
  if (log.ignored != undefined) {
    return [log.ignored];
  }
  if (log.transactions === 0) {
    return [];
  }
  return [
    `${name} was read with the write-ahead log its writer left beside it, ${log.name} (the recorder did not close the bag, as after a crash): committed transactions not yet copied into the file: ${log.transactions}, with ${log.committedFrames} pages; SQLite reads them the same way`,
  ];
}

function describeRow(context: { name: string; rowId: string; time: RecordTime }): string {
  return `(${context.name}, messages row ${context.rowId}, receive time ${nsText(context.time)})`;
}

/** Opens the file in SQLite; `cut`: where it was cut short, which SQLite must be told (see below). */
async function openDatabase(source: ByteSource, options: Sqlite3Options, cut: SqliteCut | undefined): Promise<SqliteDatabaseFile> {
  const SQL = await options.sqlJs();
  let file: SqliteDatabaseFile | undefined;
  try {
    file = await openSqliteDatabase(SQL, source);
    if (cut != undefined) {
      // SQLite refuses a whole file shorter than its header says, where the pages that are there
      // can still be read; this setting lets it open one. Only then: it also lets a damaged
      // schema pass, which is better named as SQLite names it. Nothing is ever written.
      file.db.exec("PRAGMA writable_schema = ON");
    }
    file.db.exec("select count(*) from sqlite_master");
    return file;
  } catch (err) {
    file?.db.close();
    const name = options.name ?? "the .db3 file";
    const readProblem = file?.readProblem();
    const text = readProblem == undefined ? `${name} is not a readable SQLite database: ${errorText(err)}` : `${name} cannot be read: ${readProblem}`;
    throw new RecordingError(undefined, text, { cause: err });
  }
}

/** Why a read of the rows stopped `where` it did: a failed read of the file, SQLite's memory, or a malformed database. */
function stoppedText(name: string, where: string, err: unknown, file: SqliteDatabaseFile): string {
  const readProblem = file.readProblem();
  if (readProblem != undefined) {
    return `${name}: reading stopped ${where}: ${readProblem}`;
  }
  const text = errorText(err);
  return /out of memory/i.test(text)
    ? `${name}: SQLite ran out of memory ${where}: the rows after that were not read`
    : `${name}: SQLite finds the database malformed ${where}: the rows after that cannot be read (${text})`;
}

/** Why SQLite failed: the failed read of the file behind it when there was one, else SQLite's own words. */
function failureText(err: unknown, file: SqliteDatabaseFile): string {
  return file.readProblem() ?? errorText(err);
}
