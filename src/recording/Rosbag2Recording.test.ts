import zstd from "@foxglove/wasm-zstd";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

import { ArrayByteSource } from "./ByteSource";
import { RecordingError, type RecordingDamage } from "./RecordingError";
import { openRecording } from "./openRecording";
import { openRecordingFile } from "./openRecordingFile";
import { sqlJsWasmCandidates, loadSqlJsNode } from "./sqlJsNode";
import { writeMcap } from "./testing/mcapFixtures";
import { HAS_SHARED_DATA, HUSKY_BAG, sharedRecording } from "./testing/paths";
import { ReadSizeProbe } from "./testing/readSizeProbe";
import { metadataYaml, stringMessage, writeDb3, type FixtureRow } from "./testing/rosbag2Fixtures";
import type { RecordedMessage, Recording } from "./types";

async function drain(recording: Recording, mode: "decode" | "raw" = "decode"): Promise<RecordedMessage[]> {
  const out: RecordedMessage[] = [];
  for await (const m of recording.messages({ decode: mode === "decode" })) {
    out.push(m);
  }
  return out;
}

/** Every message a read delivers and the error that ends it (a read past damage), then closes it (if it closes). */
async function readPastDamage(recording: Recording & { close?(): Promise<void> }): Promise<{ read: RecordedMessage[]; error: unknown }> {
  const read: RecordedMessage[] = [];
  let error: unknown;
  try {
    for await (const m of recording.messages()) {
      read.push(m);
    }
  } catch (err) {
    error = err;
  }
  await recording.close?.();
  return { read, error };
}

function ns(m: RecordedMessage): bigint {
  return BigInt(m.receiveTime.sec) * 1_000_000_000n + BigInt(m.receiveTime.nsec);
}

function counts(messages: readonly RecordedMessage[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of messages) {
    out.set(m.topic, (out.get(m.topic) ?? 0) + 1);
  }
  return out;
}

/** Per-topic counts straight from metadata.yaml (read with the yaml package, not the reader). */
function metadataCounts(text: string): Map<string, number> {
  const doc = parseYaml(text) as {
    rosbag2_bagfile_information: { topics_with_message_count: { topic_metadata: { name: string }; message_count: number }[] };
  };
  const out = new Map<string, number>();
  for (const t of doc.rosbag2_bagfile_information.topics_with_message_count) {
    if (t.message_count > 0) {
      out.set(t.topic_metadata.name, t.message_count);
    }
  }
  return out;
}

const UPSTREAM = sharedRecording("rosbag2-upstream");

describe.skipIf(!HAS_SHARED_DATA)("rosbag2's own test bags (../shared/data/rosbag2-upstream)", () => {
  it("every folder opens; per-topic counts equal metadata.yaml; undecodable topics are named, the rest decode", async () => {
    const folders = await readdir(UPSTREAM);
    expect(folders.length).toBeGreaterThanOrEqual(8);
    for (const folder of folders) {
      const path = join(UPSTREAM, folder);
      const expected = metadataCounts(await readFile(join(path, "metadata.yaml"), "utf8"));
      const recording = await openRecordingFile(path);
      try {
        expect(recording.info.format, folder).toBe("rosbag2");
        const raw = await drain(recording, "raw");
        expect(counts(raw), folder).toEqual(expected);
        const unreadable = recording.info.unreadableTopics ?? new Map<string, string>();
        const decoded = await drain(recording);
        const decodable = new Map([...expected].filter(([topic]) => !unreadable.has(topic)));
        expect(counts(decoded), folder).toEqual(decodable);
        for (const m of decoded) {
          expect(typeof m.message, `${folder} ${m.topic}`).toBe("object");
        }
        for (const [topic, reason] of unreadable) {
          expect(reason, topic).toMatch(/no message definition for (test_msgs|rosbag2_interfaces)\//);
        }
        for (let i = 1; i < raw.length; i++) {
          expect(ns(raw[i]!) >= ns(raw[i - 1]!), `${folder}: receive time order at ${i}`).toBe(true);
        }
      } finally {
        await recording.close();
      }
    }
  });

  it("the oldest layout (type names without /msg/, no definitions) names its topic; Foxy-era split bags read all five files", async () => {
    const seek = await openRecordingFile(join(UPSTREAM, "sqlite3-test_bag_for_seek"));
    expect([...(seek.info.unreadableTopics ?? new Map<string, string>()).keys()]).toEqual(["topic1"]);
    expect(seek.info.unreadableTopics?.get("topic1")).toContain("test_msgs/BasicTypes");
    await seek.close();
    for (const storage of ["sqlite3", "mcap"]) {
      const wbag = await openRecordingFile(join(UPSTREAM, `${storage}-wbag`));
      const messages = await drain(wbag);
      expect(messages.length).toBe(6074);
      expect(messages.every((m) => typeof (m.message as { data?: unknown }).data === "string")).toBe(true);
      await wbag.close();
    }
  });

  it("a storage file of a folder opens on its own (.db3 and .mcap)", async () => {
    for (const [folder, file, n] of [
      ["sqlite3-talker", "talker.db3", 20],
      ["mcap-talker", "talker.mcap", 20],
      ["sqlite3-wbag", "wbag_0.db3", undefined],
    ] as const) {
      const recording = await openRecordingFile(join(UPSTREAM, folder, file));
      const messages = await drain(recording);
      if (n != undefined) {
        expect(messages.length, file).toBe(n);
      } else {
        expect(messages.length, file).toBeGreaterThan(0);
      }
      await recording.close();
    }
  });
});

/** A ROS 1 decode in ROS 2's shape: time `nsec` → `nanosec`, no `header.seq`, typed arrays as arrays. */
function asRos2(value: unknown, key = ""): unknown {
  if (ArrayBuffer.isView(value)) {
    return Array.from(value as unknown as ArrayLike<number>);
  }
  if (Array.isArray(value)) {
    return value.map((v) => asRos2(v));
  }
  if (typeof value === "object" && value != undefined) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (key === "header" && k === "seq") {
        continue;
      }
      out[k === "nsec" ? "nanosec" : k] = asRos2(v, k);
    }
    return out;
  }
  return value;
}

describe.skipIf(!HAS_SHARED_DATA)("husky-2015 in its three ROS 2 forms (../shared/data/ros2)", () => {
  for (const form of ["husky-2015-sqlite3", "husky-2015-sqlite3-humble", "husky-2015.mcap"]) {
    it(`${form}: the same messages as samples/husky-2015.bag, in the same order, field by field`, async () => {
      const bag = await openRecordingFile(HUSKY_BAG);
      const ros2 = await openRecordingFile(sharedRecording(`ros2/${form}`));
      try {
        if (form.endsWith("humble")) {
          expect(ros2.info.channels.every((c) => c.schemaData.byteLength > 0)).toBe(true);
        }
        const a = bag.messages()[Symbol.asyncIterator]();
        let n = 0;
        for await (const m of ros2.messages()) {
          const r = await a.next();
          expect(r.done).toBe(false);
          const b = r.value as RecordedMessage;
          expect([m.topic, ns(m)]).toEqual([b.topic, ns(b)]);
          if (n % 97 === 0 || m.topic === "/fix") {
            expect(asRos2(m.message)).toEqual(asRos2(b.message));
          }
          n += 1;
        }
        expect((await a.next()).done).toBe(true);
        expect(n).toBe(16806);
      } finally {
        await bag.close();
        await ros2.close();
      }
    });
  }
});

describe("rosbag2 sqlite3 files written here (layouts, split order, compression)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lockstep-rosbag2-"));
    await zstd.isLoaded;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const row = (topicId: number, t: bigint, label: string): FixtureRow => ({ topicId, timestamp: t, data: stringMessage(label) });
  const labels = (messages: readonly RecordedMessage[]): string[] => messages.map((m) => (m.message as { data: string }).data);

  it("split files: receive-time order across files, ties in file order, exact epoch nanoseconds", async () => {
    const base = 1_432_235_498_025_043_042n;
    const folder = join(dir, "split");
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder);
    const topics = [{ name: "/a", type: "std_msgs/msg/String" }, { name: "/b", type: "std_msgs/msg/String" }];
    // File order inside a file is not time order on purpose (row 2 is older than row 1).
    await writeFile(join(folder, "s_0.db3"), await writeDb3(topics, [row(1, base + 20n, "f0-20a"), row(1, base + 10n, "f0-10"), row(2, base + 20n, "f0-20b"), row(1, base + 30n, "f0-30")]));
    await writeFile(join(folder, "s_1.db3"), await writeDb3(topics, [row(2, base + 20n, "f1-20"), row(2, base + 25n, "f1-25"), row(1, base + 30n, "f1-30")]));
    await writeFile(
      join(folder, "metadata.yaml"),
      metadataYaml({ files: ["s_0.db3", "s_1.db3"], topics: [{ name: "/a", type: "std_msgs/msg/String", count: 4 }, { name: "/b", type: "std_msgs/msg/String", count: 3 }] }),
    );
    const recording = await openRecordingFile(folder);
    const messages = await drain(recording);
    expect(labels(messages)).toEqual(["f0-10", "f0-20a", "f0-20b", "f1-20", "f1-25", "f0-30", "f1-30"]);
    expect(messages[0]!.receiveTime).toEqual({ sec: 1_432_235_498, nsec: 25_043_052 });
    expect(recording.info.messageCounts).toEqual(new Map([["/a", 4], ["/b", 3]]));
    const onlyB = [];
    for await (const m of recording.messages({ topics: ["/b"] })) {
      onlyB.push(m);
    }
    expect(labels(onlyB)).toEqual(["f0-20b", "f1-20", "f1-25"]);
    await recording.close();
  });

  it("a damaged file of a split bag is read past, named by its file: every other file is delivered whole", async () => {
    const folder = join(dir, "split-damaged");
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder);
    const channels = [{ topic: "/a", schemaName: "T", schemaEncoding: "jsonschema", schema: "{}", messageEncoding: "json" }];
    const part = async (from: number): Promise<Uint8Array> =>
      await writeMcap(
        channels,
        Array.from({ length: 50 }, (_, i) => ({ channel: 0, logTime: BigInt(from + i) * 1_000_000n, data: new TextEncoder().encode(JSON.stringify({ i: from + i })) })),
        { chunkSize: 512 },
      );
    const first = await part(0);
    await writeFile(join(folder, "d_0.mcap"), first.subarray(0, Math.floor(first.byteLength / 2)));
    await writeFile(join(folder, "d_1.mcap"), await part(1000));
    const recording = await openRecordingFile(folder);
    const { read, error } = await readPastDamage(recording);
    const values = read.map((m) => (m.message as { i: number }).i);
    expect(values.filter((v) => v >= 1000)).toEqual(Array.from({ length: 50 }, (_, i) => 1000 + i));
    expect(values.filter((v) => v < 1000).length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(RecordingError);
    const reasons = (error as RecordingError).damages.map((d) => d.reason);
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons.every((r) => r.startsWith("d_0.mcap: "))).toBe(true);
    expect(reasons.at(-1)).toMatch(/^d_0\.mcap: the file is truncated/);
  });

  it("an MCAP storage file is read within the limit the folder was opened with: a larger chunk is one damage, the rest is delivered", async () => {
    const folder = join(dir, "mcap-over-limit");
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder);
    const channels = [{ topic: "/a", schemaName: "T", schemaEncoding: "jsonschema", schema: "{}", messageEncoding: "json" }];
    // Chunks of about 512 bytes, but the one holding message 25, which carries 4,000 bytes more.
    const messages = Array.from({ length: 50 }, (_, i) => ({
      channel: 0,
      logTime: BigInt(i) * 1_000_000n,
      data: new TextEncoder().encode(JSON.stringify({ i, pad: i === 25 ? "x".repeat(4000) : "" })),
    }));
    await writeFile(join(folder, "d_0.mcap"), await writeMcap(channels, messages, { chunkSize: 512 }));
    const recording = await openRecordingFile(folder, { maxChunkBytes: 2000 });
    const { read, error } = await readPastDamage(recording);
    expect(read.map((m) => (m.message as { i: number }).i)).not.toContain(25);
    expect(read.length).toBeGreaterThan(40);
    expect((error as RecordingError).damages.map((d) => d.reason)).toEqual([
      expect.stringMatching(/^the chunk is unreadable: the chunk record here holds \d+ bytes, more than the limit of 2000 \(a damaged length or an unusually large chunk; raise the limit with --max-chunk-size if the recording is genuine\)$/),
    ]);
  });

  it("a file its metadata.yaml lists but the folder lacks is named, not the file system's ENOENT", async () => {
    const folder = join(dir, "missing-part");
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder);
    await writeFile(join(folder, "m_0.db3"), await writeDb3([{ name: "/a", type: "std_msgs/msg/String" }], [row(1, 1_000_000_000n, "x")]));
    await writeFile(join(folder, "metadata.yaml"), metadataYaml({ files: ["m_0.db3", "m_1.db3"], topics: [{ name: "/a", type: "std_msgs/msg/String", count: 1 }] }));
    await expect(openRecordingFile(folder)).rejects.toThrow(/missing-part: its file m_1\.db3 cannot be opened \(it does not exist\); a split bag needs every file/);
  });

  it("message rows no reader can place (a topic_id without a topic, a timestamp that is not a time) are skipped and named, once per kind", async () => {
    const base = 1_432_235_498_000_000_000n;
    const topics = [{ name: "/a", type: "std_msgs/msg/String" }];
    const rows = Array.from({ length: 10 }, (_, k) => row(1, base + BigInt(k), `m${k}`));
    const SQL = await loadSqlJsNode();
    const db = new SQL.Database(await writeDb3(topics, rows));
    db.exec("UPDATE messages SET topic_id = 99 WHERE id IN (2, 3); UPDATE messages SET timestamp = 'notatime' WHERE id = 5;");
    const path = join(dir, "orphans.db3");
    await writeFile(path, db.export());
    db.close();
    const recording = await openRecordingFile(path);
    const { read, error } = await readPastDamage(recording);
    expect(labels(read)).toEqual(["m0", "m3", "m5", "m6", "m7", "m8", "m9"]);
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).damages.map((d) => d.reason)).toEqual([
      expect.stringMatching(/rows name a topic_id its topics table does not have: 2 skipped \(the first: row 2, topic_id 99\)/),
      expect.stringMatching(/rows have a timestamp that is not a whole number of nanoseconds: 1 skipped \(the first: row 5 on \/a, timestamp "notatime"\)/),
    ]);
  });

  it("a table without a column Lockstep reads is refused at open, naming the table and the column, without a byte offset", async () => {
    const topics = [{ name: "/a", type: "std_msgs/msg/String" }];
    const SQL = await loadSqlJsNode();
    for (const [table, column, layout] of [
      ["messages", "data", "messages: id, topic_id, timestamp, data"],
      ["topics", "type", "topics: id, name, type, serialization_format"],
    ] as const) {
      const db = new SQL.Database(await writeDb3(topics, [row(1, 1n, "x")]));
      db.exec(`ALTER TABLE ${table} RENAME COLUMN ${column} TO renamed`);
      const bytes = db.export();
      db.close();
      const error: unknown = await openRecording(new ArrayByteSource(bytes), { sqlJs: loadSqlJsNode }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(RecordingError);
      expect((error as RecordingError).offset).toBeUndefined();
      expect((error as RecordingError).message).toBe(`the .db3 file: its ${table} table has no column ${column}: not the rosbag2 sqlite3 layout (${layout})`);
    }
  });

  it("a database SQLite finds malformed part-way opens, and a read delivers every row before the damage, then names the file and how far it got", async () => {
    const topics = [{ name: "/a", type: "std_msgs/msg/String" }];
    const bytes = await writeDb3(topics, Array.from({ length: 3000 }, (_, k) => row(1, 1_000_000_000n + BigInt(k), `m${k}`.padEnd(100, "."))));
    // Pages in the middle of the messages table become zeros (a disk that lost a stretch).
    const middle = Math.floor(bytes.byteLength / 2 / 4096) * 4096;
    bytes.fill(0, middle, middle + 16 * 4096);
    const folder = join(dir, "malformed");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "z_0.db3"), bytes);
    await writeFile(join(folder, "metadata.yaml"), metadataYaml({ files: ["z_0.db3"], topics: [{ name: "/a", type: "std_msgs/msg/String", count: 3000 }] }));
    const recording = await openRecordingFile(folder);
    expect(recording.info.indexed).toBe(false);
    expect(recording.info.indexProblem).toMatch(/z_0\.db3: SQLite cannot count its messages table \(database disk image is malformed\), so message counts and time range are unknown/);
    const { read, error } = await readPastDamage(recording);
    expect(read.length).toBeGreaterThan(0);
    expect(read.length).toBeLessThan(3000);
    expect(labels(read)).toEqual(Array.from({ length: read.length }, (_, k) => `m${k}`.padEnd(100, ".")));
    expect(error).toBeInstanceOf(RecordingError);
    expect((error as RecordingError).readPast).toBe(true);
    expect((error as RecordingError).offset).toBeUndefined();
    expect((error as RecordingError).damages.map((d) => d.reason)).toEqual([
      `${join(folder, "z_0.db3")}: SQLite finds the database malformed after ${read.length} message rows were read in receive-time order ` +
        `(the last: row ${read.length}, receive time ${1_000_000_000 + read.length - 1}): the rows after that cannot be read (database disk image is malformed)`,
    ]);
  });

  it("a .db3 cut short opens, delivers its rows up to the first on a missing page, and names where it was cut and what its header declares", async () => {
    const topics = [{ name: "/a", type: "std_msgs/msg/String" }];
    const labelsInOrder = Array.from({ length: 3000 }, (_, k) => `m${k}`.padEnd(100, "."));
    const whole = await writeDb3(topics, labelsInOrder.map((label, k) => row(1, 1_000_000_000n + BigInt(k), label)));
    const pages = whole.byteLength / 4096;
    for (const cut of [Math.floor(pages / 2) * 4096 + 1234, whole.byteLength - 1]) {
      const folder = join(dir, `cut-${cut}`);
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, "c_0.db3"), whole.subarray(0, cut));
      await writeFile(join(folder, "metadata.yaml"), metadataYaml({ files: ["c_0.db3"], topics: [{ name: "/a", type: "std_msgs/msg/String", count: 3000 }] }));
      const { read, error } = await readPastDamage(await openRecordingFile(folder));
      expect(read.length).toBeGreaterThan(0);
      expect(labels(read)).toEqual(labelsInOrder.slice(0, read.length));
      const damages = (error as RecordingError).damages;
      expect(damages).toContainEqual({
        offset: cut,
        reason: `the file ends at byte ${cut}, before the ${pages} pages of 4096 bytes its header declares (${whole.byteLength} bytes): it was cut short; rows were read in receive-time order up to the first one on a missing page`,
        lost: undefined,
      });
      if (read.length < 3000) {
        expect(damages.map((d) => d.reason)).toContainEqual(expect.stringMatching(/c_0\.db3: SQLite finds the database malformed after \d+ message rows/));
      }
    }
  });

  it("definitions: the file's own (Jazzy), the standard ones (with or without /msg/), or the topic is named (skipped unless asked for)", async () => {
    const topics = [
      { name: "/custom", type: "my_pkg/msg/Thing" },
      { name: "/legacy", type: "std_msgs/String" },
      { name: "/unknown", type: "other_pkg/msg/Mystery" },
    ];
    const thing = new (await import("@foxglove/rosmsg2-serialization")).MessageWriter(
      (await import("@foxglove/rosmsg")).parse("int32 x\nstring label", { ros2: true }),
    ).writeMessage({ x: -7, label: "t" });
    const bytes = await writeDb3(topics, [{ topicId: 1, timestamp: 5n, data: thing }, row(2, 6n, "legacy"), row(3, 7n, "never decoded")], {
      definitions: { "my_pkg/msg/Thing": "int32 x\nstring label" },
    });
    const recording = await openRecording(new ArrayByteSource(bytes), { sqlJs: loadSqlJsNode });
    expect(recording.info.unreadableTopics).toEqual(new Map([["/unknown", expect.stringContaining("other_pkg/msg/Mystery") as string]]));
    const messages = await drain(recording);
    expect(messages.map((m) => [m.topic, m.message])).toEqual([
      ["/custom", { x: -7, label: "t" }],
      ["/legacy", { data: "legacy" }],
    ]);
    expect((await drain(recording, "raw")).map((m) => m.topic)).toEqual(["/custom", "/legacy", "/unknown"]);
    // Asked for by name, the topic delivers its messages, each naming why it does not decode (a
    // pipeline then counts them as undecodable, instead of seeing no message at all).
    const asked = [];
    for await (const m of recording.messages({ topics: ["/unknown"] })) {
      asked.push(m);
    }
    expect(asked.map((m) => [m.topic, m.message, m.decodeError])).toEqual([
      ["/unknown", undefined, expect.stringContaining("other_pkg/msg/Mystery")],
    ]);
  });

  it("per-message and per-file zstd compression as metadata.yaml declares", async () => {
    const topics = [{ name: "/chatter", type: "std_msgs/msg/String" }];
    const meta = (mode: "FILE" | "MESSAGE", file: string): string =>
      metadataYaml({ files: [file], topics: [{ name: "/chatter", type: "std_msgs/msg/String", count: 2 }], compressionMode: mode });
    const perMessage = join(dir, "per-message");
    const perFile = join(dir, "per-file");
    await mkdir(perMessage, { recursive: true });
    await mkdir(perFile, { recursive: true });
    const compressed = (label: string, t: bigint): FixtureRow => ({ topicId: 1, timestamp: t, data: new Uint8Array(zstd.compress(stringMessage(label))) });
    await writeFile(join(perMessage, "m_0.db3"), await writeDb3(topics, [compressed("hello", 1n), compressed("world", 2n)]));
    await writeFile(join(perMessage, "metadata.yaml"), meta("MESSAGE", "m_0.db3"));
    const plain = await writeDb3(topics, [row(1, 1n, "hello"), row(1, 2n, "world")]);
    await writeFile(join(perFile, "f_0.db3.zstd"), zstd.compress(plain));
    await writeFile(join(perFile, "metadata.yaml"), meta("FILE", "f_0.db3.zstd"));
    for (const folder of [perMessage, perFile]) {
      const recording = await openRecordingFile(folder);
      expect(labels(await drain(recording)), folder).toEqual(["hello", "world"]);
      await recording.close();
    }
  });

  it("a folder without metadata.yaml (a recorder killed before writing it) reads its parts compressed whole by their .zstd names too", async () => {
    // rosbag2 compresses each split part when it closes it; the part being written stays plain.
    const topics = [{ name: "/chatter", type: "std_msgs/msg/String" }];
    const folder = join(dir, "killed-per-file");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "k_0.db3.zstd"), zstd.compress(await writeDb3(topics, [row(1, 1n, "a"), row(1, 2n, "b")])));
    await writeFile(join(folder, "k_1.db3.zstd"), zstd.compress(await writeDb3(topics, [row(1, 3n, "c")])));
    await writeFile(join(folder, "k_2.db3"), await writeDb3(topics, [row(1, 4n, "d"), row(1, 5n, "e")]));
    const recording = await openRecordingFile(folder);
    expect(labels(await drain(recording))).toEqual(["a", "b", "c", "d", "e"]);
    expect(recording.info.messageCounts?.get("/chatter")).toBe(5);
    await recording.close();
    const part = await openRecordingFile(join(folder, "k_0.db3.zstd"));
    expect(labels(await drain(part))).toEqual(["a", "b"]);
    // Its size, and what read progress counts to, is the compressed file's, as stored.
    expect(part.info.sizeInBytes).toBe((await stat(join(folder, "k_0.db3.zstd"))).size);
    const progress: { bytesRead: number; totalBytes: number }[] = [];
    for await (const m of part.messages({ onProgress: (p) => progress.push(p) })) {
      expect(m.channel.topic).toBe("/chatter");
    }
    expect(progress.at(-1)).toMatchObject({ bytesRead: part.info.sizeInBytes, totalBytes: part.info.sizeInBytes });
    await part.close();
  });

  it("two topic rows with one name: the topic's count is both rows' messages, and every message is read", async () => {
    const topics = [
      { name: "/chatter", type: "std_msgs/msg/String" },
      { name: "/chatter", type: "std_msgs/msg/String" },
    ];
    const recording = await openRecording(new ArrayByteSource(await writeDb3(topics, [row(1, 1n, "a"), row(2, 2n, "b"), row(2, 3n, "c")])));
    expect(recording.info.messageCounts?.get("/chatter")).toBe(3);
    expect(labels(await drain(recording))).toEqual(["a", "b", "c"]);
  });

  it("a message that does not decompress is one skipped message, counted on its topic: the messages after it are read", async () => {
    const topics = [{ name: "/chatter", type: "std_msgs/msg/String" }];
    const good = (label: string): Uint8Array => new Uint8Array(zstd.compress(stringMessage(label)));
    const bad = new Uint8Array([1, 2, 3, 4]); // not a zstd frame
    // .db3 storage.
    const db3 = join(dir, "bad-row");
    await mkdir(db3, { recursive: true });
    await writeFile(
      join(db3, "r_0.db3"),
      await writeDb3(topics, [
        { topicId: 1, timestamp: 1n, data: good("hello") },
        { topicId: 1, timestamp: 2n, data: bad },
        { topicId: 1, timestamp: 3n, data: good("world") },
      ]),
    );
    await writeFile(join(db3, "metadata.yaml"), metadataYaml({ files: ["r_0.db3"], topics: [{ name: "/chatter", type: "std_msgs/msg/String", count: 3 }], compressionMode: "MESSAGE" }));
    // MCAP storage.
    const mcap = join(dir, "bad-mcap-message");
    await mkdir(mcap, { recursive: true });
    const channels = [{ topic: "/chatter", schemaName: "std_msgs/msg/String", schemaEncoding: "ros2msg", schema: "string data", messageEncoding: "cdr" }];
    await writeFile(
      join(mcap, "m_0.mcap"),
      await writeMcap(channels, [good("hello"), bad, good("world")].map((data, i) => ({ channel: 0, logTime: BigInt(i + 1), data }))),
    );
    await writeFile(join(mcap, "metadata.yaml"), metadataYaml({ files: ["m_0.mcap"], topics: [{ name: "/chatter", type: "std_msgs/msg/String", count: 3 }], compressionMode: "MESSAGE", storage: "mcap" }));
    for (const [folder, file] of [[db3, "r_0.db3"], [mcap, "m_0.mcap"]] as const) {
      const reported: RecordingDamage[] = [];
      const recording = await openRecordingFile(folder);
      const read: RecordedMessage[] = [];
      let error: unknown;
      try {
        for await (const m of recording.messages({ onDamage: (d) => reported.push(d) })) {
          read.push(m);
        }
      } catch (err) {
        error = err;
      }
      await recording.close();
      expect(labels(read), folder).toEqual(["hello", "world"]);
      expect(error).toBeInstanceOf(RecordingError);
      expect((error as RecordingError).readPast).toBe(true);
      const damages = (error as RecordingError).damages;
      expect(damages).toHaveLength(1);
      expect(damages[0]!.offset).toBeUndefined();
      expect(damages[0]!.reason).toMatch(new RegExp(`^${folder}/${file.replace(".", "\\.")}: (message rows|messages) do not decompress: 1 skipped \\(the first: .*not a zstd frame`));
      expect(damages[0]!.lost).toEqual(new Map([["/chatter", 1]]));
      expect(reported).toEqual(damages);
    }
  });

  it("a message row larger than the read limit is skipped and named without being read; the rows around it are delivered", async () => {
    const topics = [{ name: "/chatter", type: "std_msgs/msg/String" }];
    const huge = 3 * 1024 * 1024;
    const bytes = await writeDb3(topics, [
      row(1, 1n, "before"),
      { topicId: 1, timestamp: 2n, data: new Uint8Array(huge).fill(7) },
      row(1, 3n, "after"),
    ]);
    const limit = 1024 * 1024;
    const probe = new ReadSizeProbe(bytes);
    const { read, error } = await readPastDamage(await openRecording(probe, { sqlJs: loadSqlJsNode, maxChunkBytes: limit }));
    expect(labels(read)).toEqual(["before", "after"]);
    expect((error as RecordingError).readPast).toBe(true);
    expect((error as RecordingError).damages.map((d) => [d.offset, d.reason, d.lost])).toEqual([
      [
        undefined,
        `the .db3 file: message rows hold more bytes than the limit of ${limit} (a damaged row or an unusually large message; raise the limit with --max-chunk-size if the recording is genuine): 1 skipped (the first: row 2 on /chatter, ${huge} bytes)`,
        new Map([["/chatter", 1]]),
      ],
    ]);
    // Opening and reading took in less than the file less the row's pages.
    expect(probe.bytesRead).toBeLessThan(bytes.byteLength - 2 * 1024 * 1024);
  });

  it("a .db3 without the receive-time index: the same order (ties by row id), without SQLite holding every row's data to sort them", async () => {
    const topics = [{ name: "/chatter", type: "std_msgs/msg/String" }];
    // Written out of receive-time order, with ties; each row's data spills onto overflow pages.
    const rows = Array.from({ length: 300 }, (_, k) => row(1, BigInt((k * 7919) % 101), `${k}`.padEnd(20_000, ".")));
    const read = async (layout: { timestampIndex: boolean }): Promise<{ labels: string[]; firstRead: number; size: number }> => {
      const bytes = await writeDb3(topics, rows, layout);
      const probe = new ReadSizeProbe(bytes);
      const recording = await openRecording(probe, { sqlJs: loadSqlJsNode });
      const opened = probe.bytesRead;
      let firstRead = -1;
      const got: string[] = [];
      for await (const m of recording.messages()) {
        firstRead = firstRead < 0 ? probe.bytesRead - opened : firstRead;
        got.push((m.message as { data: string }).data.replace(/\.+$/, ""));
      }
      return { labels: got, firstRead, size: bytes.byteLength };
    };
    const expected = rows
      .map((r, k) => ({ t: r.timestamp, k }))
      .sort((a, b) => (a.t === b.t ? a.k - b.k : a.t < b.t ? -1 : 1))
      .map(({ k }) => `${k}`);
    const indexed = await read({ timestampIndex: true });
    const unindexed = await read({ timestampIndex: false });
    expect(indexed.labels).toEqual(expected);
    expect(unindexed.labels).toEqual(expected);
    // Sorting whole rows would read all their data before the first message (6 MB here).
    expect(unindexed.firstRead).toBeLessThan(unindexed.size / 4);
  });

  it("per-message compression Lockstep does not read is refused at open, naming the file and the format", async () => {
    const folder = join(dir, "brotli");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "b_0.db3"), await writeDb3([{ name: "/chatter", type: "std_msgs/msg/String" }], [row(1, 1n, "hello")]));
    const yaml = metadataYaml({ files: ["b_0.db3"], topics: [{ name: "/chatter", type: "std_msgs/msg/String", count: 1 }], compressionMode: "MESSAGE" });
    await writeFile(join(folder, "metadata.yaml"), yaml.replace("compression_format: zstd", "compression_format: brotli"));
    await expect(openRecordingFile(folder)).rejects.toThrow(`${join(folder, "b_0.db3")}: messages are compressed with "brotli"; Lockstep reads zstd`);
  });

  it("finds sql.js's wasm file by LOCKSTEP_SQLJS_WASM first, then beside the code and in node_modules", () => {
    const saved = process.env.LOCKSTEP_SQLJS_WASM;
    process.env.LOCKSTEP_SQLJS_WASM = "/somewhere/sql-wasm.wasm";
    try {
      const candidates = sqlJsWasmCandidates();
      expect(candidates[0]).toBe("/somewhere/sql-wasm.wasm");
      expect(candidates.some((c) => c.endsWith(join("node_modules", "@foxglove", "sql.js", "dist", "sql-wasm.wasm")))).toBe(true);
    } finally {
      if (saved == undefined) {
        delete process.env.LOCKSTEP_SQLJS_WASM;
      } else {
        process.env.LOCKSTEP_SQLJS_WASM = saved;
      }
    }
  });
});
