import Bzip2 from "@foxglove/wasm-bz2";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";

import { runAnalyze } from "./analyze";
import { replay } from "./replay";
import { parseConfig } from "../../pipeline";
import { HAS_SHARED_DATA, sharedRecording } from "../../recording/testing/paths";
import { suiteTempDir } from "../../testing/tempDir";

/**
 * The order a recording's messages must be analyzed in, computed from the file's bytes without the
 * reader under test: every record of the bag in byte order (chunks decompressed with bz2 alone),
 * then a stable sort by receive time, so ties keep their position in the file (data/README).
 */
interface FileMessage {
  readonly topic: string;
  /** Receive time, ns. */
  readonly receive: bigint;
  /** The header stamp (the first Header of an Imu or Odometry message), ns. */
  readonly stamp: bigint;
}

/** Parses one bag record's header fields (`name=value` with a 4-byte length each). */
function headerFields(bytes: Uint8Array, view: DataView, start: number, end: number): Map<string, Uint8Array> {
  const fields = new Map<string, Uint8Array>();
  for (let at = start; at < end; ) {
    const len = view.getUint32(at, true);
    const field = bytes.subarray(at + 4, at + 4 + len);
    const eq = field.indexOf(0x3d);
    fields.set(new TextDecoder().decode(field.subarray(0, eq)), field.subarray(eq + 1));
    at += 4 + len;
  }
  return fields;
}

function u32(value: Uint8Array): number {
  return new DataView(value.buffer, value.byteOffset, value.byteLength).getUint32(0, true);
}

/** Walks the records of `bytes` (a bag body or a decompressed chunk) in byte order. */
function* records(bytes: Uint8Array, start: number): Generator<{ op: number; fields: Map<string, Uint8Array>; data: Uint8Array }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = start; at + 8 <= bytes.length; ) {
    const headerLen = view.getUint32(at, true);
    const fields = headerFields(bytes, view, at + 4, at + 4 + headerLen);
    const dataAt = at + 4 + headerLen;
    const dataLen = view.getUint32(dataAt, true);
    yield { op: fields.get("op")![0]!, fields, data: bytes.subarray(dataAt + 4, dataAt + 4 + dataLen) };
    at = dataAt + 4 + dataLen;
  }
}

async function fileOrder(path: string): Promise<FileMessage[]> {
  const bzip2 = await Bzip2.init();
  const file = new Uint8Array(await readFile(path));
  expect(new TextDecoder().decode(file.subarray(0, 13))).toBe("#ROSBAG V2.0\n");
  const topics = new Map<number, string>();
  const found: FileMessage[] = [];
  for (const chunk of records(file, 13)) {
    if (chunk.op !== 0x05) {
      continue; // bag header, index data, connections and chunk infos after the chunks
    }
    const compression = new TextDecoder().decode(chunk.fields.get("compression"));
    expect(compression).toBe("bz2");
    const body = bzip2.decompress(chunk.data, u32(chunk.fields.get("size")!), { small: false });
    for (const r of records(body, 0)) {
      if (r.op === 0x07) {
        topics.set(u32(r.fields.get("conn")!), new TextDecoder().decode(r.fields.get("topic")));
      } else if (r.op === 0x02) {
        const time = r.fields.get("time")!;
        const receive = BigInt(u32(time)) * 1_000_000_000n + BigInt(u32(time.subarray(4)));
        const d = new DataView(r.data.buffer, r.data.byteOffset, r.data.byteLength);
        // std_msgs/Header: uint32 seq, time stamp (uint32 sec, uint32 nsec)
        const stamp = BigInt(d.getUint32(4, true)) * 1_000_000_000n + BigInt(d.getUint32(8, true));
        found.push({ topic: topics.get(u32(r.fields.get("conn")!))!, receive, stamp });
      }
    }
  }
  // Array.prototype.sort is stable: ties stay in file order.
  return found.sort((a, b) => (a.receive < b.receive ? -1 : a.receive > b.receive ? 1 : 0));
}

/** A copy of a bag whose header says it has no index (index_pos = 0). */
function withoutIndex(bag: Uint8Array): Uint8Array {
  const out = bag.slice();
  const view = new DataView(out.buffer);
  const headerLen = view.getUint32(13, true);
  const fields = headerFields(out, view, 17, 17 + headerLen);
  const indexPos = fields.get("index_pos")!;
  indexPos.fill(0);
  return out;
}

async function replayLines(config: ReturnType<typeof parseConfig>, trace: string[]): Promise<string[]> {
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString()));
  await replay(config, Readable.from([trace.join("\n") + "\n"]), out);
  return text.split("\n").filter((l) => l !== "");
}

describe.skipIf(!HAS_SHARED_DATA)("lockstep analyze on mustang-2014.bag (indexed and scanned) against lockstep replay (needs ../shared/data)", () => {
  const topics = ["/my_odometry2imu/imu_data", "/wheel_odometry", "/stereo_odometer/odometry"];
  const config = parseConfig({
    inputs: topics.map((topic) => ({ topic })),
    policy: { type: "fkie/approximate-time", maxQueueSize: 0 },
  });
  const tmp = suiteTempDir("lockstep-mustang-");

  it("gives exactly replay's tuples and drops for the stamps in file order, the 31 backward IMU steps as out-of-order-reset resets", async () => {
    const path = sharedRecording("mustang-2014.bag");
    const order = (await fileOrder(path)).filter((m) => topics.includes(m.topic));
    expect(order.length).toBe(13333 + 1294 + 1313);

    // The independent order holds the README's 31 backward steps on the derived IMU.
    const last = new Map<string, bigint>();
    const backwardAt: number[] = [];
    order.forEach((m, index) => {
      const prev = last.get(m.topic);
      if (prev != undefined && m.stamp < prev) {
        expect(m.topic).toBe("/my_odometry2imu/imu_data");
        backwardAt.push(index);
      }
      last.set(m.topic, m.stamp);
    });
    expect(backwardAt.length).toBe(31);

    const trace = order.map((m) => JSON.stringify({ slot: topics.indexOf(m.topic), stamp: m.stamp.toString(), arrival: m.receive.toString() }));
    const replayed = (await replayLines(config, trace)).map((l) => JSON.parse(l) as Record<string, unknown>);
    const replayTuples = replayed.filter((e) => "tuple" in e).map((e) => ({ stamps: e.tuple, after: e.after }));
    const replayDrops = replayed
      .filter((e) => "drop" in e)
      .map((e) => {
        const d = e.drop as { slot: number; stamp: string; reason: string };
        return { slot: d.slot, stamp: d.stamp, reason: d.reason, after: e.after };
      });
    expect(replayTuples.length).toBeGreaterThan(1000);
    // Each backward step resets the policy once: the messages it held become out-of-order-reset
    // drops, all reported while handling exactly that message.
    const resets = replayDrops.filter((d) => d.reason === "out-of-order-reset");
    expect([...new Set(resets.map((d) => d.after))]).toEqual(backwardAt);

    const out = join(tmp.path, "out");
    const result = await runAnalyze({ file: path, config, out, progress: false });
    expect(result.errors).toEqual([]);
    // The tuples and drops `analyze` wrote to `dir`, in the fields replay prints.
    const analyzedIn = async (dir: string) => {
      const jsonl = async (name: string): Promise<Record<string, unknown>[]> =>
        (await readFile(join(dir, name), "utf8"))
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      return {
        tuples: (await jsonl("tuples.jsonl")).map((t) => ({ stamps: t.stamps, after: t.after })),
        drops: (await jsonl("drops.jsonl")).map((d) => ({ slot: d.slot, stamp: d.stamp, reason: d.reason, after: d.after })),
      };
    };
    const analyzed = await analyzedIn(out);
    expect(analyzed.tuples).toEqual(replayTuples);
    expect(analyzed.drops).toEqual(replayDrops);
    expect(result.summary.drops["out-of-order-reset"]).toBe(resets.length);

    // The same bag without its index (index_pos 0, as an interrupted recorder leaves it) is read
    // by scanning, in the same order: the same tuples and drops.
    const unindexed = join(tmp.path, "mustang-unindexed.bag");
    await writeFile(unindexed, withoutIndex(new Uint8Array(await readFile(path))));
    const scanOut = join(tmp.path, "scan");
    const scanned = await runAnalyze({ file: unindexed, config, out: scanOut, progress: false });
    expect(scanned.lines[0]).toMatch(/read sequentially/);
    expect(scanned.errors).toEqual([]);
    const rescanned = await analyzedIn(scanOut);
    expect(rescanned.tuples).toEqual(replayTuples);
    expect(rescanned.drops).toEqual(replayDrops);
  }, 180_000);
});
