import workerSource from "./engineWorker?worker";
import type { EnginePort, EngineRequest, EngineResponse } from "../engine/engineProtocol";

/**
 * Starts the analysis engine in a Web Worker built from the inlined worker bundle (a Blob URL:
 * the extension is one file, so the worker cannot be fetched from a URL of its own). Returns
 * undefined when the constructor throws; a host that forbids blob workers may instead let it
 * construct and fire `error` later, which EngineClient detects and answers with
 * `inPageEnginePort`.
 */
export function spawnEngineWorker(): EnginePort | undefined {
  try {
    const url = URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" }));
    const worker = new Worker(url, { name: "lockstep-engine" });
    // The worker has loaded its script once constructed; the URL is not needed afterwards.
    setTimeout(() => {
      URL.revokeObjectURL(url);
    }, 10_000);
    return worker as unknown as EnginePort;
  } catch {
    return undefined;
  }
}

/**
 * The same engine script run on the page's thread, behind the same port interface: requests are
 * handled from a timer (never inside the host's render callback). Hosts load extensions with
 * `new Function`, so evaluating the engine's script the same way works wherever the panel runs.
 */
export function inPageEnginePort(): EnginePort {
  let terminated = false;
  let attached = false;
  // `ready` is posted synchronously while the script runs: held until the caller attached onmessage.
  const early: EngineResponse[] = [];
  const deliver = (r: EngineResponse): void => {
    if (!terminated) {
      port.onmessage?.({ data: r });
    }
  };
  const scope: { postMessage(r: EngineResponse): void; onmessage: ((ev: { data: EngineRequest }) => void) | null } = {
    postMessage: (r) => {
      if (attached) {
        deliver(r);
      } else {
        early.push(r);
      }
    },
    onmessage: null,
  };
  const port: EnginePort = {
    onmessage: null,
    postMessage: (req) => {
      setTimeout(() => {
        if (!terminated) {
          scope.onmessage?.({ data: req });
        }
      }, 0);
    },
    terminate: () => {
      terminated = true;
    },
  };
  // eslint-disable-next-line no-new-func, @typescript-eslint/no-implied-eval -- the engine's own bundled script, see above
  const run = new Function("self", workerSource) as (self: unknown) => void;
  run(scope);
  setTimeout(() => {
    attached = true;
    for (const r of early.splice(0)) {
      deliver(r);
    }
  }, 0);
  return port;
}
