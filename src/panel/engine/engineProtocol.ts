import type { EngineDelta, EngineInput } from "./engineTypes";
import type { ConfigIssue } from "../../pipeline";
import type { Diagnosis, DropExplanation } from "../../pipeline/diagnosis";

/** Messages from the panel to the engine (worker or in-page). */
export type EngineRequest =
  | { type: "configure"; config: unknown; compare?: unknown }
  | { type: "ingest"; events: EngineInput[]; ack?: number }
  | { type: "compare"; compare?: unknown }
  | { type: "reset" }
  | { type: "flush"; ack: number }
  | { type: "finish"; ack: number }
  | { type: "diagnose" }
  | { type: "explain"; slot: number; stamp: number };

/** Messages from the engine to the panel. `ready` is the first, sent once the engine's script runs. */
export type EngineResponse =
  | { type: "ready" }
  | { type: "configured"; topics: string[] }
  | { type: "error"; message: string; issues?: ConfigIssue[] }
  | { type: "delta"; delta: EngineDelta }
  | { type: "ack"; ack: number }
  | { type: "diagnosis"; diagnosis: Diagnosis | undefined }
  | { type: "explanation"; slot: number; stamp: number; explanation: DropExplanation | undefined };

/** Something that accepts engine requests and answers through `onmessage` (a Worker, or the in-page engine). */
export interface EnginePort {
  postMessage(req: EngineRequest): void;
  onmessage: ((ev: { data: EngineResponse }) => void) | null;
  /** A Worker's `error` event (a script the host refused, or an uncaught exception in the worker). */
  onerror?: ((ev: { message?: string }) => void) | null;
  terminate(): void;
}
