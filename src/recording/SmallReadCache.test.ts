import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ArrayByteSource, type ByteSource } from "./ByteSource";
import { BLOCK_BYTES, SMALL_READ, SmallReadCache } from "./SmallReadCache";

/** An in-memory source that counts its reads. */
class CountingSource implements ByteSource {
  public reads = 0;
  readonly #inner: ArrayByteSource;

  public constructor(bytes: Uint8Array) {
    this.#inner = new ArrayByteSource(bytes);
  }

  public get size(): number {
    return this.#inner.size;
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    this.reads++;
    return await this.#inner.read(offset, length);
  }
}

async function outcome(source: ByteSource, offset: number, length: number): Promise<Uint8Array | string> {
  return await source.read(offset, length).then(
    (bytes) => bytes.slice(),
    (err: unknown) => String(err),
  );
}

describe("SmallReadCache", () => {
  it("gives the inner source's bytes and rejections for any reads", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 0, maxLength: 3 * BLOCK_BYTES }),
        fc.array(fc.record({ offset: fc.integer({ min: -10, max: 3 * BLOCK_BYTES + 10 }), length: fc.oneof(fc.nat(SMALL_READ + 10), fc.nat(2 * BLOCK_BYTES)) }), { maxLength: 40 }),
        async (bytes, reads) => {
          const plain = new ArrayByteSource(bytes);
          const cached = new SmallReadCache(new ArrayByteSource(bytes));
          const kept: { got: Uint8Array | string; offset: number; length: number }[] = [];
          for (const { offset, length } of reads) {
            const got = await cached.read(offset, length).then(
              (b) => b,
              (err: unknown) => String(err),
            );
            expect(typeof got === "string" ? got : got.slice()).toEqual(await outcome(plain, offset, length));
            kept.push({ got, offset, length });
          }
          // Views handed out earlier still hold their bytes.
          for (const { got, offset, length } of kept) {
            if (typeof got !== "string") {
              expect(got).toEqual(bytes.subarray(offset, offset + length));
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("serves consecutive small reads from one block", async () => {
    const inner = new CountingSource(new Uint8Array(4 * BLOCK_BYTES));
    const cached = new SmallReadCache(inner);
    for (let at = 100; at + 80 <= 100 + BLOCK_BYTES; at += 80) {
      await cached.read(at, 80);
    }
    expect(inner.reads).toBe(1);
    await cached.read(100 + BLOCK_BYTES, 8);
    expect(inner.reads).toBe(2);
    // A large read goes to the inner source as it is, and leaves the block alone.
    await cached.read(0, SMALL_READ + 1);
    await cached.read(100 + BLOCK_BYTES + 8, 8);
    expect(inner.reads).toBe(3);
  });
});
