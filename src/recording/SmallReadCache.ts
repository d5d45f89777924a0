import { checkRange, type ByteSource } from "./ByteSource";

/** Reads of at most this many bytes (a record header, an index entry) are served from a block. */
export const SMALL_READ = 512;

/**
 * How many bytes a small read outside the block reads into a new one (less at the end of the
 * file): a page, what the operating system reads for the smallest read anyway.
 */
export const BLOCK_BYTES = 4 * 1024;

/**
 * A ByteSource for readers that walk many small records one by one (a bag scan reads each index
 * data record's header after a chunk, and the next chunk's): a read inside the last block read is
 * served from it, a small read (at most `SMALL_READ` bytes) outside it reads a new block of
 * `BLOCK_BYTES` from its offset, and larger reads go to the inner source as they are. Dozens of
 * reads after each chunk become one or two.
 *
 * Guarantees: the same bytes as the inner source, and the same rejection (the inner source's)
 * for a read outside the file; reads are views of shared blocks (`readsAreOwned` is false), which
 * stay valid; one block is held.
 */
export class SmallReadCache implements ByteSource {
  public readonly size: number;
  public readonly readsAreOwned = false;
  readonly #inner: ByteSource;
  #block: Uint8Array = new Uint8Array(0);
  #blockAt = 0;

  public constructor(inner: ByteSource) {
    this.#inner = inner;
    this.size = inner.size;
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    const start = offset - this.#blockAt;
    if (start >= 0 && length >= 0 && start + length <= this.#block.byteLength && Number.isSafeInteger(offset) && Number.isSafeInteger(length)) {
      return this.#block.subarray(start, start + length);
    }
    if (length > SMALL_READ) {
      return await this.#inner.read(offset, length);
    }
    try {
      checkRange(this.size, offset, length);
    } catch {
      // Out of the file: the inner source rejects it in its own words.
      return await this.#inner.read(offset, length);
    }
    const block = await this.#inner.read(offset, Math.min(this.size, offset + BLOCK_BYTES) - offset);
    this.#block = block;
    this.#blockAt = offset;
    return block.subarray(0, length);
  }
}
