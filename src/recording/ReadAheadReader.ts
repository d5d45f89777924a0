import { errorText } from "./RecordingError";

/** The most `ReadAheadReader` reads beyond what it is asked for, in one read. */
export const READ_AHEAD_LIMIT = 256 * 1024;

/**
 * Synchronous reads of a file for a reader that asks for it a page at a time (SQLite): a read
 * that starts where the previous one ended reads ahead, twice as far as the previous such read
 * (at most `READ_AHEAD_LIMIT`), and the next reads are served from that block. A long walk over
 * consecutive pages (a large message's overflow pages, a table written in order) then costs few
 * reads; a short one reads at most about as much again as it used, so pages that a reader skips
 * (other topics' messages between the ones it reads) are not pulled in wholesale. Any other read
 * is exactly what was asked for. Holds at most one block.
 *
 * A failed read does not throw: it returns an empty array and records the first failure, named
 * with its byte offset, in `problem` (SQLite then sees a short read and reports an I/O error).
 */
export class ReadAheadReader {
  /** The file's size in bytes. */
  public readonly size: number;
  /** The first failed read, named with its size, offset and the source's error. */
  public problem: string | undefined;
  readonly #readSync: (offset: number, length: number) => Uint8Array;
  /** Where the last read ended (a read starting there is sequential). */
  #lastEnd = -1;
  /** The block read ahead, and where it starts. */
  #ahead: Uint8Array | undefined;
  #aheadAt = 0;
  /** How far the last sequential read read (0 after a read elsewhere). */
  #aheadBytes = 0;

  /** @param readSync exactly `length` bytes at `offset`, or throws (`ByteSource.readSync`) */
  public constructor(size: number, readSync: (offset: number, length: number) => Uint8Array) {
    this.size = size;
    this.#readSync = readSync;
  }

  /**
   * The bytes of `[start, end)` (inside the file) in an array whose buffer holds exactly them
   * (the engine takes the buffer), or an empty array when the read fails (see `problem`).
   */
  public read(start: number, end: number): Uint8Array {
    const ahead = this.#ahead;
    if (ahead != undefined && start >= this.#aheadAt && end <= this.#aheadAt + ahead.byteLength) {
      this.#lastEnd = end;
      return copyOf(ahead, start - this.#aheadAt, end - this.#aheadAt);
    }
    const sequential = start === this.#lastEnd;
    this.#lastEnd = end;
    this.#aheadBytes = sequential ? Math.min(READ_AHEAD_LIMIT, Math.max(2 * this.#aheadBytes, 2 * (end - start))) : 0;
    try {
      if (this.#aheadBytes <= end - start) {
        const bytes = this.#readSync(start, end - start);
        return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : copyOf(bytes, 0, bytes.byteLength);
      }
      const block = this.#readSync(start, Math.min(this.size, start + this.#aheadBytes) - start);
      this.#ahead = block;
      this.#aheadAt = start;
      return copyOf(block, 0, end - start);
    } catch (err) {
      this.#ahead = undefined;
      this.problem ??= `reading ${end - start} bytes at byte offset ${start} failed: ${errorText(err)}`;
      return new Uint8Array();
    }
  }
}

/**
 * `bytes[from, to)` in an array of its own. Not `slice`: a source may hand out Node Buffers, whose
 * `slice` is a view of the same memory.
 */
function copyOf(bytes: Uint8Array, from: number, to: number): Uint8Array {
  const out = new Uint8Array(to - from);
  out.set(bytes.subarray(from, to));
  return out;
}
