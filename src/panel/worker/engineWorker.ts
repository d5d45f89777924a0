// The analysis engine's only entry point, built by config.ts's `?worker` rule into a self-contained
// script. The same script runs in a Web Worker (from a Blob URL) and, when the host refuses
// workers, in the page with `self` bound to a stand-in scope (see spawnEngineWorker): the engine
// is bundled once.
import { EngineServer } from "../engine/EngineServer";
import type { EngineRequest, EngineResponse } from "../engine/engineProtocol";

const scope = self as unknown as {
  postMessage(msg: EngineResponse): void;
  onmessage: ((ev: { data: EngineRequest }) => void) | null;
};
const server = new EngineServer((r) => {
  scope.postMessage(r);
});
scope.onmessage = (ev) => {
  server.handle(ev.data);
};
scope.postMessage({ type: "ready" });
