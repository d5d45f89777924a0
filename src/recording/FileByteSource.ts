import { readSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

import { checkRange, type ByteSource } from "./ByteSource";

/**
 * The most one file system call reads: Node's read takes a 32-bit length (a larger one aborts the
 * process), so a larger `read` is made of several calls.
 */
const MAX_READ_CALL = 1 << 30;

/**
 * A ByteSource over a file on disk (Node only: import it from `recording/node`). Each `read` is one
 * positioned read into a fresh buffer, so memory stays proportional to what the reader asks for.
 * Call `close()` when done (or use `FileByteSource.open` with try/finally).
 *
 * ```ts
 * const source = await FileByteSource.open("samples/husky-2015.bag");
 * try { for await (const m of readRecording(source)) { … } } finally { await source.close(); }
 * ```
 */
export class FileByteSource implements ByteSource {
  public readonly size: number;
  /** The path it was opened from (for messages). */
  public readonly path: string;
  /** Every read is a buffer of its own (see `read`). */
  public readonly readsAreOwned = true;
  readonly #handle: FileHandle;

  private constructor(handle: FileHandle, size: number, path: string) {
    this.#handle = handle;
    this.size = size;
    this.path = path;
  }

  /** Opens `path` for reading. Rejects with the file system's error (ENOENT, EISDIR, …). */
  public static async open(path: string): Promise<FileByteSource> {
    const handle = await open(path, "r");
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) {
        throw new Error(`${path} is not a regular file`);
      }
      return new FileByteSource(handle, stat.size, path);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    const buffer = this.#bufferFor(offset, length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.#handle.read(buffer, done, Math.min(length - done, MAX_READ_CALL), offset + done);
      done = this.#advanced(offset, length, done, bytesRead);
    }
    return buffer;
  }

  /** `read`, synchronously (the SQLite engine's page reads): same checks, same errors. */
  public readSync(offset: number, length: number): Uint8Array {
    const buffer = this.#bufferFor(offset, length);
    let done = 0;
    while (done < length) {
      const bytesRead = readSync(this.#handle.fd, buffer, done, Math.min(length - done, MAX_READ_CALL), offset + done);
      done = this.#advanced(offset, length, done, bytesRead);
    }
    return buffer;
  }

  /** The checked range's buffer to read into. */
  #bufferFor(offset: number, length: number): Uint8Array {
    checkRange(this.size, offset, length);
    // Not zero-filled (every byte is read or the read throws): zeroing a whole recording's
    // chunks costs about as much as a tenth of decompressing them. Memory of its own, never
    // the pool's, and a plain Uint8Array, whose slice() copies as callers expect.
    const memory = Buffer.allocUnsafeSlow(length);
    return new Uint8Array(memory.buffer, memory.byteOffset, length);
  }

  /** Bytes read so far after one call read `bytesRead`; throws when the file ended before. */
  #advanced(offset: number, length: number, done: number, bytesRead: number): number {
    if (bytesRead === 0) {
      throw new RangeError(
        `${this.path} ended at byte offset ${offset + done} while reading ${length} bytes at ${offset} (was it truncated while open?)`,
      );
    }
    return done + bytesRead;
  }

  /** Closes the file. */
  public async close(): Promise<void> {
    await this.#handle.close();
  }
}
