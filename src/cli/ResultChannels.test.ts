// synchronized.mcap's result channels on the embedded husky recording (config/husky.json, with
// fusion): read back with @mcap/core, every JSON message checked against its channel's JSON
// schema, and every channel's messages against tuples.jsonl, drops.jsonl, transactions.jsonl and
// summary.json of the same run.
import { McapIndexedReader, type McapTypes } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";
import Ajv from "ajv";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

import { parseConfig } from "../pipeline";
import { runAnalyze } from "./commands/analyze";
import { resultTopics } from "../pipeline/resultMessages";
import { HUSKY_BAG, REPO_ROOT } from "../recording/testing/paths";
import { suiteTempDir } from "../testing/tempDir";

const NS = 1_000_000_000n;
const topics = resultTopics("/lockstep");

interface Time {
  sec: number;
  nsec: number;
}
interface Read {
  topic: string;
  schemaName: string;
  logTime: bigint;
  message: Record<string, unknown>;
}

const ns = (t: Time): string => (BigInt(t.sec) * NS + BigInt(t.nsec)).toString();
const lines = async (file: string): Promise<Record<string, unknown>[]> =>
  (await readFile(file, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const counted = (keys: string[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const k of keys) {
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
};

let out: string;
let channels: McapTypes.Channel[];
let schemas: ReadonlyMap<number, McapTypes.Schema>;
let profile: string;
const byTopic = new Map<string, Read[]>();
const tmp = suiteTempDir("lockstep-results-");

beforeAll(async () => {
  out = join(tmp.path, "out");
  const config = parseConfig(JSON.parse(await readFile(join(REPO_ROOT, "config/husky.json"), "utf8")));
  const result = await runAnalyze({ file: HUSKY_BAG, config, out, progress: false });
  expect(result.error).toBeUndefined();
  const bytes = new Uint8Array(await readFile(join(out, "synchronized.mcap")));
  const reader = await McapIndexedReader.Initialize({
    readable: { size: async () => BigInt(bytes.byteLength), read: async (o, l) => bytes.subarray(Number(o), Number(o + l)) },
    decompressHandlers: await loadDecompressHandlers(),
  });
  profile = reader.header.profile;
  channels = [...reader.channelsById.values()];
  schemas = reader.schemasById;
  for await (const m of reader.readMessages()) {
    const ch = reader.channelsById.get(m.channelId)!;
    if (ch.messageEncoding !== "json") {
      continue;
    }
    const list = byTopic.get(ch.topic) ?? [];
    list.push({
      topic: ch.topic,
      schemaName: schemas.get(ch.schemaId)!.name,
      logTime: m.logTime,
      message: JSON.parse(new TextDecoder().decode(m.data)) as Record<string, unknown>,
    });
    byTopic.set(ch.topic, list);
  }
}, 600_000);

describe("synchronized.mcap result channels (husky, with fusion)", () => {
  it("holds the republished sets and each result topic as a JSON channel with its foxglove schema", () => {
    const kinds = channels.map((c) => [c.topic, schemas.get(c.schemaId)!.name, schemas.get(c.schemaId)!.encoding, c.messageEncoding]).sort();
    expect(kinds).toEqual(
      [
        ["/lockstep/fix", "sensor_msgs/NavSatFix", "ros1msg", "ros1"],
        ["/lockstep/husky_velocity_controller/odom", "nav_msgs/Odometry", "ros1msg", "ros1"],
        ["/lockstep/imu/data", "sensor_msgs/Imu", "ros1msg", "ros1"],
        [topics.drops, "foxglove.Log", "jsonschema", "json"],
        [topics.fusedOdometry, "foxglove.Odometry", "jsonschema", "json"],
        [topics.fusedPoses, "foxglove.PosesInFrame", "jsonschema", "json"],
        [topics.transactions, "foxglove.SceneUpdate", "jsonschema", "json"],
        [topics.tupleTiming, "lockstep.TupleTiming", "jsonschema", "json"],
      ].sort(),
    );
    // Mixed encodings: no ros1 profile (it requires every channel to be ros1).
    expect(profile).toBe("");
  });

  it("every JSON message is valid against its channel's JSON schema", () => {
    const ajv = new Ajv({ strict: false, allErrors: false });
    let checked = 0;
    for (const c of channels.filter((ch) => ch.messageEncoding === "json")) {
      const validate = ajv.compile(JSON.parse(new TextDecoder().decode(schemas.get(c.schemaId)!.data)) as object);
      for (const m of byTopic.get(c.topic) ?? []) {
        if (!validate(m.message)) {
          expect({ topic: c.topic, errors: validate.errors }).toBeUndefined();
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30_000);
  });

  it("one tuple_timing per line of tuples.jsonl, with the same stamps, timespan and lag", async () => {
    const tuples = await lines(join(out, "tuples.jsonl"));
    const timing = (byTopic.get(topics.tupleTiming) ?? []).map((r) => r.message).sort((a, b) => (a.index as number) - (b.index as number));
    expect(tuples.length).toBe(988);
    expect(timing.length).toBe(tuples.length);
    timing.forEach((t, i) => {
      const line = tuples[i]!;
      expect(t.index).toBe(i);
      expect((t.stamps as Time[]).map(ns)).toEqual(line.stamps);
      expect(t.topics).toEqual(line.topics);
      expect(Math.round((t.timespan_ms as number) * 1e6)).toBe(line.timespan);
      expect(Math.round((t.lag_ms as number) * 1e6)).toBe(line.lag);
    });
  });

  it("one foxglove.Log per line of drops.jsonl: topic, stamp and reason", async () => {
    const drops = await lines(join(out, "drops.jsonl"));
    const logs = (byTopic.get(topics.drops) ?? []).map((r) => r.message);
    expect(drops.length).toBeGreaterThan(13_000);
    expect(logs.length).toBe(drops.length);
    const fromFile = drops.map((d) => `${String(d.topic)} ${String(d.reason)} ${typeof d.stamp === "string" ? d.stamp : "-"} ${String(d.stage)}`);
    const fromLogs = logs.map((l) => {
      const reason = /^([a-z-]+)/.exec(l.message as string)![1]!;
      const hasStamp = !(l.message as string).endsWith("(no usable stamp)");
      const stage = (l.file as string).split("/")[0]!;
      return `${String(l.name)} ${reason} ${hasStamp ? ns(l.timestamp as Time) : "-"} ${stage}`;
    });
    expect(counted(fromLogs)).toEqual(counted(fromFile));
  });

  it("one foxglove.SceneUpdate per transaction, for its sensor and stamp", async () => {
    const summary = JSON.parse(await readFile(join(out, "summary.json"), "utf8")) as { transactions: number };
    const txs = await lines(join(out, "transactions.jsonl"));
    const scenes = (byTopic.get(topics.transactions) ?? []).map((r) => r.message);
    expect(summary.transactions).toBeGreaterThan(15_000);
    expect(txs.length).toBe(summary.transactions);
    expect(scenes.length).toBe(summary.transactions);
    const entity = (s: Record<string, unknown>): { id: string; timestamp: Time; spheres: unknown[] } =>
      (s.entities as { id: string; timestamp: Time; spheres: unknown[] }[])[0]!;
    expect(counted(scenes.map((s) => `${entity(s).id} ${ns(entity(s).timestamp)}`))).toEqual(
      counted(txs.map((t) => `transaction/${String(t.source)} ${String(t.stamp)}`)),
    );
    // Each added 2D position is drawn.
    const positions = txs.reduce((n, t) => n + (t.addedVariables as { type: string }[]).filter((v) => v.type === "fuse_variables::Position2DStamped").length, 0);
    expect(scenes.reduce((n, s) => n + entity(s).spheres.length, 0)).toBe(positions);
  });

  it("fused odometry and poses: one per cycle, the last equal to summary.json's final pose", async () => {
    const summary = JSON.parse(await readFile(join(out, "summary.json"), "utf8")) as {
      fusion: { finalPose: { stamp: string; x: number; y: number; yaw: number } };
    };
    const odom = byTopic.get(topics.fusedOdometry) ?? [];
    const poses = byTopic.get(topics.fusedPoses) ?? [];
    expect(odom.length).toBeGreaterThan(3000); // 10 Hz over 395 s
    expect(poses.length).toBe(odom.length);
    const last = odom[odom.length - 1]!.message as { timestamp: Time; frame_id: string; pose: { position: { x: number; y: number }; orientation: { z: number; w: number } } };
    const final = summary.fusion.finalPose;
    expect(ns(last.timestamp)).toBe(final.stamp);
    expect(last.frame_id).toBe("odom");
    expect(last.pose.position.x).toBeCloseTo(final.x, 9);
    expect(last.pose.position.y).toBeCloseTo(final.y, 9);
    const yaw = 2 * Math.atan2(last.pose.orientation.z, last.pose.orientation.w);
    expect(Math.cos(yaw - final.yaw)).toBeCloseTo(1, 9);
    // Each PosesInFrame ends with the same cycle's odometry pose, its trail oldest first.
    poses.forEach((p, i) => {
      const list = (p.message as { poses: { position: unknown }[] }).poses;
      expect(list.length).toBeGreaterThanOrEqual(1);
      expect(list.length).toBeLessThanOrEqual(10);
      expect(list[list.length - 1]!.position).toEqual((odom[i]!.message as { pose: { position: unknown } }).pose.position);
    });
  });
});
