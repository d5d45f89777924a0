import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { mergeChunks, ScanMerge } from "./ChunkMerge";

interface Item {
  readonly id: number;
  readonly time: { sec: number; nsec: number };
}

/** Chunks in file order whose first (earliest) times do not decrease, with many equal times. */
const chunksArb = fc
  .array(fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 2 })), { minLength: 0, maxLength: 8 }), { maxLength: 8 })
  .map((chunks) => {
    let id = 0;
    const withIds = chunks.map((c) => c.map(([sec, nsec]) => ({ id: id++, time: { sec, nsec } })));
    const start = (c: Item[]): number => (c.length === 0 ? -1 : Math.min(...c.map((i) => i.time.sec * 10 + i.time.nsec)));
    // (stable sort of the chunks by start time keeps the file order of equal starts)
    return withIds.sort((a, b) => start(a) - start(b));
  });

function byTime(a: Item, b: Item): number {
  return a.time.sec !== b.time.sec ? a.time.sec - b.time.sec : a.time.nsec - b.time.nsec;
}

/** The oracle: every item in file order, stably sorted by time (DESIGN §2, "Recording order"). */
function stableSorted(chunks: Item[][]): number[] {
  return chunks
    .flat()
    .sort((a, b) => byTime(a, b))
    .map((i) => i.id);
}

describe("recording order: receive time, ties in file order", () => {
  it("ScanMerge (no index, one pass) gives the stable sort of the file when chunks start in time order", () => {
    fc.assert(
      fc.property(chunksArb, (chunks) => {
        const merge = new ScanMerge<Item>();
        const out: number[] = [];
        chunks.forEach((c, k) => {
          out.push(...merge.add([...c], k * 100).map((x) => x.item.id));
        });
        out.push(...merge.finish().map((x) => x.item.id));
        expect(out).toEqual(stableSorted(chunks));
      }),
      { numRuns: 300 },
    );
  });

  it("ScanMerge returns each message with its chunk's offset, and never loses one when a chunk starts early", () => {
    const merge = new ScanMerge<Item>();
    const at = (id: number, sec: number): Item => ({ id, time: { sec, nsec: 0 } });
    expect(merge.add([at(0, 5), at(1, 9)], 10).map((x) => x.item.id)).toEqual([]);
    expect(merge.add([at(2, 7)], 20).map((x) => [x.item.id, x.offset])).toEqual([[0, 10]]);
    // starts before what was returned: its early message comes late, but it comes
    expect(merge.add([at(3, 1), at(4, 8)], 30).map((x) => x.item.id)).toEqual([]);
    expect(merge.finish().map((x) => [x.item.id, x.offset])).toEqual([
      [3, 30],
      [2, 20],
      [4, 30],
      [1, 10],
    ]);
  });

  it("mergeChunks (indexed) gives the same order as ScanMerge on the same chunks", async () => {
    await fc.assert(
      fc.asyncProperty(chunksArb, async (chunks) => {
        const refs = chunks
          .map((items, k) => ({ items, offset: k * 100 }))
          .filter((c) => c.items.length > 0)
          .map((c) => {
            const first = [...c.items].sort((a, b) => byTime(a, b))[0]!;
            return { ...c, startTime: first.time };
          });
        const out: number[] = [];
        for await (const { item } of mergeChunks(refs, async (c) => await Promise.resolve([...c.items]))) {
          out.push(item.id);
        }
        expect(out).toEqual(stableSorted(chunks));
      }),
      { numRuns: 200 },
    );
  });
});
