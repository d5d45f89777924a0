// `lockstep serve` as a process: what only a separate process can show (signals, exit codes, a
// client that never reads while this process keeps reading). No timing assertions.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { openRecordingFile } from "../../recording/node";
import { writeMcap } from "../../recording/testing/mcapFixtures";
import { HUSKY_BAG, REPO_ROOT } from "../../recording/testing/paths";
import { suiteTempDir } from "../../testing/tempDir";
import { connectClient, rawClient } from "../serve/testing/serveClients";

const NS = 1_000_000_000n;

interface Served {
  readonly child: ChildProcess;
  readonly port: Promise<number>;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exit: Promise<number | null>;
  /** Resolves when a stdout line matches. */
  waitFor(re: RegExp): Promise<RegExpMatchArray>;
}

let running: ChildProcess | undefined;
afterEach(() => {
  if (running && running.exitCode == undefined) {
    running.kill("SIGKILL");
  }
  running = undefined;
});

function serve(args: string[]): Served {
  const child = spawn(process.execPath, ["bin/lockstep.js", "serve", ...args, "--port", "0"], { cwd: REPO_ROOT });
  running = child;
  let out = "";
  let err = "";
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  const check = (): void => {
    for (const w of [...waiters]) {
      const m = out.match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    check();
  });
  let resolvePort: (p: number) => void;
  const port = new Promise<number>((resolve) => {
    resolvePort = resolve;
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
    const m = /on ws:\/\/127\.0\.0\.1:(\d+)/.exec(err);
    if (m) {
      resolvePort(Number(m[1]));
    }
  });
  const exit = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      resolve(code);
    });
  });
  return {
    child,
    port,
    stdout: () => out,
    stderr: () => err,
    exit,
    waitFor: async (re) =>
      await new Promise((resolve) => {
        waiters.push({ re, resolve });
        check();
      }),
  };
}

describe("lockstep serve (process)", () => {
  const tmp = suiteTempDir("lockstep-serve-");

  it("skips and counts what a client that never reads cannot take, while another keeps receiving everything in order", async () => {
    const rec = await openRecordingFile(HUSKY_BAG);
    const pass: { topic: string; t: bigint }[] = [];
    for await (const m of rec.messages({ decode: false })) {
      pass.push({ topic: m.topic, t: BigInt(m.receiveTime.sec) * NS + BigInt(m.receiveTime.nsec) });
    }
    await rec.close();
    const passLength = pass[pass.length - 1]!.t - pass[0]!.t + 100_000_000n;

    const s = serve([HUSKY_BAG, "--loop", "--speed", "1000"]);
    const port = await s.port;
    // The reader subscribes first, so playback starts with it on board.
    const reader = connectClient(`ws://127.0.0.1:${port}`);
    const channels = await reader.channels;
    const topicOf = new Map(channels.map((c) => [reader.client.subscribe(c.id), c.topic]));
    const got: { topic: string; t: bigint }[] = [];
    reader.client.on("message", ({ subscriptionId, timestamp }) => {
      got.push({ topic: topicOf.get(subscriptionId)!, t: timestamp });
    });
    const readerName = (await s.waitFor(/client (127\.0\.0\.1:\d+) connected/))[1]!;

    // The stalled client subscribes to everything and then never reads a byte.
    const stalled = await rawClient(port);
    const subscribe = JSON.stringify({ op: "subscribe", subscriptions: channels.map((c, i) => ({ id: i, channelId: c.id })) });
    stalled.sendFrame(0x81, new TextEncoder().encode(subscribe));
    stalled.socket.pause();
    const stalledName = `127.0.0.1:${String(stalled.socket.localPort)}`;
    await s.waitFor(new RegExp(`client ${stalledName.replace(/\./g, "\\.")} is not keeping up`));

    // Keep reading until well after the stalled client started being skipped.
    const target = got.length + pass.length;
    while (got.length < target) {
      await new Promise((r) => setTimeout(r, 50));
    }
    reader.client.close();
    s.child.kill("SIGTERM");
    expect(await s.exit).toBe(0);

    // Everything the reader got is the recording, looped, in order and without a gap.
    const expected = (i: number): { topic: string; t: bigint } => {
      const m = pass[i % pass.length]!;
      return { topic: m.topic, t: m.t + BigInt(Math.floor(i / pass.length)) * passLength };
    };
    for (let i = 0; i < got.length; i++) {
      if (got[i]!.t !== expected(i).t || got[i]!.topic !== expected(i).topic) {
        expect({ index: i, got: got[i] }).toEqual({ index: i, got: expected(i) });
      }
    }
    const out = s.stdout();
    expect(out).not.toMatch(new RegExp(`client ${readerName.replace(/\./g, "\\.")} is not keeping up`));
    const stalledEnd = new RegExp(`client ${stalledName.replace(/\./g, "\\.")} (?:disconnected \\(([\\d,]+) messages? sent, ([\\d,]+) skipped\\)|stopped reading: disconnected \\(([\\d,]+) messages? skipped\\))`).exec(out);
    expect(stalledEnd).not.toBeNull();
    expect(Number((stalledEnd![2] ?? stalledEnd![3])!.replace(/,/g, ""))).toBeGreaterThan(0);
  });

  it("exits 0 on SIGINT during playback, with a connected client (SIGTERM: the test above)", async () => {
    for (const signal of ["SIGINT"] as const) {
      const s = serve([HUSKY_BAG, "--loop"]);
      const port = await s.port;
      const c = connectClient(`ws://127.0.0.1:${port}`);
      for (const ch of await c.channels) {
        c.client.subscribe(ch.id);
      }
      await s.waitFor(/playback started/);
      s.child.kill(signal);
      expect(await s.exit).toBe(0);
      expect(s.stderr()).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  it("exits 1 naming the offset when the recording is damaged, after serving what is readable", async () => {
    const channels = [{ topic: "/a", schemaName: "T", schemaEncoding: "jsonschema", schema: "{}", messageEncoding: "json" }];
    const messages = Array.from({ length: 300 }, (_, i) => ({
      channel: 0,
      logTime: 1_700_000_000n * NS + BigInt(i) * 1_000_000n,
      data: new TextEncoder().encode(JSON.stringify({ i })),
    }));
    const whole = await writeMcap(channels, messages, { chunkSize: 512 });
    const file = join(tmp.path, "cut.mcap");
    writeFileSync(file, whole.subarray(0, Math.floor(whole.byteLength / 2)));
    const s = serve([file]);
    const port = await s.port;
    const c = connectClient(`ws://127.0.0.1:${port}`);
    let received = 0;
    c.client.on("message", () => {
      received++;
    });
    for (const ch of await c.channels) {
      c.client.subscribe(ch.id);
    }
    expect(await s.exit).toBe(1);
    expect(received).toBeGreaterThan(50);
    expect(s.stderr()).toMatch(/lockstep: .*cut\.mcap .*offset \d+/);
    expect(s.stderr()).not.toMatch(/\n\s+at /);
  });
});
