import wsProtocol, { type ChannelId } from "@foxglove/ws-protocol";
import type { Command } from "commander";
import { setImmediate as nextTurn } from "node:timers/promises";
import { WebSocketServer } from "ws";

import { countOf, countText } from "../../pipeline/diagnosis/format";
import { RecordingError, type Recording, type RecordingChannel } from "../../recording";
import { openRecordingFile } from "../../recording/node";
import { CliError } from "../CliError";
import { escapeControlCharacters } from "../logText";
import { addMaxChunkSizeOption, maxChunkBytesOf } from "../maxChunkSize";
import { RECORDING_ARGUMENT } from "../recordingArgument";
import { BoundedClientSocket, type ClientSendStats } from "../serve/BoundedClientSocket";
import { ClientLog } from "../serve/ClientLog";
import { ClientRelay, describe } from "../serve/ClientRelay";
import { shiftHeaderStamp, startsWithHeader, type ShiftableEncoding } from "../serve/headerStamp";
import { OriginPolicy } from "../serve/originPolicy";

/** Options of `startServe` (the `lockstep serve` flags). */
export interface ServeOptions {
  /** Recording to play (.bag or .mcap). */
  readonly file: string;
  /** TCP port on 127.0.0.1; 0 picks a free one. Default 8765. */
  readonly port?: number;
  /** Playback speed factor (1 = real time, 10 = ten times faster). Default 1. Must be > 0. */
  readonly speed?: number;
  /** Start over at the end, forever (receive times and header stamps keep increasing). Default false. */
  readonly loop?: boolean;
  /**
   * Shift every receive time and header stamp so that playback starts at the wall clock's now, as
   * a robot's live data would be stamped. Default false (the recording's own times).
   */
  readonly now?: boolean;
  /** Origins accepted besides the defaults (see OriginPolicy), e.g. "https://lichtblick.example". */
  readonly allowOrigins?: readonly string[];
  /** The largest chunk or record read into memory (`OpenOptions.maxChunkBytes`; `--max-chunk-size`). */
  readonly maxChunkBytes?: number;
  /** Bytes queued for one client before its messages are skipped (BoundedClientSocket). Default 4 MiB. */
  readonly maxClientBufferBytes?: number;
  /** Where log lines go (one line per call, without newline; client text escaped). Default: stdout. */
  readonly log?: (line: string) => void;
}

/** A running `lockstep serve`. */
export interface ServeHandle {
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  /** `ws://127.0.0.1:<port>`. */
  readonly url: string;
  /**
   * Resolves when playback ends (never with `loop`); rejects with CliError(1) naming the byte
   * offset when the recording turns out damaged, after everything readable was served.
   */
  readonly finished: Promise<void>;
  /**
   * What each client connected now was sent and skipped (connection order); a closed
   * connection's figures are in its "disconnected" log line.
   */
  clientStats(): ClientSendStats[];
  /** Stops playback and closes every connection and the socket. */
  close(): Promise<void>;
}

// @foxglove/ws-protocol is CommonJS whose named exports Node's ESM loader cannot see: take them
// from the default (module.exports) import.
const { FoxgloveServer } = wsProtocol;

/** Wall time between the first subscription and the first message sent. */
const START_GRACE_MS = 250;
/**
 * Largest frame a client may send. Client publishes are the only large client frames; a few MiB
 * fits them (ws's default, 100 MiB, would let one frame take that much memory).
 */
export const MAX_CLIENT_PAYLOAD_BYTES = 4 << 20;
/** Longest stretch of playback without letting sockets and timers run (ms of wall time). */
const MAX_BUSY_MS = 20;
/** Client-published messages logged per channel before only every 1000th is. */
const LOGGED_PUBLISHES = 3;
/** Refused connections logged before only every 1000th is. */
const LOGGED_REFUSALS = 20;
const NS = 1_000_000_000n;

/**
 * One line describing a message a client published: topic, schema, encoding and a payload
 * summary (the JSON text, cut at 200 characters, or the byte count for binary encodings), with
 * every control character escaped (the text comes from the client).
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
  return `client publish ${describe(channel)} ${escapeControlCharacters(summary)}`;
}

function toNs(t: { sec: number; nsec: number }): bigint {
  return BigInt(t.sec) * NS + BigInt(t.nsec);
}

/**
 * A log for lines of one kind that a client can cause at will: the first LOGGED_REFUSALS go out,
 * then one line with the count every 1,000 (`what` names them, e.g. "connections refused for their origin").
 */
function throttled(log: (line: string) => void, what: string): (line: string) => void {
  let count = 0;
  return (line) => {
    count++;
    if (count <= LOGGED_REFUSALS) {
      log(line);
    } else if (count % 1000 === 0) {
      log(`${count} ${what} so far (only some are logged)`);
    }
  };
}

/** Longest single timer: Node runs a longer one (past 2^31 − 1 ms) at once, with a warning. */
const MAX_TIMER_MS = 2 ** 31 - 1;

async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  // A very slow playback (a tiny --speed) waits longer than one timer can.
  let left = ms;
  while (left > MAX_TIMER_MS && !signal.aborted) {
    await sleepOnce(MAX_TIMER_MS, signal);
    left -= MAX_TIMER_MS;
  }
  await sleepOnce(left, signal);
}

async function sleepOnce(ms: number, signal: AbortSignal): Promise<void> {
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
 * The recording's channels, one per topic: from the index, or for an unindexed (truncated,
 * interrupted) file from a scan of what is readable, so such a file is served too.
 */
async function channelsOf(recording: Recording, log: (line: string) => void): Promise<RecordingChannel[]> {
  if (recording.info.indexed) {
    return [...recording.info.channels];
  }
  log(`unindexed recording (${recording.info.indexProblem ?? "no index"}): scanning it for its topics`);
  const found = new Map<string, RecordingChannel>();
  try {
    for await (const m of recording.messages({ decode: false })) {
      if (!found.has(m.topic)) {
        found.set(m.topic, m.channel);
      }
    }
  } catch (err) {
    if (!(err instanceof RecordingError)) {
      throw err;
    }
    // Reported when playback reaches it.
  }
  return [...found.values()];
}

/**
 * What a client's text frame is when it is JSON but not an object ("null", "an array", …), else
 * undefined: the protocol library reads `op` from whatever the frame parses to, and for `null`
 * logs the engine's own TypeError. Only a frame that does not start with `{` is parsed here (a
 * protocol message always does); one that is not JSON at all is left to the library, which names
 * the syntax error.
 */
function jsonKindUnlessObject(text: string): string | undefined {
  if (text.trimStart().startsWith("{")) {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // eslint-disable-next-line @foxglove/strict-equality -- JSON has null but no undefined
  if (value === null) {
    return "null";
  }
  return Array.isArray(value) ? "an array" : typeof value === "object" ? undefined : `a ${typeof value}`;
}

/**
 * Plays a recording as a live Foxglove WebSocket server (`foxglove.websocket.v1`) on 127.0.0.1,
 * safe to run on a machine whose user browses the web:
 *
 * - one channel per topic with the recording's own encoding and schema; messages at their receive
 *   times scaled by `speed`, optionally looping; capability `time`, with the playback time
 *   broadcast before the messages it stamps, so the apps use the recording's clock (or, with
 *   `now`, the wall clock the stamps were shifted to);
 * - capability `clientPublish`: what clients publish is relayed as server channels (ClientRelay)
 *   and logged;
 * - handshakes are accepted only from the origins OriginPolicy allows (403 otherwise); a frame
 *   larger than MAX_CLIENT_PAYLOAD_BYTES or a malformed frame closes that connection only; a
 *   protocol error, or a text frame that is JSON but not an object, is logged against that
 *   client's budget (ClientLog) and ignored; a client that does not keep up has messages
 *   skipped and counted (BoundedClientSocket) and never slows the others; text from clients is
 *   escaped in the log;
 * - an unindexed or damaged recording is served as far as it is readable, then `finished` rejects
 *   naming the offset.
 *
 * Rejects with CliError when the flags are invalid (2) or the file cannot be opened or the port
 * bound (1).
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
  const origins = new OriginPolicy(options.allowOrigins ?? []);
  let recording: Recording & { close(): Promise<void> };
  try {
    recording = await openRecordingFile(options.file, { maxChunkBytes: options.maxChunkBytes });
  } catch (err) {
    throw new CliError(`cannot open ${options.file}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  let channels: RecordingChannel[];
  try {
    channels = await channelsOf(recording, log);
  } catch (err) {
    await recording.close();
    throw new CliError(`cannot read ${options.file}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  const encodings = [...new Set(channels.map((c) => c.messageEncoding))];
  const server = new FoxgloveServer({
    name: `lockstep serve ${options.file}`,
    capabilities: ["clientPublish", "time"],
    supportedEncodings: ["json", ...encodings.filter((e) => e !== "json")],
  });
  const channelIds = new Map<string, ChannelId>();
  const shiftable = new Map<string, ShiftableEncoding>();
  for (const channel of channels) {
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
    const encoding = channel.messageEncoding;
    if ((encoding === "ros1" || encoding === "cdr") && startsWithHeader(schema)) {
      shiftable.set(channel.topic, encoding);
    }
  }

  // The server's clock: the time of the latest message sent (before playback: where it will start).
  const recordingStart = recording.info.startTime ? toNs(recording.info.startTime) : undefined;
  let clock = options.now === true ? BigInt(Date.now()) * 1_000_000n : (recordingStart ?? 0n);
  // Lines a client can cause at will go through its own budget (see ClientLog).
  const clientLog = new ClientLog(log);
  /** The client whose frame the protocol library is handling now (its errors carry no client). */
  let speaking: string | undefined;
  const relay = new ClientRelay(server, {
    reservedTopics: new Set(channelIds.keys()),
    now: () => clock,
    log: (line, client) => {
      clientLog.line(client, line);
    },
  });
  // A page that retries in a loop must not flood the log either.
  const logRefusedOrigin = throttled(log, "connections refused for their origin");
  const publishesLogged = new Map<string, number>();
  server.on("advertise", (ch) => {
    relay.advertise(ch.client, ch);
  });
  server.on("unadvertise", (ch) => {
    relay.unadvertise(ch.client, ch.channelId);
  });
  server.on("message", ({ client, channel, data }) => {
    // The protocol library also takes a JSON frame whose op is the number of a binary message,
    // with any JSON value as its "data": only bytes are a message.
    if (!ArrayBuffer.isView(data)) {
      clientLog.line(client.name, `client ${client.name}: a message on ${describe(channel)} that is not binary data (a JSON frame with a numeric op): ignored`);
      return;
    }
    if (!relay.message(client, channel.id, data)) {
      clientLog.line(client.name, `client ${client.name} published on ${describe(channel)}, which is not relayed: ignored`);
      return;
    }
    const key = `${client.name}#${channel.id}`;
    const n = (publishesLogged.get(key) ?? 0) + 1;
    publishesLogged.set(key, n);
    if (n <= LOGGED_PUBLISHES) {
      log(describeClientMessage(channel, data));
    } else if (n % 1000 === 0) {
      log(`client publish ${describe(channel)}: ${countOf(n, "message")} so far`);
    }
  });
  server.on("error", (err) => {
    const client = speaking ?? "(unknown)";
    clientLog.line(client, `client ${client}: protocol error: ${escapeControlCharacters(err.message)}`);
  });

  const sockets: BoundedClientSocket[] = [];
  const wss = new WebSocketServer({
    host: "127.0.0.1",
    port,
    maxPayload: MAX_CLIENT_PAYLOAD_BYTES,
    handleProtocols: (protocols) => server.handleProtocols(protocols),
    verifyClient: (info, accept) => {
      if (origins.allows(info.origin)) {
        accept(true);
        return;
      }
      logRefusedOrigin(
        `refused a connection from origin ${escapeControlCharacters(JSON.stringify(info.origin))}: not a Foxglove or Lichtblick app origin (start lockstep serve with --allow-origin <origin> to admit it)`,
      );
      accept(false, 403, "Origin not allowed");
    },
  });
  await new Promise<void>((resolve, reject) => {
    wss.once("listening", resolve);
    wss.once("error", (err) => {
      reject(new CliError(`cannot listen on 127.0.0.1:${port}: ${err.message}`, 1));
    });
  });
  wss.on("error", (err) => {
    log(`server error: ${escapeControlCharacters(err.message)}`);
  });
  wss.on("connection", (conn, req) => {
    const name = `${req.socket.remoteAddress ?? "?"}:${req.socket.remotePort ?? "?"}`;
    // A malformed frame (reserved opcode, bad UTF-8, too large) makes ws emit `error` and close
    // this connection: without a listener the error would end the process.
    conn.on("error", (err) => {
      clientLog.line(name, `client ${name}: ${escapeControlCharacters(err.message)}; connection closed`);
    });
    conn.on("close", () => {
      clientLog.closed(name);
    });
    if (conn.protocol !== FoxgloveServer.SUPPORTED_SUBPROTOCOL) {
      clientLog.line(name, `client ${name} did not offer ${FoxgloveServer.SUPPORTED_SUBPROTOCOL}; connection closed`);
      conn.close(1002, `expected subprotocol ${FoxgloveServer.SUPPORTED_SUBPROTOCOL}`);
      return;
    }
    const socket = new BoundedClientSocket(conn, name, {
      maxBufferedBytes: options.maxClientBufferBytes,
      onFirstSkip: () => {
        log(`client ${name} is not keeping up: skipping messages it cannot take (counted; the other clients are not affected)`);
      },
      onDisconnectSlow: (s) => {
        log(`client ${name} stopped reading: disconnected (${countOf(s.skipped, "message")} skipped)`);
      },
    });
    sockets.push(socket);
    log(`client ${name} connected`);
    conn.on("close", () => {
      relay.clientClosed({ name, connection: socket });
      // Forget the closed connection (its stats were logged below), so connections that come and
      // go cost nothing lasting.
      sockets.splice(sockets.indexOf(socket), 1);
      for (const key of [...publishesLogged.keys()]) {
        if (key.startsWith(`${name}#`)) {
          publishesLogged.delete(key);
        }
      }
      const s = socket.stats;
      log(`client ${name} disconnected (${countOf(s.sent, "message")} sent, ${countText(s.skipped)} skipped)`);
    });
    try {
      server.handleConnection(socket, name);
      // The library reports a bad frame as a server-wide "error" without its client: remember
      // whose frame is being handled (the handling is synchronous).
      const handle = socket.onmessage;
      socket.onmessage = (event: { data: unknown }) => {
        const notAnObject = typeof event.data === "string" ? jsonKindUnlessObject(event.data) : undefined;
        if (notAnObject != undefined) {
          clientLog.line(name, `client ${name}: a text frame that is JSON but not an object (${notAnObject}): ignored`);
          return;
        }
        speaking = name;
        try {
          handle?.(event);
        } finally {
          speaking = undefined;
        }
      };
    } catch (err) {
      // The protocol library failed to greet this client (say, an advertisement too large to
      // serialize): this connection ends, the server and its other clients go on.
      clientLog.line(name, `client ${name}: ${escapeControlCharacters(err instanceof Error ? err.message : String(err))}; connection closed`);
      conn.close(1011, "server error");
    }
  });
  const address = wss.address();
  const boundPort = address != undefined && typeof address === "object" ? address.port : port;

  const abort = new AbortController();
  // A function, not a property read: TypeScript would narrow `aborted` across awaits.
  const stopped = (): boolean => abort.signal.aborted;
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
    if (stopped()) {
      return;
    }
    log("playback started");
    let loopOffset = 0n;
    let nowOffset: bigint | undefined;
    let lastTime: bigint | undefined;
    do {
      let first: bigint | undefined;
      let last = 0n;
      const wallStart = performance.now();
      let lastYield = wallStart;
      try {
        for await (const m of recording.messages({ decode: false })) {
          if (stopped()) {
            return;
          }
          const t = toNs(m.receiveTime);
          first ??= t;
          last = t;
          nowOffset ??= options.now === true ? BigInt(Date.now()) * 1_000_000n - (recordingStart ?? t) : 0n;
          const dueMs = Number(t - first) / 1e6 / speed;
          const aheadMs = dueMs - (performance.now() - wallStart);
          if (aheadMs > 1) {
            await sleep(aheadMs, abort.signal);
            lastYield = performance.now();
          } else if (performance.now() - lastYield > MAX_BUSY_MS) {
            // Behind schedule: still let sockets drain and clients be heard.
            await nextTurn();
            lastYield = performance.now();
          }
          // (sleep returns early on abort)
          if (stopped()) {
            return;
          }
          const id = channelIds.get(m.topic);
          if (id == undefined) {
            continue;
          }
          const offset = loopOffset + nowOffset;
          const stamped = t + offset;
          if (lastTime == undefined || stamped > lastTime) {
            clock = stamped;
            lastTime = stamped;
            server.broadcastTime(stamped);
          }
          const encoding = shiftable.get(m.topic);
          const data = encoding == undefined ? m.data : shiftHeaderStamp(encoding, m.data, offset);
          server.sendMessage(id, stamped, data as Uint8Array<ArrayBuffer>);
        }
      } catch (err) {
        if (err instanceof RecordingError) {
          log(`read error: ${err.message} (everything readable before it was served)`);
          throw new CliError(`${err.in(options.file)} (everything readable was served)`, 1);
        }
        throw err;
      }
      // Next pass starts 100 ms after the last message of this one.
      loopOffset += first == undefined ? 0n : last - first + 100_000_000n;
    } while (options.loop === true && !stopped());
  };
  const finished = play();
  finished.catch(() => {
    // reported to whoever awaits `finished`
  });
  let closing: Promise<void> | undefined;
  return {
    port: boundPort,
    url: `ws://127.0.0.1:${boundPort}`,
    finished,
    clientStats: () => sockets.map((s) => s.stats),
    close: async () => {
      closing ??= (async () => {
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
      })();
      await closing;
    },
  };
}

/**
 * The port a `--port` text names: decimal digits only. Throws CliError(2) quoting the text
 * otherwise ("", "0x4e21", "1e3"; `Number` alone read "" as port 0, a random port).
 */
export function portArgument(text: string): number {
  if (!/^\d{1,5}$/.test(text)) {
    throw new CliError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(text)}`, 2);
  }
  return Number(text);
}

/** Registers `lockstep serve <file> [--port] [--speed] [--loop] [--now] [--allow-origin …]`. */
export function registerServe(program: Command): void {
  const command = program
    .command("serve")
    .description(
      "play a recording as a live Foxglove WebSocket server on 127.0.0.1 (time capability; what clients publish is relayed and logged)",
    )
    .argument("<file>", `the recording to play: ${RECORDING_ARGUMENT}`)
    .option("--port <n>", "TCP port on 127.0.0.1", "8765")
    .option("--speed <x>", "playback speed factor (1 = real time)", "1")
    .option("--loop", "start over at the end", false)
    .option("--now", "shift receive times and header stamps so playback starts now (as a live robot stamps)", false)
    .option(
      "--allow-origin <origin...>",
      "also accept browser connections from these origins (besides Foxglove's apps, file:// and loopback)",
    );
  addMaxChunkSizeOption(command)
    .action(async (file: string, opts: { port: string; speed: string; loop: boolean; now: boolean; allowOrigin?: string[]; maxChunkSize?: string }) => {
      const port = portArgument(opts.port);
      const speed = Number(opts.speed);
      const maxChunkBytes = maxChunkBytesOf(opts.maxChunkSize);
      const handle = await startServe({ file, port, speed, loop: opts.loop, now: opts.now, allowOrigins: opts.allowOrigin ?? [], maxChunkBytes });
      process.stderr.write(
        `lockstep serve: ${file} on ${handle.url} (speed ${speed}×${opts.loop ? ", looping" : ""}${opts.now ? ", stamped now" : ""}); open it in Foxglove with "Open connection" → Foxglove WebSocket; Ctrl-C stops\n`,
      );
      let onSignal: (() => void) | undefined;
      const stopped = new Promise<void>((resolve) => {
        onSignal = resolve;
        process.on("SIGINT", resolve);
        process.on("SIGTERM", resolve);
      });
      try {
        await Promise.race([handle.finished, stopped]);
      } finally {
        await handle.close();
        process.off("SIGINT", onSignal!);
        process.off("SIGTERM", onSignal!);
      }
    });
}
