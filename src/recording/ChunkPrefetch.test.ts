import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ChunkPrefetch } from "./ChunkPrefetch";

/** What a take settled as: a value or an error's message. */
type Outcome = { value: string } | { error: string };

async function outcome(p: Promise<string>): Promise<Outcome> {
  try {
    return { value: await p };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe("ChunkPrefetch", () => {
  it("every take settles as preparing a fresh read would, whatever was worked on ahead", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(5), { minLength: 1, maxLength: 12 }),
        fc.array(fc.array(fc.nat(5), { maxLength: 3 }), { minLength: 12, maxLength: 12 }),
        fc.uniqueArray(fc.nat(5)),
        fc.uniqueArray(fc.nat(5)),
        async (taken, upcomingLists, failingReads, failingPrepares) => {
          const reads: number[] = [];
          const read = async (chunk: number): Promise<Uint8Array> => {
            reads.push(chunk);
            await Promise.resolve();
            if (failingReads.includes(chunk)) {
              throw new Error(`read ${chunk} failed`);
            }
            return Uint8Array.of(chunk);
          };
          const prepare = async (chunk: number, bytes: Uint8Array): Promise<string> => {
            await new Promise((resolve) => setTimeout(resolve, 0));
            if (failingPrepares.includes(chunk)) {
              throw new Error(`prepare ${chunk} failed`);
            }
            return `chunk ${chunk} from byte ${bytes[0]!}`;
          };
          const prefetch = new ChunkPrefetch(read, prepare);
          for (const [k, chunk] of taken.entries()) {
            const got = await outcome(prefetch.take(chunk, upcomingLists[k]!));
            const expected = await outcome((async () => await prepare(chunk, await read(chunk)))());
            expect(got).toEqual(expected);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("taking the chunks it was told of reads each once, two ahead, and never more", async () => {
    const reads: number[] = [];
    let reading = 0;
    let mostAtOnce = 0;
    const prefetch = new ChunkPrefetch<number, number>(
      async (chunk) => {
        reads.push(chunk);
        mostAtOnce = Math.max(mostAtOnce, ++reading);
        await new Promise((resolve) => setTimeout(resolve, 0));
        reading--;
        return Uint8Array.of(chunk);
      },
      async (_chunk, bytes) => await Promise.resolve(bytes[0]!),
    );
    const order = [3, 1, 4, 0, 5, 9, 2, 6];
    const got: number[] = [];
    const readWhenTaken: number[] = [];
    for (const [k, chunk] of order.entries()) {
      got.push(await prefetch.take(chunk, order.slice(k + 1, k + 3)));
      readWhenTaken.push(reads.length);
    }
    expect(got).toEqual(order);
    // By the time chunk k is handed out, chunks k+1 and k+2 are being read.
    expect(readWhenTaken).toEqual(order.map((_chunk, k) => Math.min(k + 3, order.length)));
    expect(reads).toEqual(order);
    expect(mostAtOnce).toBeLessThanOrEqual(3);
  });
});
