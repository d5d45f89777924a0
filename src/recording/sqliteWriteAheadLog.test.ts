import fc from "fast-check";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ArrayByteSource, type ByteSource } from "./ByteSource";
import { RecordingError } from "./RecordingError";
import { openRosbag2File } from "./Rosbag2Recording";
import { loadDecompressors } from "./decompress";
import { openRecordingFile } from "./openRecordingFile";
import { loadSqlJsNode } from "./sqlJsNode";
import { readSqliteWriteAheadLog } from "./sqliteWriteAheadLog";
import { REPO_ROOT } from "./testing/paths";
import type { RecordedMessage, Recording } from "./types";

// Written by real SQLite (scripts/make-wal-fixture.py): a rosbag2 .db3 with 20 messages in the
// file, 6 committed transactions in its -wal and an unfinished one after them; oracle.json holds
// what SQLite itself reads with each whole-frame prefix of that log beside the file.
const FIXTURES = join(REPO_ROOT, "src/recording/testing/wal");
const CRASHED = join(FIXTURES, "crashed_0.db3");
const FRESH = join(FIXTURES, "fresh_0.db3");

interface Oracle {
  pageSize: number;
  frames: number;
  prefixes: { walBytes: number; rows: number; lastTimestamp: string }[];
  /** What SQLite reads from reused_0.db3 with its log. */
  reused: { rows: number; lastTimestamp: string };
}

let oracle: Oracle;
let database: Uint8Array;
let log: Uint8Array;

beforeAll(async () => {
  oracle = JSON.parse(await readFile(join(FIXTURES, "oracle.json"), "utf8")) as Oracle;
  database = new Uint8Array(await readFile(CRASHED));
  log = new Uint8Array(await readFile(`${CRASHED}-wal`));
});

interface ReadResult {
  messages: RecordedMessage[];
  damages: string[];
  notes: readonly string[];
}

async function readAll(recording: Recording): Promise<ReadResult> {
  const messages: RecordedMessage[] = [];
  const damages: string[] = [];
  try {
    for await (const m of recording.messages({ onDamage: (d) => damages.push(d.reason) })) {
      messages.push(m);
    }
  } catch (err) {
    // Damage is read past and named once at the end; anything else fails the test.
    if (!(err instanceof RecordingError && err.readPast)) {
      throw err;
    }
  }
  return { messages, damages, notes: recording.info.notes ?? [] };
}

/** The fixture's .db3 with `logBytes` beside it, read in memory as Lockstep reads a file. */
async function readWithLog(logBytes: Uint8Array | undefined): Promise<ReadResult> {
  const options = { sqlJs: loadSqlJsNode, decompressors: await loadDecompressors() };
  const recording = await openRosbag2File(
    new ArrayByteSource(database),
    "crashed_0.db3",
    undefined,
    options,
    { writeAheadLog: logBytes == undefined ? undefined : new ArrayByteSource(logBytes) },
  );
  return await readAll(recording);
}

/** `bytes` as a host that cannot read synchronously gives them (a Blob on a browser's main thread). */
function asyncOnly(bytes: Uint8Array): ByteSource {
  const inner = new ArrayByteSource(bytes);
  return { size: inner.size, read: async (offset, length) => await inner.read(offset, length) };
}

/** What SQLite reads with the first `walBytes` bytes of the log: the longest whole-frame prefix within them. */
function sqliteReads(walBytes: number): Oracle["prefixes"][number] {
  const fits = oracle.prefixes.filter((p) => p.walBytes <= walBytes);
  return fits[fits.length - 1]!;
}

function lastReceiveTime(messages: readonly RecordedMessage[]): string {
  const t = messages[messages.length - 1]!.receiveTime;
  return (BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec)).toString();
}

describe("a rosbag2 .db3 with the write-ahead log its recorder left", () => {
  it("reads, for every whole-frame prefix of the log, the rows SQLite reads", async () => {
    expect(oracle.prefixes.length).toBe(oracle.frames + 1);
    for (const prefix of oracle.prefixes) {
      const { messages } = await readWithLog(prefix.walBytes === 0 ? undefined : log.subarray(0, prefix.walBytes));
      expect({ walBytes: prefix.walBytes, rows: messages.length, last: lastReceiveTime(messages) }).toEqual({
        walBytes: prefix.walBytes,
        rows: prefix.rows,
        last: prefix.lastTimestamp,
      });
    }
  });

  it("names the log in the notes and the unfinished transaction after its last commit as damage, at its offset", async () => {
    const whole = oracle.prefixes[oracle.prefixes.length - 1]!;
    const lastCommitEnd = oracle.prefixes.find((p) => p.rows === whole.rows)!.walBytes;
    expect(lastCommitEnd).toBeLessThan(log.byteLength);
    const { messages, damages, notes } = await readWithLog(log);
    expect(messages).toHaveLength(whole.rows);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain("crashed_0.db3-wal");
    expect(notes[0]).toMatch(/committed transactions not yet copied into the file: 6\b/);
    expect(damages).toHaveLength(1);
    expect(damages[0]).toContain(`the ${log.byteLength - lastCommitEnd} bytes from byte ${lastCommitEnd}`);
    expect(damages[0]).toContain("never finished");
  });

  it("reads up to the last whole committed transaction wherever the log is cut (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: log.byteLength }), async (cut) => {
        const { messages, notes } = await readWithLog(log.subarray(0, cut));
        const expected = sqliteReads(cut);
        expect(messages).toHaveLength(expected.rows);
        expect(lastReceiveTime(messages)).toBe(expected.lastTimestamp);
        // A log cut inside its header is ignored and said to be; one without a whole committed
        // transaction (in this log, each adds rows) or an empty one says nothing.
        const committed = expected.rows > oracle.prefixes[0]!.rows;
        expect(notes.length).toBe(committed || (cut > 0 && cut < 32) ? 1 : 0);
      }),
      { numRuns: 40 },
    );
  });

  it("stops at the first frame a changed byte spoils, as SQLite's checksums make it (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: log.byteLength - 1 }), fc.integer({ min: 1, max: 255 }), async (at, flip) => {
        const damaged = log.slice();
        damaged[at] = damaged[at]! ^ flip;
        const { messages } = await readWithLog(damaged);
        // A byte of the header voids the whole log; a byte of frame f ends the log before f.
        const frameBytes = 24 + oracle.pageSize;
        const expected = at < 32 ? oracle.prefixes[0]! : sqliteReads(32 + Math.floor((at - 32) / frameBytes) * frameBytes);
        expect(messages).toHaveLength(expected.rows);
      }),
      { numRuns: 40 },
    );
  });

  it("names a log damaged before later commits as damaged, at the spoiled frame's offset", async () => {
    const frameBytes = 24 + oracle.pageSize;
    // A byte of the page in the log's third frame: the commits after it are not read.
    const frame = 2;
    const damaged = log.slice();
    damaged[32 + frame * frameBytes + 24 + 100]! ^= 0xff;
    const { messages, damages } = await readWithLog(damaged);
    expect(messages).toHaveLength(sqliteReads(32 + frame * frameBytes).rows);
    expect(damages).toHaveLength(1);
    expect(damages[0]).toContain(`the log is damaged at byte ${32 + frame * frameBytes} (a frame whose checksum does not match)`);
    expect(damages[0]).toMatch(/with commits marked after the damage: 6, are not read/);
  });

  it("reads the same from sources that cannot read synchronously (the whole database in memory)", async () => {
    const options = { sqlJs: loadSqlJsNode, decompressors: await loadDecompressors() };
    const recording = await openRosbag2File(asyncOnly(database), "crashed_0.db3", undefined, options, { writeAheadLog: asyncOnly(log) });
    const { messages } = await readAll(recording);
    const inMemory = await readWithLog(log);
    expect(messages.map((m) => m.data)).toEqual(inMemory.messages.map((m) => m.data));
    expect(messages).toHaveLength(oracle.prefixes[oracle.prefixes.length - 1]!.rows);
  });

  it("ignores, and says it ignores, a log that is not this database's", async () => {
    const { messages, notes } = await readWithLog(new Uint8Array(4096).fill(7));
    expect(messages).toHaveLength(oracle.prefixes[0]!.rows);
    expect(notes).toEqual([expect.stringContaining("does not start with a write-ahead log's magic number")]);
    const wrongPageSize = log.slice();
    // The header names 8192-byte pages: its checksum is then wrong too, and either reason voids it.
    new DataView(wrongPageSize.buffer).setUint32(8, 8192);
    expect((await readWithLog(wrongPageSize)).messages).toHaveLength(oracle.prefixes[0]!.rows);
  });
});

describe("a write-ahead log given as the recording", () => {
  it("is named as the .db3's log, with what to open instead", async () => {
    const error: unknown = await openRecordingFile(`${CRASHED}-wal`).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as Error).message).toContain("this is a SQLite write-ahead log (the -wal file a rosbag2 .db3 in WAL mode leaves beside it), not a recording: open the .db3 file or the bag folder");
  });
});

describe("readSqliteWriteAheadLog", () => {
  it("keeps the newest committed copy of each page and the size of the last commit", async () => {
    const read = await readSqliteWriteAheadLog(new ArrayByteSource(log), "x-wal");
    expect(read.ignored).toBeUndefined();
    expect(read.pageSize).toBe(oracle.pageSize);
    expect(read.transactions).toBe(6);
    const frameBytes = 24 + oracle.pageSize;
    for (const [page, at] of read.pages) {
      // Each entry is the start of a page inside a frame of that page number, within the committed part.
      expect((at - 32 - 24) % frameBytes).toBe(0);
      expect(new DataView(log.buffer, log.byteOffset).getUint32(at - 24)).toBe(page);
      expect(at).toBeLessThan(read.uncommitted!.offset);
      // No later committed frame holds the same page.
      for (let later = at + oracle.pageSize; later + 24 <= read.uncommitted!.offset; later += frameBytes) {
        expect(new DataView(log.buffer, log.byteOffset).getUint32(later)).not.toBe(page);
      }
    }
    expect(read.databasePages * read.pageSize).toBeGreaterThan(database.byteLength);
  });
});

describe("a .db3 file with a -wal beside it, opened by path", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lockstep-wal-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // The fixture folder itself, and crashed_0.db3 with its log.
  const onlyCrashed = (src: string): boolean => src === FIXTURES || src.startsWith(CRASHED);

  async function readFile1(path: string): Promise<ReadResult> {
    const recording = await openRecordingFile(path);
    try {
      return await readAll(recording);
    } finally {
      await recording.close();
    }
  }

  it("is read with its log, as a file and as the only file of a bag folder", async () => {
    const whole = oracle.prefixes[oracle.prefixes.length - 1]!;
    expect((await readFile1(CRASHED)).messages).toHaveLength(whole.rows);
    const folder = join(dir, "bag");
    await cp(FIXTURES, folder, { recursive: true, filter: onlyCrashed });
    const read = await readFile1(folder);
    expect(read.messages).toHaveLength(whole.rows);
    expect(read.notes[0]).toContain(join(folder, "crashed_0.db3-wal"));
  });

  it("is read with its log from a folder's metadata.yaml", async () => {
    const folder = join(dir, "listed");
    await cp(FIXTURES, folder, { recursive: true, filter: onlyCrashed });
    await writeFile(
      join(folder, "metadata.yaml"),
      "rosbag2_bagfile_information:\n  version: 5\n  storage_identifier: sqlite3\n  relative_file_paths: [crashed_0.db3]\n  duration: {nanoseconds: 0}\n  starting_time: {nanoseconds_since_epoch: 0}\n  message_count: 0\n  topics_with_message_count: []\n  compression_format: \"\"\n  compression_mode: \"\"\n",
    );
    expect((await readFile1(folder)).messages).toHaveLength(oracle.prefixes[oracle.prefixes.length - 1]!.rows);
  });

  it("reads a bag never checkpointed, whose .db3 holds only its first page", async () => {
    const read = await readFile1(FRESH);
    expect(read.messages).toHaveLength(10);
    expect(read.damages).toEqual([]);
  });

  it("reads a log SQLite reused after a checkpoint as SQLite does: the current transactions, not the older frames after them", async () => {
    const path = join(FIXTURES, "reused_0.db3");
    const read = await readFile1(path);
    expect(read.messages).toHaveLength(oracle.reused.rows);
    expect(lastReceiveTime(read.messages)).toBe(oracle.reused.lastTimestamp);
    // The older generation's frames are not an unfinished transaction.
    expect(read.damages).toEqual([]);
    const bytes = new Uint8Array(await readFile(`${path}-wal`));
    const reusedLog = await readSqliteWriteAheadLog(new ArrayByteSource(bytes), "reused-wal");
    expect(reusedLog.transactions).toBeGreaterThan(0);
    expect(reusedLog.uncommitted).toBeUndefined();
    expect(32 + reusedLog.committedFrames * (24 + reusedLog.pageSize)).toBeLessThan(bytes.byteLength);
  });

  it("reads the .db3 alone, and says nothing of a log, when there is none", async () => {
    const alone = join(dir, "alone_0.db3");
    await cp(CRASHED, alone);
    const read = await readFile1(alone);
    expect(read.messages).toHaveLength(oracle.prefixes[0]!.rows);
    expect(read.notes).toEqual([]);
  });
});
