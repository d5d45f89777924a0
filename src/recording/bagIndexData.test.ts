import { describe, expect, it } from "vitest";

import { indexDataReadSize, parseIndexDataRecords } from "./bagIndexData";
import { OP_CHUNK_INFO, OP_INDEX_DATA } from "./bagRecords";
import { ByteParts, indexDataRecord, opField, record, u32 } from "./testing/bagRecordEncoding";

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new ByteParts();
  for (const p of parts) {
    out.add(p);
  }
  return out.concat();
}

const A = indexDataRecord(3, [
  { sec: 1, nsec: 2, offset: 10 },
  { sec: 4, nsec: 5, offset: 90 },
]);
const B = indexDataRecord(7, [{ sec: 6, nsec: 7, offset: 50 }]);

describe("parseIndexDataRecords", () => {
  it("reads the first n records in their order; bytes after them are not looked at", () => {
    expect(parseIndexDataRecords(concat(A, B, new Uint8Array(9).fill(0xff)), 2)).toEqual([
      { conn: 3, entries: [{ time: { sec: 1, nsec: 2 }, offset: 10 }, { time: { sec: 4, nsec: 5 }, offset: 90 }] },
      { conn: 7, entries: [{ time: { sec: 6, nsec: 7 }, offset: 50 }] },
    ]);
  });

  it("a header with a field more than rosbag writes is still read", () => {
    const extra = record([opField(OP_INDEX_DATA), ["ver", u32(1)], ["conn", u32(2)], ["count", u32(0)], ["note", u32(9)]], new Uint8Array());
    expect(parseIndexDataRecords(extra, 1)).toEqual([{ conn: 2, entries: [] }]);
  });

  it.each<[string, Uint8Array, number]>([
    ["fewer records than asked for", A, 2],
    ["a record cut off", A.subarray(0, A.byteLength - 1), 1],
    ["a header cut off", A.subarray(0, 20), 1],
    ["another op", record([opField(OP_CHUNK_INFO), ["ver", u32(1)], ["conn", u32(2)], ["count", u32(0)]], new Uint8Array()), 1],
    ["version 2", record([opField(OP_INDEX_DATA), ["ver", u32(2)], ["conn", u32(2)], ["count", u32(0)]], new Uint8Array()), 1],
    ["no conn", record([opField(OP_INDEX_DATA), ["ver", u32(1)], ["count", u32(0)]], new Uint8Array()), 1],
    ["a count other than the data holds", record([opField(OP_INDEX_DATA), ["ver", u32(1)], ["conn", u32(2)], ["count", u32(2)]], new Uint8Array(12)), 1],
    ["a header field length past the header", Uint8Array.of(8, 0, 0, 0, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1],
  ])("%s: undefined", (_what, bytes, n) => {
    expect(parseIndexDataRecords(bytes, n)).toBeUndefined();
  });
});

describe("indexDataReadSize", () => {
  it("covers rosbag's records of the counts with room to spare, never past the room there is", () => {
    const counts = [{ count: 2 }, { count: 1 }];
    expect(indexDataReadSize(counts, 1 << 20)).toBeGreaterThanOrEqual(A.byteLength + B.byteLength);
    expect(indexDataReadSize(counts, 40)).toBe(40);
    expect(indexDataReadSize(counts, -5)).toBe(0);
  });
});
