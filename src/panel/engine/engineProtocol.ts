import type { EngineDelta, EngineInput } from "./engineTypes";
import type { ConfigIssue } from "../../pipeline";

/** Messages from the panel to the engine (worker or inline). */
export type EngineRequest =
  | { type: "configure"; config: unknown; compare?: unknown }
  | { type: "ingest"; events: EngineInput[]; ack?: number }
  | { type: "reset" }
  | { type: "flush"; ack: number };

/** Messages from the engine to the panel. */
export type EngineResponse =
  | { type: "configured"; topics: string[] }
  | { type: "error"; message: string; issues?: ConfigIssue[] }
  | { type: "delta"; delta: EngineDelta }
  | { type: "ack"; ack: number };
