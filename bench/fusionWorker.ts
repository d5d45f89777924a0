/**
 * The dedicated worker of `fixed-lag/imu-1khz-chromium` (bench/fusionInChromium.ts), bundled for
 * the browser: the runner and smoother as the panel's engine worker runs them. It receives the
 * stream once, then times one pass of it per "run" message and posts what `result` needs.
 */

import { feedRunner } from "./feedRunner";
import { presetTransforms } from "./presetTransforms";
import { EnvelopeCholeskyWorkspace } from "../src/fusion/math/EnvelopeCholeskyWorkspace";
import { FusionRunner } from "../src/fusion/runner";
import { PANEL_FUSION_RETENTION } from "../src/panel/engine/AnalysisEngine";
import type { TransformConfig } from "../src/pipeline";
import { TimeBase, type Stamp } from "../src/time";

/** The worker's input, posted once. */
export interface FusionWorkerInput {
  readonly baseSec: number;
  readonly fusion: unknown;
  readonly transforms: readonly TransformConfig[];
  readonly messages: readonly { topic: string; message: unknown; arrival: Stamp }[];
}

/** What the worker posts after each run. */
export interface FusionWorkerRun {
  readonly elapsedMs: number;
  readonly transactions: number;
  readonly finalPose: { stamp: Stamp; x: number; y: number; yaw: number } | undefined;
  /** Whether a solver's factor workspace runs as WebAssembly in this worker (else as JavaScript). */
  readonly wasmFactorization: boolean;
}

let input: FusionWorkerInput | undefined;

self.onmessage = (event: MessageEvent<FusionWorkerInput | "run">): void => {
  if (event.data !== "run") {
    input = event.data;
    return;
  }
  const data = input!;
  const runner = new FusionRunner(data.fusion).setRetention(PANEL_FUSION_RETENTION);
  runner.start({ timeBase: new TimeBase(data.baseSec), transforms: presetTransforms(data.transforms) });
  const t0 = performance.now();
  feedRunner(runner, data.messages);
  const run: FusionWorkerRun = { elapsedMs: performance.now() - t0, transactions: runner.transactionCount, finalPose: runner.finalPose, wasmFactorization: new EnvelopeCholeskyWorkspace().webAssembly };
  self.postMessage(run);
};
