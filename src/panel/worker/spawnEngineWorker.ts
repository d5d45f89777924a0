import workerSource from "./engineWorker?worker";

/**
 * Starts the analysis engine in a Web Worker built from the inlined worker bundle (a Blob URL:
 * the extension is one file, so the worker cannot be fetched from a URL of its own). Returns
 * undefined when the host forbids workers (then the panel runs the engine inline).
 */
export function spawnEngineWorker(): Worker | undefined {
  try {
    const url = URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" }));
    const worker = new Worker(url, { name: "lockstep-engine" });
    // The worker has loaded its script once constructed; the URL is not needed afterwards.
    setTimeout(() => {
      URL.revokeObjectURL(url);
    }, 10_000);
    return worker;
  } catch {
    return undefined;
  }
}
