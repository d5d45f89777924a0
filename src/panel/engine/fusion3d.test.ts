import type { Immutable, MessageEvent } from "@foxglove/extension";
import type { Channel } from "@foxglove/ws-protocol";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { EngineClient } from "./EngineClient";
import { localEnginePort } from "./EngineServer";
import type { EngineDelta, EngineInput, FusedPose } from "./engineTypes";
import { analyzeRange } from "./rangeAnalysis";
import { slimMessage } from "./slimMessage";
import { hostRangeSubscribe } from "./testing";
import { runAnalyze } from "../../cli/commands/analyze";
import { startServe, type ServeHandle } from "../../cli/commands/serve";
import { connectClient } from "../../cli/serve/testing/serveClients";
import { parseConfig } from "../../pipeline";
import { createDecoder, type MessageDecoder } from "../../recording/decoders";
import { openRecordingFile } from "../../recording/node";
import { REPO_ROOT, sharedRecording } from "../../recording/testing/paths";

// The 3D preset (config/jackal-3d.json) in the panel: the engine the panel's Web Worker runs
// (EngineServer behind the engine protocol, here on the in-page port) must give exactly what
// `lockstep analyze` gives, whether it is fed the whole recording as "Analyze whole recording"
// does (the host's range subscription, one iterator per topic, merged by receive time and slimmed
// by analyzeRange, then `finish`) or a live stream from `lockstep serve` read by a WebSocket
// client (live mode: no end of stream, so everything but the optimizer's last queue).
const JACKAL = sharedRecording("jackal-sim-2014.bag");
const CONFIG = JSON.parse(readFileSync(join(REPO_ROOT, "config/jackal-3d.json"), "utf8")) as { inputs: { topic: string }[] };
const TOPICS = CONFIG.inputs.map((i) => i.topic);
/** Messages per engine request: a few of the panel's frames. */
const BATCH = 250;

// Constraint UUIDs are random (v4, as fuse's); everything else in a transaction is deterministic.
const normalize = (json: string): string => json.replace(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<random>");

interface Oracle {
  readonly lines: string[];
  readonly finalPose: { stamp: string; x: number; y: number; z: number; roll: number; pitch: number; yaw: number };
  /** summary.json's `transactions` and `fusion` counts and warnings. */
  readonly transactions: number;
  readonly transactionsBySensor: Record<string, number>;
  readonly drops: Record<string, number>;
  readonly warnings: string[];
}

/** The engine's output over a whole session. */
interface Session {
  readonly deltas: EngineDelta[];
  readonly errors: string[];
  readonly transactions: string[];
  readonly poses: FusedPose[];
}

function session(): { client: EngineClient; result: () => Session } {
  const deltas: EngineDelta[] = [];
  const errors: string[] = [];
  const client = new EngineClient({ onDelta: (d) => deltas.push(d), onError: (m) => errors.push(m) }, { inPage: localEnginePort });
  client.configure(CONFIG);
  return {
    client,
    result: () => ({
      deltas,
      errors,
      transactions: deltas.flatMap((d) => d.transactions.map((t) => normalize(JSON.stringify(t)))),
      poses: deltas.flatMap((d) => d.fusedPoses),
    }),
  };
}

/** The pose's stamp as analyze prints it (absolute ns), from the engine's time base. */
function absoluteStamp(delta: EngineDelta, pose: FusedPose): string {
  return String(BigInt(delta.baseSec!) * 1_000_000_000n + BigInt(pose.stamp));
}

/**
 * `complete`: every transaction was handed out (deltas taken often enough); otherwise each delta
 * carries only the newest TX_DELTA_CAP of what it covers (the view keeps that many anyway), so
 * they are analyze's in order with gaps, and the last ones are analyze's last ones.
 */
function expectSameAsAnalyze(s: Session, oracle: Oracle, { complete }: { complete: boolean }): void {
  expect(s.errors).toEqual([]);
  const last = s.deltas.at(-1)!;
  expect(last.rejected).toBe(0);
  if (complete) {
    // Every transaction, in order, byte for byte (random constraint UUIDs aside).
    expect(s.transactions.length).toBe(oracle.lines.length);
    expect(s.transactions).toEqual(oracle.lines);
  } else {
    let at = 0;
    for (const t of s.transactions) {
      while (at < oracle.lines.length && oracle.lines[at] !== t) {
        at++;
      }
      expect(at, "a transaction analyze does not have, or out of order").toBeLessThan(oracle.lines.length);
      at++;
    }
    expect(at).toBe(oracle.lines.length);
    const tail = last.transactions.length;
    expect(tail).toBeGreaterThan(0);
    expect(s.transactions.slice(-tail)).toEqual(oracle.lines.slice(-tail));
  }
  const pose = s.poses.at(-1)!;
  const { stamp, ...rest } = oracle.finalPose;
  expect(absoluteStamp(last, pose)).toBe(stamp);
  expect({ x: pose.x, y: pose.y, z: pose.z, roll: pose.roll, pitch: pose.pitch, yaw: pose.yaw }).toEqual(rest);
  // The run as a whole, as the transactions tab sums it up: analyze's counts, drops and warnings.
  const fusion = last.fusion!;
  expect(fusion.transactions).toBe(oracle.transactions);
  expect(fusion.transactions).toBe(oracle.lines.length);
  expect(Object.fromEntries(fusion.transactionsBySensor)).toEqual(oracle.transactionsBySensor);
  expect(Object.fromEntries(fusion.drops)).toEqual(oracle.drops);
  expect(fusion.warnings).toEqual(oracle.warnings);
  expect(fusion.finalPose).toEqual(pose);
  // The trajectory leaves the ground: the view has a height to show.
  expect(Math.max(...s.poses.map((p) => p.z)) - Math.min(...s.poses.map((p) => p.z))).toBeGreaterThan(0.5);
}

describe.runIf(existsSync(JACKAL))("the 3D preset (jackal-sim-2014.bag) in the panel engine", () => {
  let oracle: Oracle;
  /** Messages on the input topics in the recording. */
  let messages = 0;
  let out: string;
  let serve: ServeHandle | undefined;

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "lockstep-jackal3d-"));
    const result = await runAnalyze({ file: JACKAL, config: parseConfig(CONFIG), out, progress: false });
    expect(result.errors).toEqual([]);
    const lines = readFileSync(join(out, "transactions.jsonl"), "utf8").split("\n").filter((l) => l !== "").map(normalize);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as {
      transactions: number;
      fusion: Pick<Oracle, "finalPose" | "transactionsBySensor" | "drops" | "warnings">;
    };
    oracle = { lines, transactions: summary.transactions, ...summary.fusion };
    const rec = await openRecordingFile(JACKAL);
    for await (const _ of rec.messages({ topics: TOPICS, decode: false })) {
      messages++;
    }
    await rec.close();
    // robot_localization's 3D reference result for this bag (../shared/data/README.md).
    const p = oracle.finalPose;
    expect(Math.hypot(p.x - 1.0206, p.y - 3.4292, p.z - 0.7419)).toBeLessThan(0.3);
  }, 300_000);

  afterAll(async () => {
    await serve?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it("whole recording (the panel's range analysis, then finish): analyze's transactions and final 3D pose", async () => {
    const byTopic = new Map<string, Immutable<MessageEvent>[]>(TOPICS.map((t) => [t, []]));
    const rec = await openRecordingFile(JACKAL);
    for await (const m of rec.messages({ topics: TOPICS })) {
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- a required field of the type
      byTopic.get(m.topic)!.push({ topic: m.topic, schemaName: m.schemaName, receiveTime: m.receiveTime, message: m.message, sizeInBytes: 0 });
    }
    await rec.close();
    const { client, result } = session();
    const n = await analyzeRange(hostRangeSubscribe(byTopic), TOPICS, async (events) => {
      await client.ingest(events);
    }, { signal: new AbortController().signal, onProgress: () => undefined });
    expect(n).toBe(messages);
    await client.finish();
    client.dispose();
    expectSameAsAnalyze(result(), oracle, { complete: false });
  }, 300_000);

  it("live, fed by `lockstep serve` through a WebSocket client: analyze's transactions and final 3D pose", async () => {
    serve = await startServe({ file: JACKAL, port: 0, speed: 20, log: () => undefined });
    const conn = connectClient(serve.url);
    const channels = await conn.channels;
    const byId = new Map<number, { channel: Channel; decode: MessageDecoder }>();
    for (const c of channels.filter((ch) => TOPICS.includes(ch.topic))) {
      const decode = createDecoder({
        topic: c.topic,
        schemaName: c.schemaName,
        schemaEncoding: c.schemaEncoding ?? "",
        schemaData: new TextEncoder().encode(c.schema),
        messageEncoding: c.encoding,
        metadata: new Map(),
      });
      byId.set(conn.client.subscribe(c.id), { channel: c, decode });
    }
    expect(byId.size).toBe(TOPICS.length);
    const { client, result } = session();
    // Frames go to the engine as they arrive, in order (the panel's live frames), each processed
    // before the next: the engine never skips, so the comparison is exact.
    let chain = Promise.resolve();
    let frame: EngineInput[] = [];
    let seq = 0;
    const send = (): void => {
      const events = frame;
      frame = [];
      chain = chain.then(async () => {
        await client.ingest(events);
        await client.flush();
      });
    };
    conn.client.on("message", ({ subscriptionId, timestamp, data }) => {
      const sub = byId.get(subscriptionId)!;
      const sec = Number(timestamp / 1_000_000_000n);
      const nsec = Number(timestamp % 1_000_000_000n);
      const message = sub.decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      frame.push({ seq: seq++, topic: sub.channel.topic, schemaName: sub.channel.schemaName, receiveTime: { sec, nsec }, message: slimMessage(message) });
      if (frame.length === BATCH) {
        send();
      }
    });
    await serve.finished;
    while (seq < messages) {
      await new Promise((r) => setTimeout(r, 20));
    }
    send();
    await chain;
    conn.ws.close();
    expect(serve.clientStats().map((c) => c.skipped)).toEqual([0]);
    // Live: what the optimizer has processed so far is analyze's, in order; only its last queue
    // (transactions younger than one optimization period and the lag) is still pending.
    const live = result().transactions.slice();
    expect(live).toEqual(oracle.lines.slice(0, live.length));
    expect(oracle.lines.length - live.length).toBeLessThan(50);
    expect(result().poses.length).toBeGreaterThan(500);
    // Ending the stream finishes it exactly as analyze does.
    await client.finish();
    client.dispose();
    expectSameAsAnalyze(result(), oracle, { complete: true });
  }, 300_000);
});
