import { AnalysisEngine } from "./AnalysisEngine";
import type { EnginePort, EngineRequest, EngineResponse } from "./engineProtocol";
import { ConfigError } from "../../pipeline";

/** Shortest interval between two unrequested deltas (ms): the views update at most ~10 times a second. */
export const DELTA_INTERVAL_MS = 100;

/**
 * The engine side of the protocol: owns an AnalysisEngine, applies requests in order and posts
 * deltas (throttled to one per DELTA_INTERVAL_MS, or at once on `flush`). The same code runs in
 * the Web Worker and, as a fallback, on the main thread. Never throws: errors become `error`
 * responses (config errors with their JSON paths).
 */
export class EngineServer {
  readonly #post: (r: EngineResponse) => void;
  #engine: AnalysisEngine | undefined;
  #dirty = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  public constructor(post: (r: EngineResponse) => void) {
    this.#post = post;
  }

  /** Applies one request. */
  public handle(req: EngineRequest): void {
    try {
      switch (req.type) {
        case "configure":
          this.#engine = undefined;
          this.#engine = new AnalysisEngine(req.config, req.compare);
          this.#post({ type: "configured", topics: [...this.#engine.topics] });
          this.#dirty = true;
          this.#sendDelta();
          break;
        case "ingest":
          this.#engine?.ingest(req.events);
          this.#dirty = true;
          this.#schedule();
          if (req.ack != undefined) {
            this.#post({ type: "ack", ack: req.ack });
          }
          break;
        case "compare":
          this.#engine?.setCompare(req.compare);
          this.#dirty = true;
          this.#sendDelta();
          break;
        case "reset":
          this.#engine?.reset();
          this.#dirty = true;
          this.#sendDelta();
          break;
        case "flush":
          this.#dirty = true;
          this.#sendDelta();
          this.#post({ type: "ack", ack: req.ack });
          break;
        case "finish":
          this.#engine?.finish();
          this.#dirty = true;
          this.#sendDelta();
          this.#post({ type: "ack", ack: req.ack });
          break;
        case "diagnose":
          this.#post({ type: "diagnosis", diagnosis: this.#engine?.diagnose() });
          break;
        case "explain":
          this.#post({ type: "explanation", slot: req.slot, stamp: req.stamp, explanation: this.#engine?.explain(req.slot, req.stamp) });
          break;
      }
    } catch (err) {
      if (err instanceof ConfigError) {
        this.#post({ type: "error", message: err.message, issues: [...err.issues] });
      } else {
        this.#post({ type: "error", message: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  #schedule(): void {
    if (this.#timer == undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#sendDelta();
      }, DELTA_INTERVAL_MS);
    }
  }

  #sendDelta(): void {
    if (this.#timer != undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (!this.#dirty || !this.#engine) {
      return;
    }
    this.#dirty = false;
    this.#post({ type: "delta", delta: this.#engine.takeDelta() });
  }
}

/**
 * An EnginePort over an EngineServer on this thread, requests handled from a timer: for Node
 * (tests, tools). The panel never imports it (the browser bundle runs the worker script instead,
 * so the engine is bundled once).
 */
export function localEnginePort(): EnginePort {
  let terminated = false;
  const port: EnginePort = {
    onmessage: null,
    postMessage: (req) => {
      setTimeout(() => {
        if (!terminated) {
          server.handle(req);
        }
      }, 0);
    },
    terminate: () => {
      terminated = true;
    },
  };
  const server = new EngineServer((r) => {
    if (!terminated) {
      port.onmessage?.({ data: r });
    }
  });
  setTimeout(() => {
    port.onmessage?.({ data: { type: "ready" } });
  }, 0);
  return port;
}
