import { open, type FileHandle } from "node:fs/promises";

/**
 * An @mcap/core `IWritable` over a file (Node only): appends each buffer, tracks the position.
 * Writes are sequential; close it when done.
 */
export class FileWritable {
  readonly #handle: FileHandle;
  #position = 0n;

  private constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  /** Creates (or truncates) `path`. */
  public static async create(path: string): Promise<FileWritable> {
    return new FileWritable(await open(path, "w"));
  }

  public async write(buffer: Uint8Array): Promise<void> {
    let done = 0;
    while (done < buffer.byteLength) {
      const { bytesWritten } = await this.#handle.write(buffer, done, buffer.byteLength - done);
      done += bytesWritten;
    }
    this.#position += BigInt(buffer.byteLength);
  }

  public position(): bigint {
    return this.#position;
  }

  public async close(): Promise<void> {
    await this.#handle.close();
  }
}
