// Web Worker entry: the analysis engine off the main thread. Built into a string by config.ts's
// `?worker` rule and started from a Blob URL (see EngineClient).
import { EngineServer } from "../engine/EngineServer";
import type { EngineRequest, EngineResponse } from "../engine/engineProtocol";

const scope = self as unknown as {
  postMessage(msg: EngineResponse): void;
  onmessage: ((ev: MessageEvent<EngineRequest>) => void) | null;
};
const server = new EngineServer((r) => {
  scope.postMessage(r);
});
scope.onmessage = (ev) => {
  server.handle(ev.data);
};
