import type { EnginePort, EngineRequest, EngineResponse } from "./engineProtocol";
import type { EngineDelta, EngineInput } from "./engineTypes";
import type { ConfigIssue } from "../../pipeline";
import type { Diagnosis, DropExplanation } from "../../pipeline/diagnosis";

export type { EnginePort } from "./engineProtocol";

/** Live frames the engine may be behind before further live frames are skipped. */
export const MAX_IN_FLIGHT = 120;

/** Frames in flight above which `backlog()` asks a recording's playback to wait. */
export const BACKLOG_FRAMES = 8;

/** Callbacks of an EngineClient. */
export interface EngineListener {
  onDelta(delta: EngineDelta): void;
  onError(message: string, issues?: readonly ConfigIssue[]): void;
  onConfigured?(topics: readonly string[]): void;
  /** The worker failed (`error` event) and the engine now runs in the page; `reason` says why. */
  onFallback?(reason: string): void;
  /** The answer to `diagnose()` (undefined before any stamp). */
  onDiagnosis?(diagnosis: Diagnosis | undefined): void;
  /** The answer to `explain(slot, stamp)` (undefined: no synchronizer drop there). */
  onExplanation?(slot: number, stamp: number, explanation: DropExplanation | undefined): void;
}

/** Where the engine runs: a worker if one could be started, and how to start it in the page instead. */
export interface EnginePorts {
  /** The Web Worker (undefined when it could not even be constructed). */
  readonly worker?: EnginePort;
  /** Starts the in-page engine (same protocol). */
  readonly inPage: () => EnginePort;
}

/**
 * The panel's handle on the analysis engine: a Web Worker when one starts, else the same engine
 * in the page. A worker that fails (its `error` event: a host whose Content-Security-Policy
 * forbids blob: workers constructs it and fails later; or an uncaught exception) is replaced by
 * the in-page engine: requests sent before the worker said `ready` are replayed there, so nothing
 * is lost; after a later failure the last configuration is replayed and results restart.
 * `ingest` resolves once the engine has processed the batch, so a whole-recording analysis can
 * bound how much is in flight.
 */
export class EngineClient {
  #port: EnginePort;
  readonly #ports: EnginePorts;
  readonly #listener: EngineListener;
  #inWorker: boolean;
  #ready = false;
  /** Requests sent before the engine said `ready` (replayed if it fails before that). */
  #unconfirmed: EngineRequest[] = [];
  #lastConfigure: EngineRequest | undefined;
  #nextAck = 1;
  readonly #pending = new Map<number, () => void>();
  #disposed = false;
  #inFlight = 0;
  #drained: (() => void)[] = [];
  /** Why the worker was given up (undefined while it runs, or when none was started). */
  public fallbackReason: string | undefined;
  /** Live messages not sent because the engine was MAX_IN_FLIGHT frames behind. */
  public skipped = 0;

  public constructor(listener: EngineListener, ports: EnginePorts) {
    this.#listener = listener;
    this.#ports = ports;
    this.#inWorker = ports.worker != undefined;
    this.#port = ports.worker ?? ports.inPage();
    this.#attach(this.#port);
  }

  #attach(port: EnginePort): void {
    port.onmessage = (ev) => {
      if (port === this.#port) {
        this.#receive(ev.data);
      }
    };
    port.onerror = (ev) => {
      if (port === this.#port && this.#inWorker) {
        this.#fallBack(ev.message);
      }
    };
  }

  #fallBack(message: string | undefined): void {
    const reason =
      message != undefined && message !== ""
        ? `analysis worker failed (${message}); running in the page instead`
        : "the host refused to start the analysis worker (its Content-Security-Policy may forbid blob: workers); running in the page instead";
    this.#port.terminate();
    this.#inWorker = false;
    this.fallbackReason = reason;
    const wasReady = this.#ready;
    const replay = wasReady ? (this.#lastConfigure ? [this.#lastConfigure] : []) : this.#unconfirmed;
    this.#unconfirmed = [];
    this.#ready = false;
    if (wasReady) {
      // What the dead worker held is lost: release everyone waiting on it.
      for (const resolve of this.#pending.values()) {
        resolve();
      }
      this.#pending.clear();
    }
    this.#port = this.#ports.inPage();
    this.#attach(this.#port);
    for (const req of replay) {
      this.#post(req);
    }
    this.#listener.onFallback?.(reason);
  }

  /** Whether the engine runs in a Web Worker (false = in the page). */
  public get inWorker(): boolean {
    return this.#inWorker;
  }

  #post(req: EngineRequest): void {
    if (!this.#ready) {
      this.#unconfirmed.push(req);
    }
    this.#port.postMessage(req);
  }

  #send(req: EngineRequest): void {
    if (this.#disposed) {
      return;
    }
    if (req.type === "configure") {
      this.#lastConfigure = req;
    }
    this.#post(req);
  }

  #receive(r: EngineResponse): void {
    if (this.#disposed) {
      return;
    }
    switch (r.type) {
      case "ready":
        this.#ready = true;
        this.#unconfirmed = [];
        break;
      case "delta":
        this.#listener.onDelta(r.delta);
        break;
      case "error":
        this.#listener.onError(r.message, r.issues);
        break;
      case "configured":
        this.#listener.onConfigured?.(r.topics);
        break;
      case "diagnosis":
        this.#listener.onDiagnosis?.(r.diagnosis);
        break;
      case "explanation":
        this.#listener.onExplanation?.(r.slot, r.stamp, r.explanation);
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

  /** Asks the engine to diagnose what it has seen since the last reset (answer: `onDiagnosis`). */
  public diagnose(): void {
    this.#send({ type: "diagnose" });
  }

  /** Asks what decided the drop of the message on `slot` with this stamp (answer: `onExplanation`). */
  public explain(slot: number, stamp: number): void {
    this.#send({ type: "explain", slot, stamp });
  }

  /** Replaces the comparison policy; the main results are kept. */
  public setCompare(compare: unknown): void {
    if (this.#lastConfigure?.type === "configure") {
      this.#lastConfigure = { ...this.#lastConfigure, compare };
    }
    this.#send({ type: "compare", compare });
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

  /**
   * Ends a whole-recording analysis: the pipeline finishes (fusion runs its remaining cycles, so
   * the results equal `lockstep analyze`'s) and a delta is delivered; resolves after it. The engine
   * takes no more messages until `reset`.
   */
  public async finish(): Promise<void> {
    const ack = this.#nextAck++;
    await new Promise<void>((resolve) => {
      this.#pending.set(ack, resolve);
      this.#send({ type: "finish", ack });
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
    this.#port.terminate();
    for (const resolve of [...this.#pending.values(), ...this.#drained]) {
      resolve();
    }
    this.#pending.clear();
    this.#drained = [];
  }
}
