import { describe, expect, it } from "vitest";

import { BlobByteSource, checkRange, type ByteSource } from "./ByteSource";
import { RecordingError } from "./RecordingError";
import { openRecording } from "./openRecording";
import { loadSqlJsNode } from "./sqlJsNode";
import { openSqliteDatabase } from "./sqliteDatabaseFile";
import { ReadSizeProbe } from "./testing/readSizeProbe";
import { stringMessage, writeDb3, type FixtureRow } from "./testing/rosbag2Fixtures";
import type { RecordedMessage } from "./types";

const TOPICS = [
  { name: "/small", type: "std_msgs/msg/String" },
  { name: "/large", type: "std_msgs/msg/String" },
];

/** Small messages on /small and, every 50th row, a 40 kB one on /large (SQLite overflow pages). */
function rows(n: number): FixtureRow[] {
  return Array.from({ length: n }, (_, k) => {
    const large = k % 50 === 0;
    return {
      topicId: large ? 2 : 1,
      // Out of file order in places, with ties: the read order is (timestamp, row id).
      timestamp: 1_700_000_000_000_000_000n + BigInt(Math.floor(k / 3) * 1_000_000 + (k % 7 === 0 ? 500_000 : 0)),
      data: stringMessage(large ? `${k}:`.padEnd(40_000, "x") : `${k}`),
    };
  });
}

interface Read {
  readonly topic: string;
  readonly time: string;
  readonly bytes: string;
}

async function readAll(source: ByteSource): Promise<Read[]> {
  const recording = await openRecording(source, { sqlJs: loadSqlJsNode });
  const out: Read[] = [];
  for await (const m of recording.messages({ decode: false })) {
    out.push(summary(m));
  }
  return out;
}

function summary(m: RecordedMessage): Read {
  const data = m.data;
  return {
    topic: m.topic,
    time: `${m.receiveTime.sec}.${m.receiveTime.nsec}`,
    bytes: `${data.byteLength}:${data.subarray(4, 16).join(",")}`,
  };
}

/** A ByteSource over `bytes` whose synchronous reads fail from byte `failFrom` on once armed. */
class FailingSource implements ByteSource {
  public failFrom = Infinity;
  readonly #bytes: Uint8Array;

  public constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  public get size(): number {
    return this.#bytes.byteLength;
  }

  public async read(offset: number, length: number): Promise<Uint8Array> {
    return this.readSync(offset, length);
  }

  public readSync(offset: number, length: number): Uint8Array {
    checkRange(this.size, offset, length);
    if (offset + length > this.failFrom) {
      throw new Error("EIO: i/o error, read");
    }
    return this.#bytes.slice(offset, offset + length);
  }
}

describe("a .db3 read page by page (openSqliteDatabase)", () => {
  it("delivers the same messages, in the same order, as a copy of the whole file in memory, reading at most 256 KiB at once", async () => {
    const bytes = await writeDb3(TOPICS, rows(3000));
    const probe = new ReadSizeProbe(bytes);
    const paged = await readAll(probe);
    const copied = await readAll(new BlobByteSource(new Blob([bytes.slice()])));
    expect(paged).toHaveLength(3000);
    expect(paged).toEqual(copied);
    // Pages (4 KiB) and read-ahead (up to 256 KiB): memory does not depend on the file's size.
    expect(probe.largestRead).toBeLessThanOrEqual(256 * 1024);
    expect(bytes.byteLength).toBeGreaterThan(8 * 256 * 1024);
  });

  it("reads only the pages it needs: the small topic alone costs far less than the file", async () => {
    const bytes = await writeDb3(TOPICS, rows(3000));
    const probe = new ReadSizeProbe(bytes);
    const recording = await openRecording(probe, { sqlJs: loadSqlJsNode });
    const opened = probe.bytesRead;
    let n = 0;
    for await (const m of recording.messages({ topics: ["/small"], decode: false })) {
      expect(m.topic).toBe("/small");
      n += 1;
    }
    expect(n).toBe(2940);
    // The 60 large messages are 2.4 MB of overflow pages, which a read of /small never touches.
    expect(probe.bytesRead - opened).toBeLessThan(bytes.byteLength / 4);
  });

  it("a read that fails part-way delivers the rows before it, then names the byte offset and the source's error", async () => {
    const bytes = await writeDb3(TOPICS, rows(3000));
    const source = new FailingSource(bytes);
    const recording = await openRecording(source, { sqlJs: loadSqlJsNode });
    source.failFrom = Math.floor(bytes.byteLength / 2);
    const read: RecordedMessage[] = [];
    let error: unknown;
    try {
      for await (const m of recording.messages({ decode: false })) {
        read.push(m);
      }
    } catch (err) {
      error = err;
    }
    expect(read.length).toBeGreaterThan(0);
    expect(read.length).toBeLessThan(3000);
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).readPast).toBe(true);
    const reasons = (error as RecordingError).damages.map((d) => d.reason);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(
      new RegExp(`^the \\.db3 file: reading stopped after ${read.length} message rows .*: reading 4096 bytes at byte offset \\d+ failed: EIO: i/o error, read$`),
    );
  });

  it("a file that cannot be read at all is refused at open with the failed read, not an engine error", async () => {
    const bytes = await writeDb3(TOPICS, rows(10));
    const source = new FailingSource(bytes);
    source.failFrom = 200; // the format check reads the first 16 bytes; SQLite then reads whole pages
    await expect(openRecording(source, { sqlJs: loadSqlJsNode })).rejects.toThrow(
      /^the \.db3 file cannot be read: reading \d+ bytes at byte offset 0 failed: EIO: i\/o error, read$/,
    );
  });

  it("leaves the realm's FileReaderSync as it found it (absent in Node, or the one that was there)", async () => {
    const SQL = await loadSqlJsNode();
    const bytes = await writeDb3(TOPICS, rows(10));
    const scope = globalThis as { FileReaderSync?: unknown };
    const first = await openSqliteDatabase(SQL, new ReadSizeProbe(bytes));
    first.db.close();
    expect("FileReaderSync" in scope).toBe(false);
    const theirs = { name: "a FileReaderSync of the host" };
    scope.FileReaderSync = theirs;
    try {
      const second = await openSqliteDatabase(SQL, new ReadSizeProbe(bytes));
      expect(second.paged).toBe(true);
      expect(second.db.exec("select count(*) from messages")[0]?.values).toEqual([[10]]);
      second.db.close();
      expect(scope.FileReaderSync).toBe(theirs);
    } finally {
      delete scope.FileReaderSync;
    }
  });
});
