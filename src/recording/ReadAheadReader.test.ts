import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { READ_AHEAD_LIMIT, ReadAheadReader } from "./ReadAheadReader";

const PAGE = 4096;

/** A file of `size` bytes that records every read made of it. */
function recordedFile(size: number, seed: number): { bytes: Uint8Array; reads: number[]; readSync: (offset: number, length: number) => Uint8Array } {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    bytes[i] = (i * 31 + seed) & 0xff;
  }
  const reads: number[] = [];
  return {
    bytes,
    reads,
    readSync: (offset, length) => {
      reads.push(length);
      return bytes.slice(offset, offset + length);
    },
  };
}

/** Page reads as SQLite makes them: runs of consecutive pages from random places. */
const walks = (pages: number): fc.Arbitrary<{ page: number; run: number }[]> =>
  fc.array(fc.record({ page: fc.nat({ max: pages - 1 }), run: fc.integer({ min: 1, max: 200 }) }), { minLength: 1, maxLength: 30 });

describe("ReadAheadReader", () => {
  it("returns exactly the bytes asked for, in a buffer that holds only them, whatever the order of reads", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), walks(400), fc.nat(255), (pages, steps, seed) => {
        const file = recordedFile(pages * PAGE, seed);
        const reader = new ReadAheadReader(file.bytes.byteLength, file.readSync);
        for (const { page, run } of steps) {
          for (let p = page % pages; p < Math.min(pages, (page % pages) + run); p++) {
            const got = reader.read(p * PAGE, (p + 1) * PAGE);
            if (got.buffer.byteLength !== PAGE || Buffer.compare(got, file.bytes.subarray(p * PAGE, (p + 1) * PAGE)) !== 0) {
              throw new Error(`page ${p}: wrong bytes (${got.byteLength} in a buffer of ${got.buffer.byteLength})`);
            }
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it("never reads more than the limit at once, and at most three times what was asked for in all", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), walks(400), (pages, steps) => {
        const file = recordedFile(pages * PAGE, 0);
        const reader = new ReadAheadReader(file.bytes.byteLength, file.readSync);
        let asked = 0;
        for (const { page, run } of steps) {
          for (let p = page % pages; p < Math.min(pages, (page % pages) + run); p++) {
            reader.read(p * PAGE, (p + 1) * PAGE);
            asked += PAGE;
          }
        }
        expect(Math.max(...file.reads)).toBeLessThanOrEqual(READ_AHEAD_LIMIT);
        expect(file.reads.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3 * asked);
      }),
      { numRuns: 150 },
    );
  });

  it("a long walk over consecutive pages costs few reads (the read-ahead doubles up to the limit)", () => {
    const pages = 1024; // 4 MiB
    const file = recordedFile(pages * PAGE, 0);
    const reader = new ReadAheadReader(file.bytes.byteLength, file.readSync);
    for (let p = 0; p < pages; p++) {
      reader.read(p * PAGE, (p + 1) * PAGE);
    }
    // 1 page, then 2, 4, ... 64 pages (256 KiB) per read: 22 reads instead of 1,024.
    expect(file.reads.length).toBeLessThan(30);
    expect(file.reads.reduce((a, b) => a + b, 0)).toBe(pages * PAGE);
  });

  it("a source that hands out Node Buffers (whose slice is a view) still gets arrays of their own", () => {
    const file = recordedFile(64 * PAGE, 3);
    const reader = new ReadAheadReader(file.bytes.byteLength, (offset, length) => Buffer.from(file.bytes.buffer, offset, length));
    for (let p = 0; p < 64; p++) {
      const got = reader.read(p * PAGE, (p + 1) * PAGE);
      expect(got.buffer.byteLength).toBe(PAGE);
      expect(Buffer.compare(got, file.bytes.subarray(p * PAGE, (p + 1) * PAGE))).toBe(0);
    }
  });

  it("a failed read is an empty result, and the first failure is named with its offset", () => {
    const file = recordedFile(16 * PAGE, 0);
    let fail = false;
    const reader = new ReadAheadReader(file.bytes.byteLength, (offset, length) => {
      if (fail) {
        throw new Error("EIO: i/o error, read");
      }
      return file.readSync(offset, length);
    });
    expect(reader.read(0, PAGE).byteLength).toBe(PAGE);
    fail = true;
    expect(reader.read(8 * PAGE, 9 * PAGE).byteLength).toBe(0);
    expect(reader.read(12 * PAGE, 13 * PAGE).byteLength).toBe(0);
    expect(reader.problem).toBe(`reading 4096 bytes at byte offset ${8 * PAGE} failed: EIO: i/o error, read`);
  });
});
