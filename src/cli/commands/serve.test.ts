import { FoxgloveClient, type Channel } from "@foxglove/ws-protocol";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";

import { describeClientMessage, shiftRos1HeaderStamp, startServe, startsWithRos1Header, type ServeHandle } from "./serve";
import { openRecordingFile } from "../../recording/node";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BAG = [`${ROOT}samples/husky-2015.bag`, `${ROOT}../shared/data/husky-2015.bag`].find((p) => existsSync(p))!;

let handle: ServeHandle | undefined;
afterEach(async () => {
  await handle?.close();
  handle = undefined;
});

interface Connected {
  client: FoxgloveClient;
  serverInfo: Promise<{ capabilities: string[]; supportedEncodings?: string[] }>;
  channels: Promise<Channel[]>;
}

function connect(url: string): Connected {
  const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
  const client = new FoxgloveClient({ ws });
  // Listeners go on before any data can arrive: ws emits several frames in one tick.
  const serverInfo = new Promise<{ capabilities: string[]; supportedEncodings?: string[] }>((resolve) => {
    client.on("serverInfo", resolve);
  });
  const channels = new Promise<Channel[]>((resolve) => {
    client.on("advertise", resolve);
  });
  return { client, serverInfo, channels };
}

describe("lockstep serve", () => {
  it("streams every message of the recording in receive-time order and logs client publishes", async () => {
    // The expected stream, read independently of the server.
    const rec = await openRecordingFile(BAG);
    const expected: { topic: string; t: bigint; size: number }[] = [];
    for await (const m of rec.messages({ decode: false })) {
      expected.push({ topic: m.topic, t: BigInt(m.receiveTime.sec) * 1_000_000_000n + BigInt(m.receiveTime.nsec), size: m.data.byteLength });
    }
    await rec.close();
    expect(expected.length).toBe(16806);

    const lines: string[] = [];
    // 395 s of recording at 400× ≈ 1 s, starting when the client subscribes.
    handle = await startServe({ file: BAG, port: 0, speed: 400, log: (l) => lines.push(l) });
    const conn = connect(handle.url);
    const client = conn.client;
    const serverInfo = await conn.serverInfo;
    expect(serverInfo.capabilities).toContain("clientPublish");
    expect(serverInfo.supportedEncodings).toEqual(["json", "ros1"]);
    expect(handle.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const channels = await conn.channels;
    expect(channels.map((c) => c.topic).sort()).toEqual(["/fix", "/husky_velocity_controller/odom", "/imu/data"]);
    expect(channels.every((c) => c.encoding === "ros1" && c.schemaEncoding === "ros1msg" && c.schema.length > 0)).toBe(true);
    const topicOf = new Map<number, string>();
    for (const c of channels) {
      topicOf.set(client.subscribe(c.id), c.topic);
    }
    const got: { topic: string; t: bigint; size: number }[] = [];
    client.on("message", ({ subscriptionId, timestamp, data }) => {
      got.push({ topic: topicOf.get(subscriptionId)!, t: timestamp, size: data.byteLength });
    });
    await handle.finished;
    await new Promise((r) => setTimeout(r, 200));
    expect(got.length).toBe(expected.length);
    expect(got).toEqual(expected);

    const chan = client.advertise({ topic: "/lockstep/imu/data", encoding: "json", schemaName: "sensor_msgs/Imu" });
    client.sendMessage(chan, new TextEncoder().encode(JSON.stringify({ header: { stamp: { sec: 1, nsec: 2 } } })));
    await new Promise((r) => setTimeout(r, 300));
    client.close();
    expect(lines.some((l) => /^client advertise \/lockstep\/imu\/data \[sensor_msgs\/Imu, json\] from 127\.0\.0\.1:\d+$/.test(l))).toBe(true);
    expect(lines).toContain('client publish /lockstep/imu/data [sensor_msgs/Imu, json] {"header":{"stamp":{"sec":1,"nsec":2}}}');
  });

  it("--loop starts over with receive times and header stamps that keep increasing", async () => {
    handle = await startServe({ file: BAG, port: 0, speed: 2000, loop: true, log: () => undefined });
    const conn = connect(handle.url);
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
        const view = data as DataView;
        stamps.push(view.getUint32(4, true) * 1e9 + view.getUint32(8, true));
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

  it("rejects bad flags and missing files with a clear error", async () => {
    await expect(startServe({ file: BAG, speed: 0 })).rejects.toThrow(/--speed must be a positive number/);
    await expect(startServe({ file: BAG, port: 70000 })).rejects.toThrow(/--port must be an integer/);
    await expect(startServe({ file: `${ROOT}no-such.bag`, port: 0 })).rejects.toThrow(/cannot open .*no-such\.bag/);
  });

  it("recognizes header-first ROS 1 definitions and shifts their stamps exactly", () => {
    expect(startsWithRos1Header("# comment\nHeader header\nfloat64 x")).toBe(true);
    expect(startsWithRos1Header("std_msgs/Header header\n")).toBe(true);
    expect(startsWithRos1Header("float64 x\nHeader header")).toBe(false);
    const data = new Uint8Array(16);
    const v = new DataView(data.buffer);
    v.setUint32(0, 7, true);
    v.setUint32(4, 100, true);
    v.setUint32(8, 999_999_999, true);
    const shifted = new DataView(shiftRos1HeaderStamp(data, 2n).buffer);
    expect([shifted.getUint32(0, true), shifted.getUint32(4, true), shifted.getUint32(8, true)]).toEqual([7, 101, 1]);
    expect(v.getUint32(4, true)).toBe(100); // the input is not modified
  });

  it("summarizes JSON and binary payloads", () => {
    const ch = { topic: "/t", schemaName: "S", encoding: "json" };
    expect(describeClientMessage(ch, new TextEncoder().encode("{bad"))).toMatch(/invalid JSON \(4 bytes\)/);
    expect(describeClientMessage({ ...ch, encoding: "ros1" }, new Uint8Array(12))).toBe("client publish /t [S, ros1] 12 bytes");
    const long = JSON.stringify({ a: "x".repeat(500) });
    expect(describeClientMessage(ch, new TextEncoder().encode(long))).toMatch(/… \(\d+ bytes\)$/);
  });
});
