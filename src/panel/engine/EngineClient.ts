import { EngineServer } from "./EngineServer";
import type { EngineRequest, EngineResponse } from "./engineProtocol";
import type { EngineDelta, EngineInput } from "./engineTypes";
import type { ConfigIssue } from "../../pipeline";

/** Live frames the engine may be behind before further live frames are skipped. */
export const MAX_IN_FLIGHT = 120;

/** Frames in flight above which `backlog()` asks a recording's playback to wait. */
export const BACKLOG_FRAMES = 8;

/** Callbacks of an EngineClient. */
export interface EngineListener {
  onDelta(delta: EngineDelta): void;
  onError(message: string, issues?: readonly ConfigIssue[]): void;
  onConfigured?(topics: readonly string[]): void;
}

/** Something that accepts engine requests and answers through `onmessage` (a Worker). */
export interface EnginePort {
  postMessage(req: EngineRequest): void;
  onmessage: ((ev: MessageEvent<EngineResponse>) => void) | null;
  onerror?: ((ev: ErrorEvent) => void) | null;
  terminate(): void;
}

/**
 * The panel's handle on the analysis engine: a Web Worker when one could be started, else an
 * inline EngineServer on the main thread (same protocol, run from a timer so `ingest` never runs
 * inside the host's render callback). `ingest` resolves once the engine has processed the batch,
 * so a whole-recording analysis can bound how much is in flight.
 */
export class EngineClient {
  readonly #port: EnginePort | undefined;
  readonly #inline: EngineServer | undefined;
  readonly #listener: EngineListener;
  #nextAck = 1;
  readonly #pending = new Map<number, () => void>();
  #disposed = false;
  #inFlight = 0;
  #drained: (() => void)[] = [];
  /** Live messages not sent because the engine was MAX_IN_FLIGHT frames behind. */
  public skipped = 0;

  public constructor(listener: EngineListener, port?: EnginePort) {
    this.#listener = listener;
    if (port) {
      this.#port = port;
      port.onmessage = (ev) => {
        this.#receive(ev.data);
      };
      port.onerror = (ev) => {
        listener.onError(`analysis worker failed: ${ev.message}`);
      };
    } else {
      this.#inline = new EngineServer((r) => {
        this.#receive(r);
      });
    }
  }

  /** Whether the engine runs in a Web Worker (false = inline fallback). */
  public get inWorker(): boolean {
    return this.#port != undefined;
  }

  #send(req: EngineRequest): void {
    if (this.#disposed) {
      return;
    }
    if (this.#port) {
      this.#port.postMessage(req);
    } else {
      const server = this.#inline!;
      setTimeout(() => {
        server.handle(req);
      }, 0);
    }
  }

  #receive(r: EngineResponse): void {
    if (this.#disposed) {
      return;
    }
    switch (r.type) {
      case "delta":
        this.#listener.onDelta(r.delta);
        break;
      case "error":
        this.#listener.onError(r.message, r.issues);
        break;
      case "configured":
        this.#listener.onConfigured?.(r.topics);
        break;
      case "ack": {
        const resolve = this.#pending.get(r.ack);
        this.#pending.delete(r.ack);
        resolve?.();
        break;
      }
    }
  }

  /** (Re)configures the engine; clears everything it held. */
  public configure(config: unknown, compare?: unknown): void {
    this.#send({ type: "configure", config, compare });
  }

  /**
   * Sends a live frame without waiting. When the engine is MAX_IN_FLIGHT frames behind (it cannot
   * keep up with the data rate), the frame is not sent and its messages are counted in `skipped`:
   * memory stays bounded instead of queueing without limit.
   */
  public post(events: EngineInput[]): void {
    if (events.length === 0) {
      return;
    }
    if (this.#inFlight >= MAX_IN_FLIGHT) {
      this.skipped += events.length;
      return;
    }
    this.#inFlight++;
    void this.ingest(events).then(() => {
      this.#inFlight--;
      if (this.#inFlight < BACKLOG_FRAMES) {
        const waiters = this.#drained;
        this.#drained = [];
        for (const w of waiters) {
          w();
        }
      }
    });
  }

  /**
   * Undefined when the engine keeps up; otherwise a promise that resolves once fewer than
   * BACKLOG_FRAMES posted frames are pending. A recording's playback waits on it (through
   * `done`), so no recorded message is ever skipped.
   */
  public backlog(): Promise<void> | undefined {
    if (this.#inFlight < BACKLOG_FRAMES || this.#disposed) {
      return undefined;
    }
    return new Promise<void>((resolve) => {
      this.#drained.push(resolve);
    });
  }

  /** Sends events and resolves when the engine has processed them. */
  public async ingest(events: EngineInput[]): Promise<void> {
    const ack = this.#nextAck++;
    await new Promise<void>((resolve) => {
      this.#pending.set(ack, resolve);
      this.#send({ type: "ingest", events, ack });
    });
  }

  /** Asks for a delta now; resolves after it was delivered. */
  public async flush(): Promise<void> {
    const ack = this.#nextAck++;
    await new Promise<void>((resolve) => {
      this.#pending.set(ack, resolve);
      this.#send({ type: "flush", ack });
    });
  }

  /** Forgets all data (seek). */
  public reset(): void {
    this.skipped = 0;
    this.#send({ type: "reset" });
  }

  /** Stops the worker; pending promises resolve. */
  public dispose(): void {
    this.#disposed = true;
    this.#port?.terminate();
    for (const resolve of [...this.#pending.values(), ...this.#drained]) {
      resolve();
    }
    this.#pending.clear();
    this.#drained = [];
  }
}
