import { checkRange, type ByteSource } from "./ByteSource";
import type { SqliteWriteAheadLog } from "./sqliteWriteAheadLog";

/**
 * A SQLite database as its committed write-ahead log makes it (internal to the `.db3` reader): the
 * database file's bytes, each page the log's committed transactions hold replaced by its newest
 * copy there, and the size the last commit gives. This is the database SQLite itself reads with
 * the log beside it; the engine then sees an ordinary file and needs no log of its own. Reads are
 * fresh arrays. Synchronous reads exist when both files have them.
 */
export class WalOverlaySource implements ByteSource {
  public readonly size: number;
  public readonly readsAreOwned = true;
  public readonly readSync?: (offset: number, length: number) => Uint8Array;
  readonly #database: ByteSource;
  readonly #logBytes: ByteSource;
  readonly #log: SqliteWriteAheadLog;

  /** `log` must hold at least one committed transaction (`databasePages` > 0). */
  public constructor(database: ByteSource, logBytes: ByteSource, log: SqliteWriteAheadLog) {
    this.#database = database;
    this.#logBytes = logBytes;
    this.#log = log;
    this.size = log.databasePages * log.pageSize;
    if (database.readSync != undefined && logBytes.readSync != undefined) {
      this.readSync = (offset, length) => this.#readSync(offset, length);
    }
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    checkRange(this.size, offset, length);
    const runs: [from: ByteSource, at: number, n: number, into: number][] = [];
    this.#runs(offset, length, (from, at, n, into) => {
      runs.push([from, at, n, into]);
    });
    const out = new Uint8Array(length);
    for (const [from, at, n, into] of runs) {
      out.set(await from.read(at, n), into);
    }
    return out;
  }

  #readSync(offset: number, length: number): Uint8Array {
    checkRange(this.size, offset, length);
    const out = new Uint8Array(length);
    this.#runs(offset, length, (from, at, n, into) => {
      out.set(from.readSync!(at, n), into);
    });
    return out;
  }

  /**
   * Splits `[offset, offset + length)` into runs, each read from one file (`into`: where the run
   * goes in the result): a page the log holds comes
   * from the log, consecutive other pages from the database file in one run; bytes past the
   * database file's end that the log does not hold stay zero (SQLite never reads such a page).
   */
  #runs(offset: number, length: number, visit: (from: ByteSource, at: number, n: number, into: number) => void): void {
    const pageSize = this.#log.pageSize;
    const databaseSize = this.#database.size;
    let runStart = -1;
    let runEnd = -1;
    const flush = (): void => {
      if (runStart >= 0 && runEnd > runStart) {
        visit(this.#database, runStart, runEnd - runStart, runStart - offset);
      }
      runStart = -1;
    };
    const end = offset + length;
    for (let at = offset; at < end; ) {
      const page = Math.floor(at / pageSize);
      const pageEnd = Math.min(end, (page + 1) * pageSize);
      const logged = this.#log.pages.get(page + 1);
      if (logged != undefined) {
        flush();
        visit(this.#logBytes, logged + (at - page * pageSize), pageEnd - at, at - offset);
      } else if (at < databaseSize) {
        if (runStart < 0) {
          runStart = at;
        }
        runEnd = Math.min(pageEnd, databaseSize);
      } else {
        flush();
      }
      at = pageEnd;
    }
    flush();
  }
}
