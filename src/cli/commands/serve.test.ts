import { FoxgloveClient } from "@foxglove/ws-protocol";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";

import { describeClientMessage, MAX_CLIENT_PAYLOAD_BYTES, portArgument, startServe, type ServeHandle } from "./serve";
import { openRecordingFile } from "../../recording/node";
import { writeMcap } from "../../recording/testing/mcapFixtures";
import { HUSKY_BAG } from "../../recording/testing/paths";
import { suiteTempDir } from "../../testing/tempDir";
import { connectClient, rawClient } from "../serve/testing/serveClients";

const BAG = HUSKY_BAG;
const NS = 1_000_000_000n;

let handle: ServeHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

interface Sent {
  topic: string;
  t: bigint;
  size: number;
}

async function readAll(file: string): Promise<Sent[]> {
  const rec = await openRecordingFile(file);
  const out: Sent[] = [];
  try {
    for await (const m of rec.messages({ decode: false })) {
      out.push({ topic: m.topic, t: BigInt(m.receiveTime.sec) * NS + BigInt(m.receiveTime.nsec), size: m.data.byteLength });
    }
  } catch {
    // a damaged file: what was readable
  }
  await rec.close();
  return out;
}

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) {
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** A JSON-encoded MCAP of `n` messages on two topics, 100 ms apart, in chunks of about 1 KiB. */
async function jsonMcap(n: number): Promise<Uint8Array> {
  const channels = ["/a", "/b"].map((topic) => ({ topic, schemaName: "T", schemaEncoding: "jsonschema", schema: "{}", messageEncoding: "json" }));
  const messages = Array.from({ length: n }, (_, i) => ({
    channel: i % 2,
    logTime: 1_700_000_000n * NS + BigInt(i) * 100_000_000n,
    data: new TextEncoder().encode(JSON.stringify({ i, pad: "x".repeat(40) })),
  }));
  return await writeMcap(channels, messages, { chunkSize: 1024 });
}

describe("lockstep serve", () => {
  const tmp = suiteTempDir("lockstep-serve-");

  it("streams every message of the recording in receive-time order, declares time and broadcasts it first", async () => {
    const expected = await readAll(BAG);
    expect(expected.length).toBe(16806);

    // 395 s of recording at 400× ≈ 1 s, starting when the client subscribes.
    handle = await startServe({ file: BAG, port: 0, speed: 400, log: () => undefined });
    const conn = connectClient(handle.url);
    const client = conn.client;
    const serverInfo = await conn.serverInfo;
    expect(serverInfo.capabilities).toEqual(expect.arrayContaining(["clientPublish", "time"]));
    expect(serverInfo.supportedEncodings).toEqual(["json", "ros1"]);
    expect(handle.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const channels = await conn.channels;
    expect(channels.map((c) => c.topic).sort()).toEqual(["/fix", "/husky_velocity_controller/odom", "/imu/data"]);
    expect(channels.every((c) => c.encoding === "ros1" && c.schemaEncoding === "ros1msg" && c.schema.length > 0)).toBe(true);
    const topicOf = new Map<number, string>();
    for (const c of channels) {
      topicOf.set(client.subscribe(c.id), c.topic);
    }
    const got: Sent[] = [];
    let time = 0n;
    let timeBehind = 0;
    client.on("time", ({ timestamp }) => {
      expect(timestamp > time).toBe(true);
      time = timestamp;
    });
    client.on("message", ({ subscriptionId, timestamp, data }) => {
      if (timestamp !== time) {
        timeBehind++; // every message comes after the time update that announces its time
      }
      got.push({ topic: topicOf.get(subscriptionId)!, t: timestamp, size: data.byteLength });
    });
    await handle.finished;
    await until(() => got.length >= expected.length);
    expect(got).toEqual(expected);
    expect(timeBehind).toBe(0);
    expect(handle.clientStats()[0]).toMatchObject({ skipped: 0 });
    client.close();
  });

  it("relays what a client publishes as a server channel to the other clients, and logs it escaped", async () => {
    const lines: string[] = [];
    handle = await startServe({ file: BAG, port: 0, speed: 1, log: (l) => lines.push(l) });
    const publisher = connectClient(handle.url);
    const viewer = connectClient(handle.url);
    await Promise.all([publisher.channels, viewer.channels]);
    const relayed = new Promise<{ id: number; topic: string; schemaName: string; encoding: string; schemaEncoding?: string }>((resolve) => {
      viewer.client.on("advertise", (chs) => {
        const c = chs.find((ch) => ch.topic === "/lockstep/imu/data");
        if (c) {
          resolve(c);
        }
      });
    });
    const pubChannel = publisher.client.advertise({ topic: "/lockstep/imu/data", encoding: "json", schemaName: "sensor_msgs/Imu" });
    const channel = await relayed;
    expect(channel).toMatchObject({ encoding: "json", schemaName: "sensor_msgs/Imu", schemaEncoding: "jsonschema" });
    const sub = viewer.client.subscribe(channel.id);
    const received: string[] = [];
    viewer.client.on("message", ({ subscriptionId, data }) => {
      if (subscriptionId === sub) {
        received.push(new TextDecoder().decode(data));
      }
    });
    // The subscription must reach the server before the publish: wait for its effect.
    await new Promise((r) => setTimeout(r, 100));
    const payloads = [1, 2, 3].map((n) => JSON.stringify({ header: { stamp: { sec: n, nsec: 2 } } }));
    for (const p of payloads) {
      publisher.client.sendMessage(pubChannel, new TextEncoder().encode(p));
    }
    await until(() => received.length === 3);
    expect(received).toEqual(payloads);
    expect(lines.some((l) => /^client advertise \/lockstep\/imu\/data \[sensor_msgs\/Imu, json\] from 127\.0\.0\.1:\d+: relayed$/.test(l))).toBe(true);
    expect(lines).toContain('client publish /lockstep/imu/data [sensor_msgs/Imu, json] {"header":{"stamp":{"sec":1,"nsec":2}}}');

    // A topic name with a newline and an ANSI escape is relayed, but logged escaped.
    publisher.client.advertise({ topic: "/evil\n\u001b[31mred", encoding: "json", schemaName: "x\r" });
    await until(() => lines.some((l) => l.includes("/evil")));
    const evil = lines.filter((l) => l.includes("/evil"));
    expect(evil[0]).toContain("/evil\\n\\x1b[31mred [x\\r, json]");
    // eslint-disable-next-line no-control-regex
    expect(lines.every((l) => !/[\u0000-\u001f\u007f]/.test(l))).toBe(true);

    // The recording's own topics cannot be taken over, and what is published on such a refused
    // channel is not logged as a publish.
    const refused = publisher.client.advertise({ topic: "/imu/data", encoding: "json", schemaName: "sensor_msgs/Imu" });
    await until(() => lines.some((l) => l.includes("not relaying /imu/data")));
    publisher.client.sendMessage(refused, new TextEncoder().encode('{"spoof":1}'));
    await until(() => lines.some((l) => l.includes("/imu/data [sensor_msgs/Imu, json], which is not relayed: ignored")));
    expect(lines.some((l) => l.startsWith("client publish /imu/data"))).toBe(false);

    // When the publisher leaves, its channels go.
    const gone = new Promise<number[]>((resolve) => {
      viewer.client.on("unadvertise", resolve);
    });
    publisher.client.close();
    expect(await gone).toContain(channel.id);
    viewer.client.close();
    // Closed connections are forgotten (each was logged with its figures).
    await until(() => handle!.clientStats().length === 0);
    expect(lines.filter((l) => / disconnected \([\d,]+ messages? sent, [\d,]+ skipped\)$/.test(l))).toHaveLength(2);
  });

  it("closes only the connection that sends a reserved opcode, bad UTF-8 or an oversized message", async () => {
    const lines: string[] = [];
    handle = await startServe({ file: BAG, port: 0, speed: 1, log: (l) => lines.push(l) });
    const reserved = await rawClient(handle.port);
    reserved.sendFrame(0x83, new Uint8Array([1, 2, 3])); // FIN + reserved opcode 3
    await reserved.closed;
    const badText = await rawClient(handle.port);
    badText.sendFrame(0x81, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])); // FIN + text, invalid UTF-8
    await badText.closed;

    const big = new WebSocket(handle.url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
    await new Promise((r) => big.once("open", r));
    const code = new Promise<number>((resolve) => {
      big.once("close", (c) => {
        resolve(c);
      });
    });
    big.on("error", () => undefined);
    big.send(new Uint8Array(MAX_CLIENT_PAYLOAD_BYTES + 1));
    expect(await code).toBe(1009);

    expect(lines.some((l) => /invalid opcode 3; connection closed$/i.test(l))).toBe(true);
    expect(lines.some((l) => /invalid UTF-8 sequence; connection closed$/i.test(l))).toBe(true);
    expect(lines.some((l) => l.endsWith("Max payload size exceeded; connection closed"))).toBe(true);
    // The server still serves.
    const after = connectClient(handle.url);
    expect((await after.channels).length).toBe(3);
    after.client.close();
  });

  it("names the client behind each protocol error, and a noisy client does not hide another's", async () => {
    const lines: string[] = [];
    handle = await startServe({ file: BAG, port: 0, speed: 1, log: (l) => lines.push(l) });
    const noisy = connectClient(handle.url);
    await noisy.channels;
    for (let i = 0; i < 100; i++) {
      noisy.ws.send(JSON.stringify({ op: `noise${i}` }));
    }
    await until(() => lines.some((l) => l.includes("only counted until it disconnects")));
    const quiet = connectClient(handle.url);
    await quiet.channels;
    quiet.ws.send(JSON.stringify({ op: "quiet" }));
    await until(() => lines.some((l) => l.includes("quiet")));
    const noisyName = /^client (\S+): protocol error: .*noise0/.exec(lines.find((l) => l.includes("noise0"))!)![1]!;
    const quietLine = lines.find((l) => l.includes("quiet"))!;
    expect(quietLine).toMatch(/^client \S+: protocol error: .*quiet/);
    expect(quietLine).not.toContain(noisyName);
    expect(lines.filter((l) => l.includes("noise")).length).toBeLessThan(100);
    noisy.client.close();
    await until(() => lines.some((l) => l.startsWith(`client ${noisyName}: `) && l.endsWith("more lines about it not logged")));
    quiet.client.close();
  });

  it("names a text frame that is JSON but not an object, ignores it and keeps the connection", async () => {
    const lines: string[] = [];
    handle = await startServe({ file: BAG, port: 0, speed: 1, log: (l) => lines.push(l) });
    const odd = connectClient(handle.url);
    await odd.channels;
    for (const text of ["null", " [1,2]", "42", '"op"']) {
      odd.ws.send(text);
    }
    odd.ws.send(JSON.stringify({ op: "after" }));
    await until(() => lines.some((l) => l.includes("after")));
    const named = lines.filter((l) => l.includes("a text frame that is JSON but not an object"));
    expect(named.map((l) => /\(([^)]*)\): ignored$/.exec(l)?.[1])).toEqual(["null", "an array", "a number", "a string"]);
    // The library's own wording for a null frame never reaches the log.
    expect(lines.some((l) => l.includes("Cannot read properties"))).toBe(false);
    // Still connected: the next frame was handled as a protocol message.
    expect(lines.find((l) => l.includes("after"))).toMatch(/^client \S+: protocol error: .*after/);
    odd.client.close();
  });

  it("refuses browser pages from foreign origins and admits the apps', loopback, file:// and --allow-origin", async () => {
    const lines: string[] = [];
    handle = await startServe({ file: BAG, port: 0, speed: 1, log: (l) => lines.push(l), allowOrigins: ["https://viz.example.org"] });
    const url = handle.url;
    const status = async (origin: string | undefined): Promise<number> => {
      const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL], origin == undefined ? {} : { origin });
      ws.on("error", () => undefined);
      return await new Promise<number>((resolve) => {
        ws.once("open", () => {
          ws.close();
          resolve(101);
        });
        ws.once("unexpected-response", (_req, res) => {
          resolve(res.statusCode ?? 0);
        });
      });
    };
    expect(await status("https://evil.example.com")).toBe(403);
    expect(await status("null")).toBe(403);
    expect(await status("http://127.0.0.1.evil.example.com")).toBe(403);
    expect(await status("https://app.foxglove.dev")).toBe(101);
    expect(await status("https://studio.foxglove.dev")).toBe(101);
    expect(await status("http://127.0.0.1:8080")).toBe(101);
    expect(await status("http://localhost:3000")).toBe(101);
    expect(await status("file://")).toBe(101);
    expect(await status(undefined)).toBe(101);
    expect(await status("https://viz.example.org")).toBe(101);
    expect(lines.some((l) => l.startsWith('refused a connection from origin "https://evil.example.com"') && l.includes("--allow-origin"))).toBe(true);
    // A page retrying in a loop does not flood the log: some refusals are logged, then a count.
    for (let batch = 0; batch < 20; batch++) {
      await Promise.all(Array.from({ length: 50 }, async () => await status("https://retry.example.com")));
    }
    const refused = lines.filter((l) => l.startsWith("refused a connection from origin"));
    expect(refused.length).toBeLessThanOrEqual(20);
    expect(lines).toContain("1000 connections refused for their origin so far (only some are logged)");
  });

  it("--now shifts receive times and header stamps to the wall clock by one exact offset", async () => {
    const original = await readAll(BAG);
    const rec = await openRecordingFile(BAG);
    const originalStamps: bigint[] = [];
    for await (const m of rec.messages({ topics: ["/imu/data"], decode: false })) {
      const v = new DataView(m.data.buffer, m.data.byteOffset, m.data.byteLength);
      originalStamps.push(BigInt(v.getUint32(4, true)) * NS + BigInt(v.getUint32(8, true)));
      if (originalStamps.length === 500) {
        break;
      }
    }
    await rec.close();
    const imuTimes = original.filter((m) => m.topic === "/imu/data").map((m) => m.t);

    handle = await startServe({ file: BAG, port: 0, speed: 100, now: true, log: () => undefined });
    const conn = connectClient(handle.url);
    const imu = (await conn.channels).find((c) => c.topic === "/imu/data")!;
    const sub = conn.client.subscribe(imu.id);
    const times: bigint[] = [];
    const stamps: bigint[] = [];
    await new Promise<void>((resolve) => {
      conn.client.on("message", ({ subscriptionId, timestamp, data }) => {
        if (subscriptionId !== sub || times.length >= 500) {
          return;
        }
        times.push(timestamp);
        const v = data as DataView;
        stamps.push(BigInt(v.getUint32(4, true)) * NS + BigInt(v.getUint32(8, true)));
        if (times.length === 500) {
          resolve();
        }
      });
    });
    conn.client.close();
    const offset = times[0]! - imuTimes[0]!;
    // Moved from 2015 into the present era (the recording starts at 1,432,235,498 s, May 2015;
    // 1,700,000,000 s is November 2023), by one exact offset for every message.
    expect(imuTimes[0]! < 1_500_000_000n * NS).toBe(true);
    expect(times[0]! > 1_700_000_000n * NS).toBe(true);
    for (let i = 0; i < 500; i++) {
      expect(times[i]! - imuTimes[i]!).toBe(offset);
      expect(stamps[i]! - originalStamps[i]!).toBe(offset);
    }
  });

  it("--loop starts over with receive times and header stamps that keep increasing", async () => {
    handle = await startServe({ file: BAG, port: 0, speed: 2000, loop: true, log: () => undefined });
    const conn = connectClient(handle.url);
    const channels = await conn.channels;
    const imu = channels.find((c) => c.topic === "/imu/data")!;
    const sub = conn.client.subscribe(imu.id);
    const times: bigint[] = [];
    const stamps: number[] = [];
    const total = 11865 + 2000; // one pass of /imu/data and part of the next
    await new Promise<void>((resolve) => {
      conn.client.on("message", ({ subscriptionId, timestamp, data }) => {
        if (subscriptionId !== sub || times.length >= total) {
          return;
        }
        times.push(timestamp);
        const v = data as DataView;
        stamps.push(v.getUint32(4, true) * 1e9 + v.getUint32(8, true));
        if (times.length === total) {
          resolve();
        }
      });
    });
    conn.client.close();
    for (let i = 1; i < total; i++) {
      expect(times[i]! > times[i - 1]!).toBe(true);
      expect(stamps[i]!).toBeGreaterThan(stamps[i - 1]!);
    }
  });

  it("serves an unindexed (truncated) recording as far as it is readable, then fails naming the offset", async () => {
    const dir = tmp.path;
    const whole = await jsonMcap(400);
    const file = join(dir, "truncated.mcap");
    writeFileSync(file, whole.subarray(0, Math.floor(whole.byteLength * 0.6)));
    const readable = await readAll(file);
    expect(readable.length).toBeGreaterThan(100);
    expect(readable.length).toBeLessThan(400);

    const lines: string[] = [];
    handle = await startServe({ file, port: 0, speed: 1000, log: (l) => lines.push(l) });
    const conn = connectClient(handle.url);
    const channels = await conn.channels;
    expect(channels.map((c) => c.topic).sort()).toEqual(["/a", "/b"]);
    const topicOf = new Map(channels.map((c) => [conn.client.subscribe(c.id), c.topic]));
    const got: Sent[] = [];
    conn.client.on("message", ({ subscriptionId, timestamp, data }) => {
      got.push({ topic: topicOf.get(subscriptionId)!, t: timestamp, size: data.byteLength });
    });
    await expect(handle.finished).rejects.toThrow(/offset \d+/);
    await until(() => got.length >= readable.length);
    expect(got).toEqual(readable);
    expect(lines.some((l) => l.startsWith("unindexed recording"))).toBe(true);
    expect(lines.some((l) => /^read error: .*offset \d+/.test(l))).toBe(true);
    conn.client.close();
  });

  it("serves a recording with a damaged chunk as far as it is readable, then fails naming the offset", async () => {
    const dir = tmp.path;
    const bytes = new Uint8Array(await jsonMcap(400));
    const all = await (async () => {
      const f = join(dir, "whole.mcap");
      writeFileSync(f, bytes);
      return await readAll(f);
    })();
    // Flip a byte inside a message of the middle of the file (its chunk's CRC no longer matches).
    const marker = new TextEncoder().encode('{"i":200,');
    let at = -1;
    for (let i = 0; i + marker.length <= bytes.length && at < 0; i++) {
      if (marker.every((b, k) => bytes[i + k] === b)) {
        at = i;
      }
    }
    expect(at).toBeGreaterThan(0);
    bytes[at + 2] = bytes[at + 2]! ^ 0x20;
    const file = join(dir, "damaged.mcap");
    writeFileSync(file, bytes);

    handle = await startServe({ file, port: 0, speed: 1000, log: () => undefined });
    const conn = connectClient(handle.url);
    const channels = await conn.channels;
    const topicOf = new Map(channels.map((c) => [conn.client.subscribe(c.id), c.topic]));
    const got: Sent[] = [];
    conn.client.on("message", ({ subscriptionId, timestamp, data }) => {
      got.push({ topic: topicOf.get(subscriptionId)!, t: timestamp, size: data.byteLength });
    });
    await expect(handle.finished).rejects.toThrow(/offset \d+/);
    await new Promise((r) => setTimeout(r, 200));
    // Everything before the damaged chunk arrived; whatever else arrived is real and in order
    // (readers that read past damage serve the later chunks too).
    const firstLost = all.findIndex((m) => m.t === 1_700_000_000n * NS + 200n * 100_000_000n);
    const before = all.slice(0, firstLost).filter((m) => m.t < all[firstLost]!.t - 2_000_000_000n);
    expect(got.slice(0, before.length)).toEqual(before);
    const index = new Map(all.map((m, i) => [m.t, i]));
    const positions = got.map((m) => index.get(m.t));
    expect(positions.every((p, i) => p != undefined && (i === 0 || p > positions[i - 1]!))).toBe(true);
    expect(got.some((m) => m.t === all[firstLost]!.t)).toBe(false);
    conn.client.close();
  });

  it("rejects bad flags and missing files with a clear error", async () => {
    await expect(startServe({ file: BAG, speed: 0 })).rejects.toThrow(/--speed must be a positive number/);
    await expect(startServe({ file: BAG, port: 70000 })).rejects.toThrow(/--port must be an integer/);
    await expect(startServe({ file: "/nonexistent/no-such.bag", port: 0 })).rejects.toThrow(/cannot open .*no-such\.bag/);
    // --port takes decimal digits only: an empty text is not port 0 (a random port).
    expect(portArgument("8765")).toBe(8765);
    for (const text of ["", "0x4e21", "1e3", " 80"]) {
      expect(() => portArgument(text)).toThrow(`--port must be an integer from 0 to 65535, got ${JSON.stringify(text)}`);
    }
  });

  it("summarizes JSON and binary payloads, escaping control characters", () => {
    const ch = { topic: "/t", schemaName: "S", encoding: "json" };
    expect(describeClientMessage(ch, new TextEncoder().encode("{bad\n"))).toMatch(/invalid JSON \(5 bytes\): \{bad\\n$/);
    expect(describeClientMessage({ ...ch, encoding: "ros1" }, new Uint8Array(12))).toBe("client publish /t [S, ros1] 12 bytes");
    const long = JSON.stringify({ a: "x".repeat(500) });
    expect(describeClientMessage(ch, new TextEncoder().encode(long))).toMatch(/… \(\d+ bytes\)$/);
  });
});
