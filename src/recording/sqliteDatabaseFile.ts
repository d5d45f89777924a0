import type { Database, SqlJsStatic } from "@foxglove/sql.js";

import type { ByteSource } from "./ByteSource";
import { ReadAheadReader } from "./ReadAheadReader";

/** A `.db3` opened by the SQLite engine, and what went wrong reading its bytes, if anything. */
export interface SqliteDatabaseFile {
  readonly db: Database;
  /**
   * Whether SQLite reads the file page by page from its source (true) or from a copy of the whole
   * file in memory (false: the source cannot read synchronously).
   */
  readonly paged: boolean;
  /**
   * The first read of the source that failed (an I/O error, a file truncated while open), named
   * with its byte offset; SQLite itself then reports "disk I/O error". Undefined when none failed.
   */
  readProblem(): string | undefined;
}

/**
 * Opens `source` in the SQLite engine `SQL` without copying it into memory when the source can
 * read synchronously (`ByteSource.readSync`): the engine then reads each page where and when it
 * needs it, so memory is SQLite's page cache (2 MB by default), never the file's size. Otherwise
 * the whole file is read and handed to the engine, as sql.js needs it.
 *
 * The paged file is sql.js's own lazy file node (the one it offers Web Workers for a `File`): a
 * node whose reads call `slice(start, end)` on the given file and read the slice with the
 * realm's `FileReaderSync`. Lockstep gives it a file over the source and, for the instant the
 * engine creates its reader, a `FileReaderSync` that reads those slices (the engine keeps that
 * reader; the global is restored at once). Every database of an engine is then read this way.
 * A read that fails becomes a short read, which SQLite reports as an I/O error for the statement
 * in progress, not as an exception through its C frames (that would leave the engine
 * inconsistent); `readProblem()` names it.
 */
export async function openSqliteDatabase(SQL: SqlJsStatic, source: ByteSource): Promise<SqliteDatabaseFile> {
  if (source.readSync == undefined) {
    const db = new SQL.Database(await source.read(0, source.size));
    return { db, paged: false, readProblem: () => undefined };
  }
  const file = new PagedFile(new ReadAheadReader(source.size, source.readSync.bind(source)));
  const scope = globalThis as { FileReaderSync?: unknown };
  const previous = Object.getOwnPropertyDescriptor(scope, "FileReaderSync");
  Object.defineProperty(scope, "FileReaderSync", { value: PagedSliceReader, configurable: true, writable: true });
  let db: Database;
  try {
    // The engine types the lazy node's file as a DOM File; it uses only size, slice and
    // lastModifiedDate, which PagedFile has.
    db = new SQL.Database({ file: file as unknown as File });
  } finally {
    if (previous == undefined) {
      delete scope.FileReaderSync;
    } else {
      Object.defineProperty(scope, "FileReaderSync", previous);
    }
  }
  return { db, paged: true, readProblem: () => file.reader.problem };
}

/** The file handed to the engine's lazy node: its size, and slices that read the source. */
class PagedFile {
  public readonly size: number;
  public readonly lastModifiedDate = new Date(0);
  public readonly reader: ReadAheadReader;

  public constructor(reader: ReadAheadReader) {
    this.reader = reader;
    this.size = reader.size;
  }

  /** `[start, end)` clipped to the file, as `Blob.slice` does. */
  public slice(start: number, end: number): PagedSlice {
    const from = Math.min(Math.max(0, start), this.size);
    return new PagedSlice(this.reader, from, Math.max(from, Math.min(end, this.size)));
  }
}

/**
 * A slice of a PagedFile. `size` is what the engine's node returns as the number of bytes read,
 * and it looks at it after the read: it becomes the bytes actually read, so a failed read is a
 * short read.
 */
class PagedSlice {
  public size: number;
  readonly #reader: ReadAheadReader;
  readonly #start: number;

  public constructor(reader: ReadAheadReader, start: number, end: number) {
    this.#reader = reader;
    this.#start = start;
    this.size = end - start;
  }

  /** The slice's bytes, as an ArrayBuffer that holds exactly them. */
  public read(): ArrayBuffer {
    const bytes = this.#reader.read(this.#start, this.#start + this.size);
    this.size = bytes.byteLength;
    return bytes.buffer as ArrayBuffer;
  }
}

/** The `FileReaderSync` the engine's lazy node reads PagedSlices with. */
class PagedSliceReader {
  public readAsArrayBuffer(slice: unknown): ArrayBuffer {
    if (!(slice instanceof PagedSlice)) {
      throw new TypeError("Lockstep's SQLite reader reads only the files it opened itself");
    }
    return slice.read();
  }
}
