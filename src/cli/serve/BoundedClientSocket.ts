import type { IWebSocket } from "@foxglove/ws-protocol";
import WebSocket from "ws";

/** What a BoundedClientSocket did with the binary frames (messages, time) it was asked to send. */
export interface ClientSendStats {
  /** The client's name in logs (remote address:port). */
  readonly name: string;
  /** Binary frames sent. */
  readonly sent: number;
  /** Binary frames skipped because the client had not taken the earlier ones yet. */
  readonly skipped: number;
  /** Bytes of the skipped frames. */
  readonly skippedBytes: number;
}

/** Options of a BoundedClientSocket. */
export interface BoundedClientSocketOptions {
  /**
   * Bytes the server may hold for this client (ws `bufferedAmount`) before binary frames are
   * skipped. Default 4 MiB.
   */
  readonly maxBufferedBytes?: number;
  /**
   * Frames queued for this client (sent while its socket still held unsent data, i.e. since its
   * queue was last empty) before binary frames are skipped. Default 1024. Bytes alone do not bound
   * memory: every queued frame also costs the socket's bookkeeping, several times the size of a
   * small message.
   */
  readonly maxQueuedFrames?: number;
  /**
   * Bytes after which the client is disconnected, because even the JSON control messages
   * (advertisements, status), which are never skipped, have piled up. Default 4 × maxBufferedBytes.
   */
  readonly disconnectBufferedBytes?: number;
  /** Called once, at the first skipped frame. */
  readonly onFirstSkip?: (stats: ClientSendStats) => void;
  /** Called when the client is disconnected for being too slow. */
  readonly onDisconnectSlow?: (stats: ClientSendStats) => void;
}

/**
 * The connection of one Foxglove WebSocket client as FoxgloveServer sees it (`IWebSocket`), with a
 * bound on what the server keeps for it: a binary frame (a message or a time update) is skipped,
 * and counted, when the bytes still queued for this client plus the frame would exceed
 * `maxBufferedBytes` or `maxQueuedFrames` frames are still queued; text frames (serverInfo, advertise, status) always go, unless the queue has
 * grown past `disconnectBufferedBytes`, and then the client is disconnected. So a client that
 * stops reading costs a bounded amount of memory (about `maxBufferedBytes`, or `maxQueuedFrames`
 * small frames with their bookkeeping), and sending to it never
 * blocks or delays the other clients (nothing waits: a frame is queued or skipped at once).
 * Frames sent to it stay in order; skipped frames are simply absent.
 *
 * It declares a one-argument `send`, so FoxgloveServer hands it each message as one buffer (header
 * and payload together) and a frame is skipped or sent whole.
 */
export class BoundedClientSocket implements IWebSocket {
  readonly #ws: WebSocket;
  readonly #name: string;
  readonly #maxBuffered: number;
  readonly #disconnectBuffered: number;
  readonly #maxQueuedFrames: number;
  readonly #options: BoundedClientSocketOptions;
  /**
   * Frames sent since the socket last had nothing queued: an upper bound of the frames it holds
   * (a client that keeps up has its queue empty at almost every send, which resets it).
   */
  #queued = 0;
  #sent = 0;
  #skipped = 0;
  #skippedBytes = 0;
  #closedSlow = false;

  public constructor(ws: WebSocket, name: string, options: BoundedClientSocketOptions = {}) {
    this.#ws = ws;
    this.#name = name;
    this.#maxBuffered = options.maxBufferedBytes ?? 4 << 20;
    this.#disconnectBuffered = options.disconnectBufferedBytes ?? 4 * this.#maxBuffered;
    this.#maxQueuedFrames = options.maxQueuedFrames ?? 1024;
    this.#options = options;
  }

  /** What was sent and skipped so far. */
  public get stats(): ClientSendStats {
    return { name: this.#name, sent: this.#sent, skipped: this.#skipped, skippedBytes: this.#skippedBytes };
  }

  public get binaryType(): string {
    return this.#ws.binaryType;
  }

  public set binaryType(type: string) {
    this.#ws.binaryType = type as WebSocket["binaryType"];
  }

  public get protocol(): string {
    return this.#ws.protocol;
  }

  public get onerror(): IWebSocket["onerror"] {
    return this.#ws.onerror as IWebSocket["onerror"];
  }

  public set onerror(listener: IWebSocket["onerror"]) {
    this.#ws.onerror = listener ?? null;
  }

  public get onopen(): IWebSocket["onopen"] {
    return this.#ws.onopen as IWebSocket["onopen"];
  }

  public set onopen(listener: IWebSocket["onopen"]) {
    this.#ws.onopen = listener ?? null;
  }

  public get onclose(): IWebSocket["onclose"] {
    return this.#ws.onclose as IWebSocket["onclose"];
  }

  public set onclose(listener: IWebSocket["onclose"]) {
    this.#ws.onclose = listener ?? null;
  }

  public get onmessage(): IWebSocket["onmessage"] {
    return this.#ws.onmessage as IWebSocket["onmessage"];
  }

  public set onmessage(listener: IWebSocket["onmessage"]) {
    this.#ws.onmessage = listener ?? null;
  }

  public close(): void {
    this.#ws.close();
  }

  public send(data: string | ArrayBuffer | ArrayBufferView): void {
    const ws = this.#ws;
    if (ws.readyState !== WebSocket.OPEN) {
      return; // closing: ws would only count the bytes as buffered
    }
    const size = typeof data === "string" ? data.length : data.byteLength;
    const queued = ws.bufferedAmount;
    if (queued === 0) {
      this.#queued = 0;
    }
    if (typeof data === "string") {
      if (queued + size > this.#disconnectBuffered) {
        this.#disconnectSlow();
        return;
      }
      this.#queued++;
      ws.send(data);
      return;
    }
    if (queued + size > this.#maxBuffered || this.#queued >= this.#maxQueuedFrames) {
      this.#skipped++;
      this.#skippedBytes += size;
      if (this.#skipped === 1) {
        this.#options.onFirstSkip?.(this.stats);
      }
      return;
    }
    this.#sent++;
    this.#queued++;
    ws.send(data);
  }

  #disconnectSlow(): void {
    if (this.#closedSlow) {
      return;
    }
    this.#closedSlow = true;
    this.#options.onDisconnectSlow?.(this.stats);
    // terminate, not close: a client that does not read would never complete a closing handshake.
    this.#ws.terminate();
  }
}
