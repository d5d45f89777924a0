// Memory of `lockstep serve` under clients that never read (issue: bounded memory in serve).
// Not a test and not timed: it prints figures. Run:
//   npx tsx bench/serveMemory.ts [--clients 10] [--seconds 60] [--speed 100] [recording]
// Spawns `lockstep serve <recording> --loop --speed <speed>`, connects <clients> raw WebSocket
// clients that subscribe to every channel and then never read a byte, and samples the server
// process's resident memory (/proc/<pid>/status VmRSS, and VmHWM = peak) once a second.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";

import { connectClient, rawClient } from "../src/cli/serve/testing/serveClients";

const { values, positionals } = parseArgs({
  options: { clients: { type: "string", default: "10" }, seconds: { type: "string", default: "60" }, speed: { type: "string", default: "100" } },
  allowPositionals: true,
});
const root = resolve(import.meta.dirname, "..");
const file = positionals[0] ?? resolve(root, "samples/husky-2015.bag");
const clients = Number(values.clients);
const seconds = Number(values.seconds);

function memoryMB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

const child = spawn(process.execPath, ["bin/lockstep.js", "serve", file, "--loop", "--speed", values.speed, "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
let out = "";
child.stdout.on("data", (d: Buffer) => (out += d.toString()));
const port = await new Promise<number>((resolvePort) => {
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
    const m = /on ws:\/\/127\.0\.0\.1:(\d+)/.exec(err);
    if (m) {
      resolvePort(Number(m[1]));
    }
  });
});
const idle = memoryMB(child.pid!);
// One reading client starts playback (and shows the others do not slow it).
const reader = connectClient(`ws://127.0.0.1:${port}`);
let read = 0;
reader.client.on("message", () => read++);
const channels = await reader.channels;
for (const c of channels) {
  reader.client.subscribe(c.id);
}
const stalled = [];
for (let i = 0; i < clients; i++) {
  const raw = await rawClient(port);
  const subscribe = JSON.stringify({ op: "subscribe", subscriptions: channels.map((c, k) => ({ id: k, channelId: c.id })) });
  raw.sendFrame(0x81, new TextEncoder().encode(subscribe));
  raw.socket.pause();
  stalled.push(raw);
}
let maxRss = 0;
for (let s = 1; s <= seconds; s++) {
  await new Promise((r) => setTimeout(r, 1000));
  const m = memoryMB(child.pid!);
  maxRss = Math.max(maxRss, m.rss);
  if (s % 10 === 0 || s === 1) {
    console.log(`t=${s}s rss=${m.rss.toFixed(1)} MB peak=${m.peak.toFixed(1)} MB reader=${read} messages`);
  }
}
const end = memoryMB(child.pid!);
child.kill("SIGTERM");
await new Promise((r) => child.on("exit", r));
const skipped = [...out.matchAll(/disconnected \((\d+) messages sent, (\d+) skipped\)/g)].map((m) => Number(m[2]));
const slow = [...out.matchAll(/stopped reading: disconnected/g)].length;
console.log(
  JSON.stringify({
    file,
    clients,
    seconds,
    speed: Number(values.speed),
    idleRssMB: Number(idle.rss.toFixed(1)),
    maxRssMB: Number(maxRss.toFixed(1)),
    peakRssMB: Number(end.peak.toFixed(1)),
    readerMessages: read,
    skippedPerClient: skipped,
    disconnectedAsStalled: slow,
  }),
);
process.exit(0);
