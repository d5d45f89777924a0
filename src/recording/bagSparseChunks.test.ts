// The bag reader's sparse reads of uncompressed chunks (only the spans their index data records
// name for the wanted connections) against its whole-chunk reads of the same bags: through the
// bag's index, and in a scan of a bag without one (a killed recorder's), whose chunks are still
// followed by their index data records.
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { BagRecording, type BagChunkReads } from "./BagRecording";
import { RecordingError } from "./RecordingError";
import { BLOCK_BYTES } from "./SmallReadCache";
import { parseIndexDataRecords } from "./bagIndexData";
import { FIRST_RECORD } from "./bagRecords";
import { loadDecompressors } from "./decompress";
import { mulberry32Uint } from "../testing/random";
import { bagFieldAt, writeBag, type BagFixture, type BagFixtureConnection, type BagFixtureMessage } from "./testing/bagFixtures";
import { ReadSizeProbe } from "./testing/readSizeProbe";

/** What a read delivered, in order, and the damages it ended with. */
interface ReadOutcome {
  readonly messages: readonly { topic: string; sec: number; nsec: number; data: Uint8Array }[];
  readonly damages: readonly { offset: number | undefined; reason: string }[];
  /** Bytes read while reading messages (opening excluded). */
  readonly bytesRead: number;
}

async function read(bytes: Uint8Array, topics: readonly string[] | undefined, chunkReads: BagChunkReads): Promise<ReadOutcome> {
  const probe = new ReadSizeProbe(bytes);
  const recording = await BagRecording.open(probe, await loadDecompressors(), { chunkReads });
  // The unindexed bags' header says index_pos 0: they are read by a scan.
  expect(recording.info.indexed).toBe(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(bagFieldAt(bytes, FIRST_RECORD, "index_pos"), true) !== 0n);
  const opened = probe.bytesRead;
  const messages: { topic: string; sec: number; nsec: number; data: Uint8Array }[] = [];
  let damages: { offset: number | undefined; reason: string }[] = [];
  try {
    for await (const m of recording.messages({ topics, decode: false })) {
      messages.push({ topic: m.topic, sec: m.receiveTime.sec, nsec: m.receiveTime.nsec, data: m.data.slice() });
    }
  } catch (err) {
    if (!(err instanceof RecordingError)) {
      throw err;
    }
    damages = err.damages.map(({ offset, reason }) => ({ offset, reason }));
  }
  return { messages, damages, bytesRead: probe.bytesRead - opened };
}

/** Where each chunk's index data records lie: from the chunk's end to the next chunk (or the index). */
function indexDataRanges(bag: BagFixture): { start: number; end: number }[] {
  return bag.chunks.map((c, i) => ({ start: c.end, end: bag.chunks[i + 1]?.offset ?? bag.indexPos }));
}

/** The byte positions of every entry (time, offset) of every chunk's index data records. */
function entryBytes(bag: BagFixture): number[] {
  const view = new DataView(bag.bytes.buffer, bag.bytes.byteOffset, bag.bytes.byteLength);
  const out: number[] = [];
  for (const { start, end } of indexDataRanges(bag)) {
    for (let at = start; at < end; ) {
      const dataStart = at + 8 + view.getUint32(at, true);
      const dataEnd = dataStart + view.getUint32(dataStart - 4, true);
      for (let b = dataStart; b < dataEnd; b++) {
        out.push(b);
      }
      at = dataEnd;
    }
  }
  return out;
}

function connections(n: number): BagFixtureConnection[] {
  return [...Array(n).keys()].map((i) => ({ topic: `/t${i}`, type: "test_msgs/Bytes", definition: "uint8[] data" }));
}

function payload(seed: number, length: number): Uint8Array {
  const next = mulberry32Uint(seed);
  return Uint8Array.from({ length }, () => next() & 0xff);
}

/**
 * A random uncompressed bag: 1–5 connections, messages of 0–20 KiB in random chunks, a wanted
 * topic subset; with an index, or without one (`noIndex`).
 */
const bagsOf = ({ noIndex }: { noIndex: boolean }) => fc
  .record({
    connectionCount: fc.integer({ min: 1, max: 5 }),
    messages: fc.array(
      fc.record({ conn: fc.nat(), sec: fc.integer({ min: 1, max: 20 }), nsec: fc.integer({ min: 0, max: 999_999_999 }), size: fc.integer({ min: 0, max: 20 * 1024 }), seed: fc.nat() }),
      { minLength: 1, maxLength: 60 },
    ),
    perChunk: fc.integer({ min: 1, max: 40 }),
    wantedMask: fc.nat({ max: 31 }),
    tuning: fc.constantFrom<BagChunkReads["spans"]>(undefined, { mergeGap: 0 }, { mergeGap: 1024, maxShare: 1 }),
  })
  .map(({ connectionCount, messages, perChunk, wantedMask, tuning }) => {
    const conns = connections(connectionCount);
    const written: BagFixtureMessage[] = messages.map((m) => ({ conn: m.conn % connectionCount, sec: m.sec, nsec: m.nsec, data: payload(m.seed, m.size) }));
    const topics = conns.map((c) => c.topic).filter((_, i) => ((wantedMask >> i) & 1) === 1);
    return { bag: writeBag(conns, written, { perChunk, noIndex }), topics, tuning };
  });

describe.each([
  { read: "indexed", noIndex: false },
  { read: "unindexed (read by a scan)", noIndex: true },
])("an uncompressed $read bag read for some topics", ({ noIndex }) => {
  const bags = bagsOf({ noIndex });
  it("delivers exactly what whole-chunk reads deliver, reading at most their bytes plus the index data records", async () => {
    let sparser = 0;
    await fc.assert(
      fc.asyncProperty(bags, async ({ bag, topics, tuning }) => {
        const whole = await read(bag.bytes, topics, { whole: true });
        const sparse = await read(bag.bytes, topics, { spans: tuning });
        expect(sparse.messages).toEqual(whole.messages);
        expect(sparse.damages).toEqual([]);
        expect(whole.damages).toEqual([]);
        const indexData = indexDataRanges(bag).reduce((sum, r) => sum + r.end - r.start, 0);
        // A scan reads record headers in blocks (`SmallReadCache`): those after a chunk once more
        // to plan its spans (its index data records and the next chunk's), and the message record
        // header its first index entry names, to check the chunk's length.
        const scanChecks = noIndex ? bag.chunks.length * 2 * BLOCK_BYTES : 0;
        expect(sparse.bytesRead).toBeLessThanOrEqual(whole.bytesRead + indexData + scanChecks);
        if (sparse.bytesRead < whole.bytesRead) {
          sparser++;
        }
      }),
      // A fixed seed, as the count below is of these runs: with a random one, a scan's sparse
      // reads were 10–16 of 150.
      { numRuns: 150, seed: 15 },
    );
    // The property holds of the sparse reads themselves, not only of fallbacks to whole chunks. (A
    // scan reads fewer of these small bags sparsely: the chunk defining a connection is read
    // whole, and its extra header reads outweigh what a small chunk saves.)
    expect(sparser).toBeGreaterThan(noIndex ? 0 : 10);
  });

  it("with bytes of the index data records flipped, delivers what whole-chunk reads of the damaged bag deliver", async () => {
    const flip = fc.record({ inEntries: fc.boolean(), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) });
    const spans = fc.constantFrom<BagChunkReads["spans"]>(undefined, { mergeGap: 0, maxShare: 1 }, { mergeGap: 1024, maxShare: 1 });
    let fellBack = 0;
    await fc.assert(
      fc.asyncProperty(bags, fc.array(flip, { minLength: 1, maxLength: 6 }), spans, async ({ bag, topics }, flips, tuning) => {
        // Any byte of the records, or (more often hit by damage that still parses) one of their entries.
        const anywhere = indexDataRanges(bag).flatMap((r) => [...Array(r.end - r.start).keys()].map((i) => r.start + i));
        const inEntries = entryBytes(bag);
        const bytes = bag.bytes.slice();
        for (const { inEntries: targeted, at, mask } of flips) {
          const places = targeted && inEntries.length > 0 ? inEntries : anywhere;
          bytes[places[at % places.length]!]! ^= mask;
        }
        const whole = await read(bytes, topics, { whole: true });
        const sparse = await read(bytes, topics, { spans: tuning });
        expect(sparse.messages).toEqual(whole.messages);
        expect(sparse.damages).toEqual(whole.damages);
        if (sparse.bytesRead > whole.bytesRead) {
          fellBack++;
        }
      }),
      // A fixed seed, as the count below is of these runs: with a random one, a scan fell back in
      // 1–7 of 200 runs, in none about once in 50.
      { numRuns: 200, seed: 15 },
    );
    // Some damage passed the index data's own checks and was caught only by the records read.
    expect(fellBack).toBeGreaterThan(0);
  });

  it("a small topic next to one of 200 KiB messages is read in under 10 % of the file", async () => {
    const conns = connections(2);
    const messages: BagFixtureMessage[] = [];
    for (let i = 0; i < 40; i++) {
      messages.push({ conn: 0, sec: 10 + i, nsec: 0, data: payload(i, 200 * 1024) });
      messages.push({ conn: 1, sec: 10 + i, nsec: 5, data: payload(1000 + i, 64) });
    }
    const bag = writeBag(conns, messages, { perChunk: 8, noIndex });
    const whole = await read(bag.bytes, ["/t1"], { whole: true });
    const sparse = await read(bag.bytes, ["/t1"], {});
    expect(sparse.messages).toEqual(whole.messages);
    expect(sparse.messages).toHaveLength(40);
    expect(whole.bytesRead).toBeGreaterThan(0.9 * bag.bytes.byteLength);
    // A scan reads whole the chunk that holds the connection records (here the first).
    const definingChunk = noIndex ? bag.chunks[0]!.end - bag.chunks[0]!.offset : 0;
    expect(sparse.bytesRead).toBeLessThan(0.1 * bag.bytes.byteLength + definingChunk);
  });

  describe("a wanted message record whose receive time is impossible (nsec >= 1e9) is reported as whole-chunk reads report it", () => {
    const conns = connections(2);
    const messages: BagFixtureMessage[] = [...Array(20).keys()].map((i) => ({ conn: i % 2, sec: 10 + i, nsec: 0, data: payload(i, i % 2 === 0 ? 4096 : 16) }));
    const bag = writeBag(conns, messages, { perChunk: 20, noIndex });
    const chunk = bag.chunks[0]!;
    const u32At = (at: number): number => new DataView(bag.bytes.buffer).getUint32(at, true);
    const dataOffset = chunk.offset + 8 + u32At(chunk.offset);
    const entry = parseIndexDataRecords(bag.bytes.subarray(chunk.end), 2)!.find((x) => x.conn === 1)!.entries[3]!;
    /** Where the nsec of that entry lies: in connection 1's index data record after the chunk. */
    let entryNsecAt = chunk.end;
    while (u32At(bagFieldAt(bag.bytes, entryNsecAt, "conn")) !== 1) {
      entryNsecAt += 8 + u32At(entryNsecAt) + u32At(entryNsecAt + 4 + u32At(entryNsecAt));
    }
    entryNsecAt += 8 + u32At(entryNsecAt) + 3 * 12 + 4;

    it.each([
      ["in the record only", false],
      ["in the record and its index entry", true],
    ])("%s", async (_what, inIndex) => {
      const bytes = bag.bytes.slice();
      const view = new DataView(bytes.buffer);
      view.setUint32(bagFieldAt(bytes, dataOffset + entry.offset, "time") + 4, 1_000_000_001, true);
      if (inIndex) {
        expect(view.getUint32(entryNsecAt, true)).toBe(entry.time.nsec);
        view.setUint32(entryNsecAt, 1_000_000_001, true);
      }
      const whole = await read(bytes, ["/t1"], { whole: true });
      const sparse = await read(bytes, ["/t1"], { spans: { mergeGap: 0 } });
      expect(whole.damages.map((d) => d.reason)).toEqual(["1 message records have an impossible receive time (nsec >= 1e9) and were skipped"]);
      expect(sparse).toEqual({ ...whole, bytesRead: sparse.bytesRead });
    });
  });
});
