/**
 * Random-access bytes of a recording: the one thing the readers need from their host. Node wraps a
 * file handle (`FileByteSource`, Node-only), the panel's worker wraps a `Blob` or an `ArrayBuffer`
 * (`BlobByteSource`, `ArrayByteSource`).
 *
 * Contract: `read(offset, length)` resolves to exactly `length` bytes starting at `offset`, or
 * rejects when `[offset, offset + length)` is not inside `[0, size)`. Offsets are byte numbers
 * (exact for files below 2^53 bytes). The returned array may be a view that the caller must not
 * keep beyond its next `read` unless it copies it; readers in this folder copy what they keep.
 */
export interface ByteSource {
  /** Total size in bytes. */
  readonly size: number;
  /** Exactly `length` bytes from `offset`. */
  read(offset: number, length: number): Promise<Uint8Array>;
  /**
   * The same as `read`, synchronously; present only where the host can read without waiting
   * (a file in Node, bytes in memory). The SQLite engine reads a `.db3` page by page through it
   * instead of holding the whole file (its file layer cannot wait for a promise). Throws where
   * `read` rejects.
   */
  readSync?(offset: number, length: number): Uint8Array;
  /**
   * True when every `read` returns the whole of a fresh ArrayBuffer that nothing else holds, so
   * that a reader may keep it or hand it to another thread (transfer it) instead of copying it.
   */
  readonly readsAreOwned?: boolean;
}

/** Throws a RangeError naming the range when `[offset, offset + length)` is outside `[0, size)`. */
export function checkRange(size: number, offset: number, length: number): void {
  if (
    !Number.isSafeInteger(offset) ||
    !Number.isSafeInteger(length) ||
    offset < 0 ||
    length < 0 ||
    offset + length > size
  ) {
    throw new RangeError(
      `cannot read ${length} bytes at byte offset ${offset}: the recording has ${size} bytes`,
    );
  }
}

/**
 * A ByteSource over bytes already in memory (tests, small recordings, a worker that received an
 * ArrayBuffer). `read` returns views into the array, no copies.
 */
export class ArrayByteSource implements ByteSource {
  readonly #bytes: Uint8Array;

  public constructor(bytes: Uint8Array | ArrayBuffer) {
    this.#bytes = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  }

  public get size(): number {
    return this.#bytes.byteLength;
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    return this.readSync(offset, length);
  }

  public readSync(offset: number, length: number): Uint8Array {
    checkRange(this.#bytes.byteLength, offset, length);
    return this.#bytes.subarray(offset, offset + length);
  }
}

/** The part of a Web Worker's `FileReaderSync` that `BlobByteSource` uses. */
interface BlobReaderSync {
  readAsArrayBuffer(blob: Blob): ArrayBuffer;
}

/**
 * A ByteSource over a `Blob` or `File` (browser, Web Worker; Node 20 has Blob too). Reads only the
 * requested slice, so a large file is never loaded whole. In a Web Worker, where `FileReaderSync`
 * exists, it also reads synchronously (`readSync`), so a rosbag2 `.db3` is read page by page
 * there too.
 */
export class BlobByteSource implements ByteSource {
  /** `read`, synchronously: present only where the realm has `FileReaderSync` (a Web Worker). */
  public readonly readSync?: (offset: number, length: number) => Uint8Array;
  readonly #blob: Blob;

  public constructor(blob: Blob) {
    this.#blob = blob;
    // Taken now: while SQLite opens a file, the realm's FileReaderSync is briefly Lockstep's own.
    const Reader = (globalThis as { FileReaderSync?: new () => BlobReaderSync }).FileReaderSync;
    if (typeof Reader === "function") {
      const reader = new Reader();
      this.readSync = (offset, length) => {
        checkRange(blob.size, offset, length);
        return new Uint8Array(reader.readAsArrayBuffer(blob.slice(offset, offset + length)));
      };
    }
  }

  public get size(): number {
    return this.#blob.size;
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    checkRange(this.#blob.size, offset, length);
    return new Uint8Array(await this.#blob.slice(offset, offset + length).arrayBuffer());
  }
}
