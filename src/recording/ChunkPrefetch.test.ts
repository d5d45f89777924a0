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
        fc.array(fc.array(fc.nat(5), { maxLength: 5 }), { minLength: 12, maxLength: 12 }),
        fc.uniqueArray(fc.nat(5)),
        fc.uniqueArray(fc.nat(5)),
        fc.integer({ min: 1, max: 3 }),
        async (taken, upcomingLists, failingReads, failingPrepares, preparedAhead) => {
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
          const prefetch = new ChunkPrefetch(read, prepare, preparedAhead);
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

  for (const preparedAhead of [1, 3]) {
    it(`taking the chunks it was told of reads each once, ${preparedAhead + 1} ahead, and never more (${preparedAhead} prepared)`, async () => {
      const reads: number[] = [];
      let reading = 0;
      let mostAtOnce = 0;
      let preparing = 0;
      let mostPreparing = 0;
      const prefetch = new ChunkPrefetch<number, number>(
        async (chunk) => {
          reads.push(chunk);
          mostAtOnce = Math.max(mostAtOnce, ++reading);
          await new Promise((resolve) => setTimeout(resolve, 0));
          reading--;
          return Uint8Array.of(chunk);
        },
        async (_chunk, bytes) => {
          mostPreparing = Math.max(mostPreparing, ++preparing);
          await new Promise((resolve) => setTimeout(resolve, 0));
          preparing--;
          return bytes[0]!;
        },
        preparedAhead,
      );
      expect(prefetch.lookahead).toBe(preparedAhead + 1);
      const order = [3, 1, 4, 0, 5, 9, 2, 6];
      const got: number[] = [];
      const readWhenTaken: number[] = [];
      for (const [k, chunk] of order.entries()) {
        got.push(await prefetch.take(chunk, order.slice(k + 1, k + 1 + prefetch.lookahead)));
        readWhenTaken.push(reads.length);
      }
      expect(got).toEqual(order);
      // By the time chunk k is handed out, chunks k+1 … k+lookahead are being read.
      expect(readWhenTaken).toEqual(order.map((_chunk, k) => Math.min(k + 1 + prefetch.lookahead, order.length)));
      expect(reads).toEqual(order);
      expect(mostAtOnce).toBeLessThanOrEqual(prefetch.lookahead + 1);
      // The one taken and those prepared ahead.
      expect(mostPreparing).toBeLessThanOrEqual(preparedAhead + 1);
      expect(mostPreparing).toBeGreaterThan(1);
    });
  }

  it("refuses to prepare fewer than one chunk ahead", () => {
    const read = async (): Promise<Uint8Array> => await Promise.resolve(new Uint8Array());
    expect(() => new ChunkPrefetch(read, async () => await Promise.resolve(0), 0)).toThrow(/at least one/);
  });
});
