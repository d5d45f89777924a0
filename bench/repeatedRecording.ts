/**
 * Builds a ROS 1 bag that is `copies` back-to-back copies of a bag (husky-2015.bag by default):
 * copy k has every receive time and every header stamp shifted by k × (duration + 1 s), so the
 * result is one recording `copies` times as long, with the same rates, latencies and ties. Chunks
 * hold as many messages as the original's and are bz2-compressed with the `bzip2` command, like
 * the original. Used by bench/analyzeMemory.ts (peak memory must not grow with the length).
 *
 * Only messages whose serialized form starts with a std_msgs/Header (seq, stamp) are supported,
 * which is every topic of husky-2015.bag.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";

import { openRecordingFile } from "../src/recording/node";
import { writeBag, type BagFixtureConnection, type BagFixtureMessage } from "../src/recording/testing/bagFixtures";

const NS = 1_000_000_000n;

function ns(t: { sec: number; nsec: number }): bigint {
  return BigInt(t.sec) * NS + BigInt(t.nsec);
}

/** Writes `copies` shifted copies of `source` to `target`; returns the message count. */
export async function writeRepeatedBag(source: string, target: string, copies: number): Promise<number> {
  const recording = await openRecordingFile(source);
  const connections: BagFixtureConnection[] = [];
  const connOf = new Map<string, number>();
  const original: { conn: number; receive: bigint; data: Uint8Array }[] = [];
  try {
    for await (const m of recording.messages({ decode: false })) {
      let conn = connOf.get(m.topic);
      if (conn == undefined) {
        conn = connections.length;
        connOf.set(m.topic, conn);
        const md5sum = m.channel.metadata.get("md5sum");
        connections.push({ topic: m.topic, type: m.schemaName, definition: new TextDecoder().decode(m.channel.schemaData), ...(md5sum ? { md5sum } : {}) });
      }
      original.push({ conn, receive: ns(m.receiveTime), data: m.data.slice() });
    }
  } finally {
    await recording.close();
  }
  const first = original[0]!.receive;
  const last = original.at(-1)!.receive;
  const period = last - first + NS;
  const messages: BagFixtureMessage[] = [];
  for (let k = 0n; k < BigInt(copies); k++) {
    const shift = k * period;
    for (const m of original) {
      const receive = m.receive + shift;
      const data = m.data.slice();
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      // std_msgs/Header: uint32 seq, uint32 sec, uint32 nsec
      const stamp = BigInt(view.getUint32(4, true)) * NS + BigInt(view.getUint32(8, true)) + shift;
      view.setUint32(4, Number(stamp / NS), true);
      view.setUint32(8, Number(stamp % NS), true);
      messages.push({ conn: m.conn, sec: Number(receive / NS), nsec: Number(receive % NS), data });
    }
  }
  const bag = writeBag(connections, messages, {
    perChunk: Math.ceil(original.length / 10),
    compress: (data) => ({ compression: "bz2", data: new Uint8Array(execFileSync("bzip2", ["-c", "-9"], { input: data, maxBuffer: 1 << 30 })) }),
  });
  writeFileSync(target, bag.bytes);
  return messages.length;
}
