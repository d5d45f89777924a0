/**
 * `fixed-lag/imu-1khz-chromium`: `fixed-lag/imu-1khz` (the husky preset over the recording's
 * first 20 s with its IMU resampled to 1 kHz) in a dedicated worker of headless Debian chromium,
 * where the panel's engine runs: whether the preview keeps up live in the app.
 *
 * The stream goes to the worker as plain JSON values (typed arrays as arrays, as the apps hand
 * messages to panels) before timing starts. Each run launches the browser, lets the worker run
 * the stream once untimed (its JIT warm-up) and reports the second pass, timed inside the worker.
 * The output hash is `fixed-lag/imu-1khz`'s for the same result, so the two can be compared.
 *
 * Not in the standard set: it needs /usr/bin/chromium and takes about a minute per run.
 */

import type { Benchmark, RunResult } from "./Benchmark";
import { highRateImuData, preset, result } from "./fixedLag";
import type { FusionWorkerInput, FusionWorkerRun } from "./fusionWorker";
import { bundleForBrowser, launchChromium, plain } from "../e2e/setup";

/** `fixed-lag/imu-1khz-chromium`. */
export const fusionInChromiumBenchmark: Benchmark = {
  name: "fixed-lag/imu-1khz-chromium",
  policy: "fuse/fixed-lag",
  description: "fixed-lag/imu-1khz in a chromium worker (where the panel's engine runs), × real time",
  standard: false,
  defaultN: 0,
  prepare: async () => {
    const data = await highRateImuData();
    const p = preset();
    const input: FusionWorkerInput = {
      baseSec: data.base.baseSec,
      fusion: p.fusion,
      transforms: p.transforms,
      messages: data.messages.map((m) => ({ topic: m.topic, arrival: m.arrival, message: plain(m.message) })),
    };
    const inputJson = JSON.stringify(input);
    const source = await bundleForBrowser("bench/fusionWorker.ts");
    return {
      n: data.messages.length,
      warmups: 0,
      runs: 3,
      run: async (): Promise<RunResult> => {
        const browser = await launchChromium();
        try {
          const page = await browser.newPage();
          const runs = await page.evaluate(
            async ({ workerJs, streamJson }) => {
              const worker = new Worker(URL.createObjectURL(new Blob([workerJs], { type: "text/javascript" })));
              worker.postMessage(JSON.parse(streamJson));
              const pass = async (): Promise<FusionWorkerRun> =>
                await new Promise((resolve, reject) => {
                  worker.onmessage = (e: MessageEvent<FusionWorkerRun>) => { resolve(e.data); };
                  worker.onerror = (e) => { reject(new Error(e.message)); };
                  worker.postMessage("run");
                });
              return [await pass(), await pass()];
            },
            { workerJs: source, streamJson: inputJson },
          );
          const timed = runs[1]!;
          const figures = result(timed.elapsedMs * 1e6, data, timed.transactions, timed.finalPose);
          return {
            ...figures,
            extra: { ...figures.extra, wasmFactorization: timed.wasmFactorization },
            ok: runs[0]!.transactions === timed.transactions,
          };
        } finally {
          await browser.close();
        }
      },
    };
  },
};
