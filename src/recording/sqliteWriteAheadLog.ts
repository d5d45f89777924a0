import type { ByteSource } from "./ByteSource";
import { WalOverlaySource } from "./WalOverlaySource";

/** Bytes of a write-ahead log's header, and of each frame's header before its page. */
const LOG_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
/** The log format version SQLite writes (3.7.0). */
const LOG_VERSION = 3007000;
/** A write-ahead log's magic number (big-endian, the file's first 4 bytes); its lowest bit is the checksums' word order. */
const LOG_MAGIC = 0x377f0682;

/** Whether a file's first 4 bytes `magic` (read big-endian) are a SQLite write-ahead log's. */
export function isWriteAheadLogMagic(magic: number): boolean {
  return magic >>> 1 === LOG_MAGIC >>> 1;
}

/** How a log's checksums read its 32-bit words (the magic number says). */
type WordOrder = "little-endian" | "big-endian";
/** Frames read from the source at once. */
const FRAMES_PER_READ = 64;

/**
 * What a SQLite write-ahead log (the `-wal` file beside a database in WAL mode) holds, as SQLite
 * itself reads it when it opens the database (file format §4, "The WAL File Format"): the pages of
 * every committed transaction, newest copy of each page winning, in the valid prefix of the log.
 */
export interface SqliteWriteAheadLog {
  /** Names the log in messages (its path). */
  readonly name: string;
  readonly pageSize: number;
  /**
   * The pages of the committed transactions, by page number (1-based): where the newest committed
   * copy of the page starts in the log (a byte offset).
   */
  readonly pages: ReadonlyMap<number, number>;
  /** The database's size in pages after the last committed transaction; 0 when none was. */
  readonly databasePages: number;
  /** Committed transactions (each ends with a commit frame). */
  readonly transactions: number;
  /** Frames in those transactions. */
  readonly committedFrames: number;
  /**
   * What was written after the last commit with the log's current salts (an unfinished
   * transaction: its writer stopped before committing, so SQLite does not read it): frames
   * counted from `offset` (a byte offset in the log), a torn last frame included. Undefined when
   * the log ends at a commit or continues with an older generation of frames (normal reuse).
   */
  readonly uncommitted: UnreadTail | undefined;
  /** Why SQLite ignores the log as a whole (its header); undefined when it reads it. */
  readonly ignored: string | undefined;
}

/** The part of a log after its last commit that SQLite does not read (see `uncommitted`). */
export interface UnreadTail {
  /** Where it starts: the end of the last committed transaction (a byte offset in the log). */
  readonly offset: number;
  readonly bytes: number;
  readonly frames: number;
  /**
   * Where a frame failed its checksum when frames marked as commits follow it (a damaged log,
   * not an unfinished transaction): the offset of that frame, and how many commits follow.
   */
  readonly damage: { readonly offset: number; readonly commitsAfter: number } | undefined;
}

/**
 * Reads the write-ahead log `source` as SQLite recovers it: checks the header (magic, version,
 * page size, checksum), then each frame's salts and cumulative checksum, in order, up to the first
 * frame that fails; the pages of the transactions committed before that point are the log's
 * contribution to the database. Memory: one entry per distinct page of the committed transactions
 * (as SQLite's own log index), and 64 frames of bytes at a time.
 */
export async function readSqliteWriteAheadLog(source: ByteSource, name: string): Promise<SqliteWriteAheadLog> {
  const ignoredBecause = (why: string): SqliteWriteAheadLog => ({
    name,
    pageSize: 0,
    pages: new Map(),
    databasePages: 0,
    transactions: 0,
    committedFrames: 0,
    uncommitted: undefined,
    ignored: `${name} ${why}; SQLite ignores such a log, and so does Lockstep`,
  });
  if (source.size < LOG_HEADER_BYTES) {
    return source.size === 0 ? { ...ignoredBecause("is empty"), ignored: undefined } : ignoredBecause(`is ${source.size} bytes, shorter than a log header`);
  }
  const header = await source.read(0, LOG_HEADER_BYTES);
  const headerView = new DataView(header.buffer, header.byteOffset, LOG_HEADER_BYTES);
  const magic = headerView.getUint32(0);
  if (!isWriteAheadLogMagic(magic)) {
    return ignoredBecause(`does not start with a write-ahead log's magic number (found 0x${magic.toString(16)})`);
  }
  // The magic's lowest bit: checksums add big-endian words when set, little-endian otherwise.
  const order: WordOrder = (magic & 1) === 0 ? "little-endian" : "big-endian";
  const version = headerView.getUint32(4);
  const pageSize = headerView.getUint32(8);
  if (version !== LOG_VERSION) {
    return ignoredBecause(`has format version ${version}, not ${LOG_VERSION}`);
  }
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    return ignoredBecause(`declares a page size of ${pageSize} bytes, which is not a power of two from 512 to 65536`);
  }
  const sum = new Uint32Array(2);
  addChecksum(headerView, 0, 24, order, sum);
  if (sum[0] !== headerView.getUint32(24) || sum[1] !== headerView.getUint32(28)) {
    return ignoredBecause("has a header whose checksum does not match");
  }
  const salt1 = headerView.getUint32(16);
  const salt2 = headerView.getUint32(20);

  const frameBytes = FRAME_HEADER_BYTES + pageSize;
  const pages = new Map<number, number>();
  // Pages of the transaction in progress, committed into `pages` by its commit frame.
  let pending = new Map<number, number>();
  let databasePages = 0;
  let transactions = 0;
  let committedFrames = 0;
  let framesSinceCommit = 0;
  let committedEnd = LOG_HEADER_BYTES;
  // Where the frames with the current salts end (a valid frame or not, a torn one included).
  let currentEnd = LOG_HEADER_BYTES;
  let offset = LOG_HEADER_BYTES;
  // The first frame that failed its checksum, and the frames marked as commits after it.
  let badFrame: number | undefined;
  let commitsAfterBad = 0;
  scan: while (offset < source.size) {
    const frames = Math.max(1, Math.min(FRAMES_PER_READ, Math.floor((source.size - offset) / frameBytes)));
    const length = Math.min(frames * frameBytes, source.size - offset);
    const bytes = await source.read(offset, length);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let at = 0; at < length; at += frameBytes) {
      const frameAt = offset + at;
      if (length - at < FRAME_HEADER_BYTES || view.getUint32(at + 8) !== salt1 || view.getUint32(at + 12) !== salt2) {
        // A frame of an older generation (the log is reused from its start after a checkpoint)
        // ends the log; a few bytes that cannot even hold a header belong to a torn write.
        if (length - at < FRAME_HEADER_BYTES) {
          currentEnd = source.size;
        }
        break scan;
      }
      currentEnd = Math.min(source.size, frameAt + frameBytes);
      if (length - at < frameBytes) {
        continue; // torn at the end: part of the unread tail
      }
      const page = view.getUint32(at);
      const commitSize = view.getUint32(at + 4);
      if (badFrame != undefined) {
        commitsAfterBad += commitSize !== 0 ? 1 : 0;
        continue; // after a bad frame: part of the unread tail
      }
      addChecksum(view, at, at + 8, order, sum);
      addChecksum(view, at + FRAME_HEADER_BYTES, at + frameBytes, order, sum);
      if (sum[0] !== view.getUint32(at + 16) || sum[1] !== view.getUint32(at + 20) || page === 0) {
        badFrame = frameAt;
        continue;
      }
      pending.set(page, frameAt + FRAME_HEADER_BYTES);
      framesSinceCommit += 1;
      if (commitSize !== 0) {
        for (const [p, where] of pending) {
          pages.set(p, where);
        }
        pending = new Map();
        databasePages = commitSize;
        transactions += 1;
        committedFrames += framesSinceCommit;
        framesSinceCommit = 0;
        committedEnd = frameAt + frameBytes;
      }
    }
    offset += length;
  }
  const tail = currentEnd - committedEnd;
  return {
    name,
    pageSize,
    pages,
    databasePages,
    transactions,
    committedFrames,
    uncommitted:
      tail > 0
        ? {
            offset: committedEnd,
            bytes: tail,
            frames: Math.ceil(tail / frameBytes),
            damage: badFrame != undefined && commitsAfterBad > 0 ? { offset: badFrame, commitsAfter: commitsAfterBad } : undefined,
          }
        : undefined,
    ignored: undefined,
  };
}

/**
 * SQLite's log checksum over `view[start, end)` (a multiple of 8 bytes), continued from `sum`:
 * for each pair of 32-bit words x0, x1: s0 += x0 + s1, s1 += x1 + s0, modulo 2^32.
 */
function addChecksum(view: DataView, start: number, end: number, order: WordOrder, sum: Uint32Array): void {
  const littleEndian = order === "little-endian";
  let s0 = sum[0]!;
  let s1 = sum[1]!;
  for (let i = start; i < end; i += 8) {
    s0 = (s0 + view.getUint32(i, littleEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(i + 4, littleEndian) + s0) >>> 0;
  }
  sum[0] = s0;
  sum[1] = s1;
}

/** A `.db3` as SQLite reads it with its write-ahead log beside it, and that log. */
export interface DatabaseWithLog {
  /** The database with the log's committed pages applied; `database` itself when none apply. */
  readonly database: ByteSource;
  readonly log: SqliteWriteAheadLog;
}

/**
 * Applies the write-ahead log `logBytes` (named `name`) to the database `database`: the database
 * bytes SQLite reads when it opens the file with that log beside it (a WalOverlaySource), or the
 * file itself when the log has no committed transaction or does not fit it (its page size differs
 * from the database's, which `log.ignored` then says).
 */
export async function databaseWithLog(database: ByteSource, logBytes: ByteSource, name: string): Promise<DatabaseWithLog> {
  const log = await readSqliteWriteAheadLog(logBytes, name);
  if (log.transactions === 0) {
    return { database, log };
  }
  if (database.size >= 18) {
    const head = await database.read(16, 2);
    const raw = (head[0]! << 8) | head[1]!;
    const pageSize = raw === 1 ? 65536 : raw;
    if (pageSize !== log.pageSize) {
      return {
        database,
        log: { ...log, pages: new Map(), databasePages: 0, transactions: 0, committedFrames: 0, ignored: `${name} holds pages of ${log.pageSize} bytes but its database has pages of ${pageSize}: it is not this database's log, and is not read` },
      };
    }
  }
  return { database: new WalOverlaySource(database, logBytes, log), log };
}
