import { checkRange, type ByteSource } from "../ByteSource";

/** Bytes of a probed file, placed at `at`. */
export interface ProbedPart {
  readonly at: number;
  readonly bytes: Uint8Array;
}

/**
 * Test helper: a ByteSource that records the largest single read a reader makes, over a file of
 * `size` bytes that holds `parts` and zeros elsewhere (so a test can present a file of several GiB
 * without holding it). A read longer than `refuseAbove` is recorded, then rejected instead of
 * allocated, so that a reader that trusts a huge length field fails the test, not the machine.
 * It reads synchronously too, as a file does in Node.
 */
export class ReadSizeProbe implements ByteSource {
  public readonly size: number;
  /** The longest read asked for so far, in bytes. */
  public largestRead = 0;
  /** Bytes asked for so far, all reads together. */
  public bytesRead = 0;
  readonly #parts: readonly ProbedPart[];
  readonly #refuseAbove: number;

  public constructor(parts: Uint8Array | readonly ProbedPart[], size?: number, refuseAbove = 64 * 1024 * 1024) {
    this.#parts = parts instanceof Uint8Array ? [{ at: 0, bytes: parts }] : parts;
    this.size = size ?? Math.max(0, ...this.#parts.map((p) => p.at + p.bytes.byteLength));
    this.#refuseAbove = refuseAbove;
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    return this.readSync(offset, length);
  }

  public readSync(offset: number, length: number): Uint8Array {
    checkRange(this.size, offset, length);
    this.largestRead = Math.max(this.largestRead, length);
    this.bytesRead += length;
    if (length > this.#refuseAbove) {
      throw new Error(`the test's source refuses to read ${length} bytes at byte ${offset}`);
    }
    const out = new Uint8Array(length);
    for (const { at, bytes } of this.#parts) {
      const from = Math.max(offset, at);
      const to = Math.min(offset + length, at + bytes.byteLength);
      if (from < to) {
        out.set(bytes.subarray(from - at, to - at), from - offset);
      }
    }
    return out;
  }
}
