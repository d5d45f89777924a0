import { describe, expect, it } from "vitest";

import { SPAN_MERGE_GAP, planChunkSpans, sparseReadWorthTrying, type ChunkConnectionIndex } from "./bagChunkSpans";

/** A chunk whose data is 10 000 bytes at file offset 1000. */
const LAYOUT = { dataOffset: 1000, dataLength: 10_000 };

function index(conn: number, offsets: readonly number[], sec = 5): ChunkConnectionIndex {
  return { conn, entries: offsets.map((offset, i) => ({ time: { sec, nsec: i }, offset })) };
}

function countsOf(indexes: readonly ChunkConnectionIndex[]): { conn: number; count: number }[] {
  return indexes.map(({ conn, entries }) => ({ conn, count: entries.length }));
}

/** Connection 0: small records at 100, 2100, 4100, 6100, 8100; connection 1: large ones in between. */
const INTERLEAVED = [index(0, [100, 2100, 4100, 6100, 8100]), index(1, [200, 2200, 4200, 6200, 8200])];

function plan(indexes: readonly ChunkConnectionIndex[], wanted: readonly number[], mergeGap = 0, maxShare?: number): ReturnType<typeof planChunkSpans> {
  return planChunkSpans(LAYOUT, indexes, countsOf(indexes), new Set(wanted), { mergeGap, maxShare });
}

describe("planChunkSpans", () => {
  it("each wanted record runs to the next indexed record, in file offsets, with the records it holds", () => {
    const spans = plan(INTERLEAVED, [0]);
    expect(spans?.map((s) => [s.start, s.end, s.startInChunk])).toEqual([
      [1100, 1200, 100],
      [3100, 3200, 2100],
      [5100, 5200, 4100],
      [7100, 7200, 6100],
      [9100, 9200, 8100],
    ]);
    expect(spans?.[1]?.records).toEqual([{ conn: 0, time: { sec: 5, nsec: 1 }, offset: 2100 }]);
  });

  it("the last record of the chunk runs to the end of the chunk's data; the first starts at its own offset", () => {
    const spans = plan([index(0, [0, 9000]), index(1, [100, 5000])], [0]);
    expect(spans?.map((s) => [s.start, s.end])).toEqual([
      [1000, 1100],
      [10_000, 11_000],
    ]);
  });

  it("adjacent wanted records are one span, even with no merge gap", () => {
    const spans = plan([index(0, [100, 300, 500]), index(1, [700, 9000])], [0]);
    expect(spans?.map((s) => [s.start, s.end, s.records.map((r) => r.offset)])).toEqual([[1100, 1700, [100, 300, 500]]]);
  });

  it("gaps below the merge gap are read with the spans around them, their records listed too", () => {
    expect(plan(INTERLEAVED, [0], 1900, 1)).toHaveLength(5);
    expect(plan(INTERLEAVED, [0], 1901, 1)?.map((s) => [s.start, s.end])).toEqual([[1100, 9200]]);
    const spans = plan([index(0, [100, 2100, 8100]), index(1, [200, 2200])], [0], 1901, 1);
    expect(spans?.map((s) => [s.start, s.end])).toEqual([
      [1100, 3200],
      [9100, 11_000],
    ]);
    expect(spans?.[0]?.records.map((r) => [r.conn, r.offset])).toEqual([
      [0, 100],
      [1, 200],
      [0, 2100],
    ]);
  });

  it("entries are taken in offset order whatever order the index data records come in", () => {
    const spans = plan([index(1, [200, 2200, 4200, 6200, 8200]), index(0, [100, 2100, 4100, 6100, 8100])], [0]);
    expect(spans?.map((s) => s.start)).toEqual([1100, 3100, 5100, 7100, 9100]);
  });

  it("no wanted record in the chunk: nothing to read", () => {
    expect(plan(INTERLEAVED, [7])).toEqual([]);
  });

  it("spans covering more than the share (default half) of the data: read the whole chunk", () => {
    expect(plan(INTERLEAVED, [1])).toBeUndefined();
    expect(plan(INTERLEAVED, [0], 0, 0.04)).toBeUndefined();
    expect(plan(INTERLEAVED, [0], 0, 0.05)).toHaveLength(5);
    expect(plan(INTERLEAVED, [0, 1])).toBeUndefined();
  });

  it.each<[string, ChunkConnectionIndex[], { conn: number; count: number }[] | undefined]>([
    ["an offset at the end of the data", [index(0, [100, 10_000]), index(1, [200])], undefined],
    ["an offset past the data", [index(0, [100, 20_000]), index(1, [200])], undefined],
    ["a negative offset", [index(0, [-1, 100]), index(1, [200])], undefined],
    ["a fractional offset", [index(0, [100.5]), index(1, [200])], undefined],
    ["two records at one offset, one connection", [index(0, [100, 100]), index(1, [200])], undefined],
    ["two records at one offset, two connections", [index(0, [100, 300]), index(1, [300])], undefined],
    ["a count other than the chunk info's", INTERLEAVED, [{ conn: 0, count: 5 }, { conn: 1, count: 4 }]],
    ["a connection the chunk info does not list", INTERLEAVED, [{ conn: 0, count: 5 }]],
    ["a connection of the chunk info without index data", [index(0, [100])], [{ conn: 0, count: 1 }, { conn: 1, count: 1 }]],
    ["a connection listed twice by the chunk info", [index(0, [100])], [{ conn: 0, count: 1 }, { conn: 0, count: 1 }]],
    ["two index data records of one connection", [index(0, [100]), index(0, [300])], [{ conn: 0, count: 1 }, { conn: 1, count: 1 }]],
  ])("%s: read the whole chunk", (_what, indexes, counts) => {
    expect(planChunkSpans(LAYOUT, indexes, counts ?? countsOf(indexes), new Set([0]), { mergeGap: 0 })).toBeUndefined();
  });

  it("an entry whose receive time is not a time: read the whole chunk, which reports it", () => {
    const bad: ChunkConnectionIndex = { conn: 1, entries: [{ time: { sec: 1, nsec: 1_000_000_000 }, offset: 200 }] };
    expect(plan([index(0, [100]), bad], [0])).toBeUndefined();
  });
});

describe("sparseReadWorthTrying", () => {
  it("from two merge gaps of data on", () => {
    expect(sparseReadWorthTrying(2 * SPAN_MERGE_GAP - 1)).toBe(false);
    expect(sparseReadWorthTrying(2 * SPAN_MERGE_GAP)).toBe(true);
    expect(sparseReadWorthTrying(2047, { mergeGap: 1024 })).toBe(false);
    expect(sparseReadWorthTrying(0, { mergeGap: 0 })).toBe(true);
  });
});
