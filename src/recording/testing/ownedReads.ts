import { checkRange, type ByteSource } from "../ByteSource";

/**
 * An in-memory source whose every `read` returns a copy of its own, as a file's reads are, so a
 * ChunkWorker may take the chunks it reads whole (`readsAreOwned`).
 */
export class OwnedReads implements ByteSource {
  public readonly readsAreOwned = true;
  public readonly size: number;
  readonly #bytes: Uint8Array;

  public constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.size = bytes.byteLength;
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    checkRange(this.size, offset, length);
    return await Promise.resolve(this.#bytes.slice(offset, offset + length));
  }
}
