import wsProtocol from "@foxglove/ws-protocol";
import type { Command } from "commander";
import { WebSocketServer } from "ws";

import type { Recording } from "../../recording";
import { openRecordingFile } from "../../recording/node";
import { CliError } from "../CliError";

/** Options of `startServe` (the `lockstep serve` flags). */
export interface ServeOptions {
  /** Recording to play (.bag or .mcap). */
  readonly file: string;
  /** TCP port on 127.0.0.1; 0 picks a free one. Default 8765. */
  readonly port?: number;
  /** Playback speed factor (1 = real time, 10 = ten times faster). Default 1. Must be > 0. */
  readonly speed?: number;
  /** Start over at the end, forever (header stamps keep increasing, see `shiftRos1HeaderStamp`). Default false. */
  readonly loop?: boolean;
  /** Where log lines go (one line per call, without newline). Default: stdout. */
  readonly log?: (line: string) => void;
}

/** A running `lockstep serve`. */
export interface ServeHandle {
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  /** `ws://127.0.0.1:<port>`. */
  readonly url: string;
  /** Resolves when playback ends (never with `loop`), rejects on a read error. */
  readonly finished: Promise<void>;
  /** Stops playback and closes every connection and the socket. */
  close(): Promise<void>;
}

// @foxglove/ws-protocol is CommonJS whose named exports Node's ESM loader cannot see: take them
// from the default (module.exports) import.
const { FoxgloveServer } = wsProtocol;

/** Wall time between the first subscription and the first message sent. */
const START_GRACE_MS = 250;

const HEADER_RE = /^\s*(?:std_msgs\/)?Header\s+header\s*$/;

/**
 * Whether a ROS 1 message definition starts with `Header header`: then the serialized message
 * begins with seq (uint32), stamp.sec (uint32), stamp.nsec (uint32).
 */
export function startsWithRos1Header(definition: string): boolean {
  for (const line of definition.split("\n")) {
    const t = line.replace(/#.*/, "").trim();
    if (t === "") {
      continue;
    }
    return HEADER_RE.test(t);
  }
  return false;
}

/**
 * Copy of a serialized ROS 1 message with its header stamp moved forward by `offsetNs` (so that a
 * looped recording's stamps keep increasing, as a live robot's would). Returns the data unchanged
 * when the offset is 0.
 */
export function shiftRos1HeaderStamp(data: Uint8Array, offsetNs: bigint): Uint8Array {
  if (offsetNs === 0n || data.byteLength < 12) {
    return data;
  }
  const out = new Uint8Array(data);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const sec = BigInt(view.getUint32(4, true));
  const nsec = BigInt(view.getUint32(8, true));
  if (sec === 0n && nsec === 0n) {
    return out; // an unset stamp stays unset
  }
  const total = sec * 1_000_000_000n + nsec + offsetNs;
  view.setUint32(4, Number(total / 1_000_000_000n), true);
  view.setUint32(8, Number(total % 1_000_000_000n), true);
  return out;
}

/**
 * One line describing a message a client published: topic, schema, encoding and a payload
 * summary (the JSON text, cut at 200 characters, or the byte count for binary encodings).
 */
export function describeClientMessage(
  channel: { topic: string; schemaName: string; encoding: string },
  data: ArrayBufferView,
): string {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let summary: string;
  if (channel.encoding === "json") {
    const text = new TextDecoder().decode(bytes);
    try {
      const compact = JSON.stringify(JSON.parse(text));
      summary = compact.length > 200 ? `${compact.slice(0, 200)}… (${bytes.byteLength} bytes)` : compact;
    } catch {
      summary = `invalid JSON (${bytes.byteLength} bytes): ${text.slice(0, 80)}`;
    }
  } else {
    summary = `${bytes.byteLength} bytes`;
  }
  return `client publish ${channel.topic} [${channel.schemaName}, ${channel.encoding}] ${summary}`;
}

function toNs(t: { sec: number; nsec: number }): bigint {
  return BigInt(t.sec) * 1_000_000_000n + BigInt(t.nsec);
}

async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

/**
 * Plays a recording as a live Foxglove WebSocket server (`foxglove.websocket.v1`) on 127.0.0.1:
 * one channel per topic with the recording's own encoding and schema, messages sent at their
 * receive times scaled by `speed`, optionally looping. Declares `clientPublish` with
 * supportedEncodings ["json", <recording encoding>], and logs every client advertisement and
 * published message through `log`. Rejects with CliError when the file cannot be opened.
 */
export async function startServe(options: ServeOptions): Promise<ServeHandle> {
  const speed = options.speed ?? 1;
  if (!(speed > 0) || !Number.isFinite(speed)) {
    throw new CliError(`--speed must be a positive number, got ${String(options.speed)}`, 2);
  }
  const port = options.port ?? 8765;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CliError(`--port must be an integer from 0 to 65535, got ${String(options.port)}`, 2);
  }
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  let recording: Recording & { close(): Promise<void> };
  try {
    recording = await openRecordingFile(options.file);
  } catch (err) {
    throw new CliError(`cannot open ${options.file}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  const encodings = [...new Set(recording.info.channels.map((c) => c.messageEncoding))];
  const server = new FoxgloveServer({
    name: `lockstep serve ${options.file}`,
    capabilities: ["clientPublish"],
    supportedEncodings: ["json", ...encodings.filter((e) => e !== "json")],
  });
  const channelIds = new Map<string, number>();
  const shiftable = new Set<string>();
  for (const channel of recording.info.channels) {
    const schema = new TextDecoder().decode(channel.schemaData);
    channelIds.set(
      channel.topic,
      server.addChannel({
        topic: channel.topic,
        encoding: channel.messageEncoding,
        schemaName: channel.schemaName,
        schema,
        schemaEncoding: channel.schemaEncoding,
      }),
    );
    if (channel.messageEncoding === "ros1" && startsWithRos1Header(schema)) {
      shiftable.add(channel.topic);
    }
  }
  server.on("advertise", (ch) => {
    log(`client advertise ${ch.topic} [${ch.schemaName}, ${ch.encoding}] from ${ch.client.name}`);
  });
  server.on("unadvertise", (ch) => {
    log(`client unadvertise channel ${ch.channelId} from ${ch.client.name}`);
  });
  server.on("message", ({ channel, data }) => {
    log(describeClientMessage(channel, data));
  });
  server.on("error", (err) => {
    process.stderr.write(`lockstep serve: ${err.message}\n`);
  });

  const wss = new WebSocketServer({
    host: "127.0.0.1",
    port,
    handleProtocols: (protocols) => server.handleProtocols(protocols),
  });
  await new Promise<void>((resolve, reject) => {
    wss.once("listening", resolve);
    wss.once("error", (err) => {
      reject(new CliError(`cannot listen on 127.0.0.1:${port}: ${err.message}`, 1));
    });
  });
  wss.on("connection", (conn, req) => {
    const name = `${req.socket.remoteAddress ?? "?"}:${req.socket.remotePort ?? "?"}`;
    process.stderr.write(`lockstep serve: client ${name} connected\n`);
    conn.on("close", () => process.stderr.write(`lockstep serve: client ${name} disconnected\n`));
    server.handleConnection(conn, name);
  });
  const address = wss.address();
  const boundPort = address != undefined && typeof address === "object" ? address.port : port;

  const abort = new AbortController();
  // Playback starts when the first client subscribes (plus a short grace period so that its other
  // subscriptions arrive too): nobody misses the beginning of the recording.
  const firstSubscription = new Promise<void>((resolve) => {
    server.on("subscribe", () => {
      resolve();
    });
    abort.signal.addEventListener("abort", () => {
      resolve();
    });
  });
  const play = async (): Promise<void> => {
    log(`waiting for a client to subscribe on 127.0.0.1:${boundPort}`);
    await firstSubscription;
    await sleep(START_GRACE_MS, abort.signal);
    log("playback started");
    let loopOffset = 0n;
    do {
      let first: bigint | undefined;
      let last = 0n;
      const wallStart = performance.now();
      for await (const m of recording.messages({ decode: false })) {
        if (abort.signal.aborted) {
          return;
        }
        const t = toNs(m.receiveTime);
        first ??= t;
        last = t;
        const dueMs = Number(t - first) / 1e6 / speed;
        const aheadMs = dueMs - (performance.now() - wallStart);
        if (aheadMs > 1) {
          await sleep(aheadMs, abort.signal);
        }
        // (sleep returns early on abort)
        if (abort.signal.aborted as boolean) {
          return;
        }
        const id = channelIds.get(m.topic);
        if (id != undefined) {
          const data = shiftable.has(m.topic) ? shiftRos1HeaderStamp(m.data, loopOffset) : m.data;
          server.sendMessage(id, t + loopOffset, data as Uint8Array<ArrayBuffer>);
        }
      }
      // Next pass starts one median-ish gap after the last message of this one.
      loopOffset += first == undefined ? 0n : last - first + 100_000_000n;
    } while (options.loop === true && !abort.signal.aborted);
  };
  const finished = play();
  finished.catch(() => {
    // reported to whoever awaits `finished`
  });
  return {
    port: boundPort,
    url: `ws://127.0.0.1:${boundPort}`,
    finished,
    close: async () => {
      abort.abort();
      await finished.catch(() => undefined);
      for (const client of wss.clients) {
        client.terminate();
      }
      await new Promise<void>((resolve) => {
        wss.close(() => {
          resolve();
        });
      });
      await recording.close();
    },
  };
}

/** Registers `lockstep serve <file> [--port] [--speed] [--loop]`. */
export function registerServe(program: Command): void {
  program
    .command("serve")
    .description(
      "play a recording as a live Foxglove WebSocket server on 127.0.0.1 (clientPublish enabled; published messages are logged)",
    )
    .argument("<file>", "recording to play (.bag or .mcap)")
    .option("--port <n>", "TCP port on 127.0.0.1", "8765")
    .option("--speed <x>", "playback speed factor (1 = real time)", "1")
    .option("--loop", "start over at the end", false)
    .action(async (file: string, opts: { port: string; speed: string; loop: boolean }) => {
      const port = Number(opts.port);
      const speed = Number(opts.speed);
      const handle = await startServe({ file, port, speed, loop: opts.loop });
      process.stderr.write(
        `lockstep serve: ${file} on ${handle.url} (speed ${speed}×${opts.loop ? ", looping" : ""}); open it in Foxglove with "Open connection" → Foxglove WebSocket; Ctrl-C stops\n`,
      );
      const stop = new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await Promise.race([handle.finished, stop]);
      await handle.close();
    });
}
