import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ArrayByteSource, type ByteSource } from "./ByteSource";
import { EagerByteSource } from "./EagerByteSource";

/** Bytes 0..n-1 (mod 256) behind a source that counts its synchronous and asynchronous reads. */
class CountingSource implements ByteSource {
  public syncReads = 0;
  public asyncReads = 0;
  readonly #bytes: ArrayByteSource;
  /** Called on every synchronous read (the tests' clock moves there). */
  public onSyncRead: (() => void) | undefined;

  public constructor(n: number, reads: "sync-and-async" | "async-only" = "sync-and-async") {
    this.#bytes = new ArrayByteSource(Uint8Array.from({ length: n }, (_, i) => i & 0xff));
    if (reads === "async-only") {
      this.readSync = undefined;
    }
  }

  public get size(): number {
    return this.#bytes.size;
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    this.asyncReads++;
    return await this.#bytes.read(offset, length);
  }

  public readSync?: (offset: number, length: number) => Uint8Array = (offset, length) => {
    this.syncReads++;
    this.onSyncRead?.();
    return this.#bytes.readSync(offset, length);
  };
}

describe("EagerByteSource", () => {
  it("serves small reads synchronously, with the inner source's bytes", async () => {
    const inner = new CountingSource(1000);
    const eager = new EagerByteSource(inner, { now: () => 0 });
    expect(eager.size).toBe(1000);
    expect([...(await eager.read(250, 4))]).toEqual([250, 251, 252, 253]);
    expect([...(await eager.read(998, 2))]).toEqual([230, 231]);
    expect(inner.syncReads).toBe(2);
    expect(inner.asyncReads).toBe(0);
  });

  it("rejects, never throws, a read outside the source, naming the range", async () => {
    const eager = new EagerByteSource(new CountingSource(100), { now: () => 0 });
    const pending = eager.read(90, 20);
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toThrow("cannot read 20 bytes at byte offset 90: the recording has 100 bytes");
  });

  it("waits for the event loop for large reads and where the source cannot read synchronously", async () => {
    const inner = new CountingSource(100);
    const eager = new EagerByteSource(inner, { maxSyncBytes: 8, now: () => 0 });
    await eager.read(0, 8);
    await eager.read(0, 9);
    expect([inner.syncReads, inner.asyncReads]).toEqual([1, 1]);

    const asyncOnly = new CountingSource(100, "async-only");
    const plain = new EagerByteSource(asyncOnly, { now: () => 0 });
    expect(plain.readSync).toBeUndefined();
    expect([...(await plain.read(3, 2))]).toEqual([3, 4]);
    expect(asyncOnly.asyncReads).toBe(1);
  });

  it("after yieldEveryMs of synchronous reads, the next read waits for the event loop", async () => {
    let clock = 0;
    const inner = new CountingSource(100);
    inner.onSyncRead = () => {
      clock += 3; // each synchronous read takes 3 ms
    };
    const eager = new EagerByteSource(inner, { yieldEveryMs: 10, now: () => clock });
    const kinds: string[] = [];
    for (let i = 0; i < 10; i++) {
      const before = inner.asyncReads;
      await eager.read(i, 1);
      kinds.push(inner.asyncReads > before ? "wait" : "sync");
    }
    // Reads at 0, 3, 6, 9 ms are synchronous; at 12 ms one waits, and the count starts again.
    expect(kinds).toEqual(["sync", "sync", "sync", "sync", "wait", "sync", "sync", "sync", "sync", "wait"]);
  });

  it("gives the same bytes and errors as the inner source for any reads (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 64 }),
        fc.array(fc.tuple(fc.integer({ min: -2, max: 70 }), fc.integer({ min: 0, max: 20 })), { maxLength: 30 }),
        fc.integer({ min: 0, max: 16 }),
        async (size, reads, maxSyncBytes) => {
          let clock = 0;
          const inner = new CountingSource(size);
          inner.onSyncRead = () => {
            clock += 1;
          };
          const reference = new CountingSource(size, "async-only");
          const eager = new EagerByteSource(inner, { maxSyncBytes, yieldEveryMs: 4, now: () => clock });
          for (const [offset, length] of reads) {
            const expected = await reference.read(offset, length).then(
              (bytes) => ({ bytes: [...bytes] }),
              (err: unknown) => ({ error: String(err) }),
            );
            const got = await eager.read(offset, length).then(
              (bytes) => ({ bytes: [...bytes] }),
              (err: unknown) => ({ error: String(err) }),
            );
            expect(got).toEqual(expected);
          }
          // No run of synchronous reads lasts the yield interval without one that waited.
          expect(inner.syncReads).toBeLessThanOrEqual(4 * (inner.asyncReads + 1));
        },
      ),
    );
  });
});
