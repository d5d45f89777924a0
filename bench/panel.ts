/**
 * The panel under a live 8 topics × 1 kHz feed in chromium (the hand-written test host driving
 * the built extension, delivered faster than real time): render times (onRender → done) and the
 * growth of the page's and the engine worker's heaps per message. Figures only; the functional
 * checks of the same load are e2e/load.test.ts.
 *
 * Registered in `lockstep bench` as `panel/live-8x1khz` (not in the standard set: it needs
 * /usr/bin/chromium and takes minutes). `--n` is the simulated seconds (default 600). `ok` is false
 * when a heap grows by 2 bytes per message or more (a per-message leak would be far larger).
 */
import type { Benchmark, RunResult } from "./Benchmark";
import { runSyntheticLoad, startSyntheticHost } from "../e2e/syntheticLoad";

const TOPICS = 8;
const HZ = 1000;

/** `panel/live-8x1khz`. */
export const panelBenchmark: Benchmark = {
  name: "panel/live-8x1khz",
  policy: "fkie/approximate-time",
  description: "panel in chromium under 8 topics × 1 kHz live: render ms (p99, share over 16 ms), heap growth per message",
  standard: false,
  defaultN: 600,
  prepare: (seconds) => ({
    n: seconds * TOPICS * HZ,
    warmups: 0,
    runs: 1,
    run: async (): Promise<RunResult> => {
      const host = await startSyntheticHost();
      try {
        const t0 = process.hrtime.bigint();
        const r = await runSyntheticLoad(host, { topics: TOPICS, hz: HZ, seconds, fps: 60, measureHeap: true });
        const elapsedNs = Number(process.hrtime.bigint() - t0);
        const grew = (g: number | undefined): boolean => g != undefined && g >= 2;
        return {
          elapsedNs,
          tuples: r.tuples,
          outputHash: "-",
          ok: r.errors.length === 0 && !grew(r.mainGrowthBytesPerMessage) && !grew(r.workerGrowthBytesPerMessage),
          extra: {
            renders: r.renders,
            renderMedianMs: r.render.median,
            renderP99Ms: r.render.p99,
            renderMaxMs: r.render.max,
            over16Share: r.renders > 0 ? r.render.over16 / r.renders : 0,
            skipped: r.skipped,
            speedup: r.simulatedSec / r.wallSec,
            mainGrowthBytesPerMessage: r.mainGrowthBytesPerMessage ?? "n/a",
            workerGrowthBytesPerMessage: r.workerGrowthBytesPerMessage ?? "n/a",
          },
        };
      } finally {
        await host.close();
      }
    },
  }),
};
