import wsProtocol, { type Channel, type FoxgloveClient as FoxgloveClientType } from "@foxglove/ws-protocol";
import { randomBytes } from "node:crypto";
import { connect as netConnect, type Socket } from "node:net";
import WebSocket from "ws";

// CommonJS package: Node's ESM loader sees only its default export (see serve.ts).
const { FoxgloveClient } = wsProtocol;

/** Test helper: a FoxgloveClient whose first serverInfo and advertisement are captured. */
export interface Connected {
  readonly ws: WebSocket;
  readonly client: FoxgloveClientType;
  readonly serverInfo: Promise<{ capabilities: string[]; supportedEncodings?: string[] }>;
  readonly channels: Promise<Channel[]>;
}

/** Connects a FoxgloveClient to `url` (optionally sending an Origin header). */
export function connectClient(url: string, origin?: string): Connected {
  const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL], origin == undefined ? {} : { origin });
  const client = new FoxgloveClient({ ws });
  // Listeners go on before any data can arrive: ws emits several frames in one tick.
  const serverInfo = new Promise<{ capabilities: string[]; supportedEncodings?: string[] }>((resolve) => {
    client.on("serverInfo", resolve);
  });
  const channels = new Promise<Channel[]>((resolve) => {
    client.on("advertise", resolve);
  });
  return { ws, client, serverInfo, channels };
}

/** Test helper: a WebSocket client on a raw TCP socket, to send frames no WebSocket library would. */
export interface RawClient {
  readonly socket: Socket;
  /** Everything the server sent after the handshake response. */
  readonly received: () => Buffer;
  /** Sends one masked frame: `first` is the first byte (FIN bit and opcode). */
  sendFrame(first: number, payload: Uint8Array): void;
  /** Resolves when the server closes the connection. */
  readonly closed: Promise<void>;
}

/** Opens a raw WebSocket connection (subprotocol foxglove.websocket.v1) to 127.0.0.1:port. */
export async function rawClient(port: number): Promise<RawClient> {
  const socket = netConnect(port, "127.0.0.1");
  let buffer = Buffer.alloc(0);
  let upgraded = false;
  const closed = new Promise<void>((resolve) => {
    socket.on("close", () => {
      resolve();
    });
  });
  socket.on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end >= 0) {
          const head = buffer.subarray(0, end).toString();
          if (!head.startsWith("HTTP/1.1 101")) {
            reject(new Error(`handshake refused: ${head.split("\r\n")[0] ?? head}`));
            return;
          }
          upgraded = true;
          buffer = buffer.subarray(end + 4);
          resolve();
        }
      }
    });
    socket.write(
      [
        "GET / HTTP/1.1",
        `Host: 127.0.0.1:${port}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Protocol: foxglove.websocket.v1",
        "",
        "",
      ].join("\r\n"),
    );
  });
  return {
    socket,
    received: () => buffer,
    closed,
    sendFrame: (first, payload) => {
      const mask = randomBytes(4);
      const len = payload.byteLength;
      const head =
        len < 126
          ? Buffer.from([first, 0x80 | len])
          : Buffer.from([first, 0x80 | 126, len >> 8, len & 0xff]);
      const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
      socket.write(Buffer.concat([head, mask, body]));
    },
  };
}
