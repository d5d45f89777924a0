/**
 * `panel/real-app/<app>`: the panel's whole-recording analysis in the real app (Foxglove Studio
 * 1.76.0 or Lichtblick 1.10.0 web, from ../shared/hosts, in headless Debian chromium), on the ROS 2
 * MCAP of the husky recording with the husky preset (synchronization and the fusion preview), as
 * a user runs it: open the recording, install the `.foxe`, add the panel, load the preset in the
 * app's sidebar, press "Analyze whole recording", then "Back to playback" and analyze again.
 *
 * The first analysis is what a user waits for after opening a recording (the app is still loading
 * it, and the engine's code is not yet optimized); the second shows the engine's own pace. The
 * timed figure (`elapsedNs`) is the first; `warmMessagesPerSec` the second. Both are the panel's
 * own figure (`data-messages-per-sec`: messages analyzed over the time from the click to the
 * last result). `ok` is false unless both analyses show the sets, drops and held messages of
 * `lockstep analyze` on the same file and config.
 *
 * Not in the standard set: it needs ../shared/hosts and /usr/bin/chromium and takes about a
 * minute per run. A ConfigError says why it cannot run here.
 */

import { join } from "node:path";
import type { Page } from "playwright-core";

import type { Benchmark, BenchmarkCase, RunResult } from "./Benchmark";
import {
  APPS,
  loadPresetInSidebar,
  openRecordingWithPanel,
  panelNumber,
  realAppSkipReason,
  serveApp,
  SHARED,
} from "../e2e/realApp";
import { cliAnalyze, ensurePackaged, HUSKY_PRESET, launchChromium, type AnalyzeSummary } from "../e2e/setup";
import { ConfigError } from "../src/pipeline";

const RECORDING = "ros2/husky-2015.mcap";

/** One analysis as the panel showed it. */
interface PanelAnalysis {
  /** Wall time from the click to the result, seen from Node. */
  readonly ns: number;
  /** The panel's own figure. */
  readonly messagesPerSec: number;
  /** Whether it showed `lockstep analyze`'s numbers. */
  readonly matches: boolean;
}

function realAppCase(app: string): BenchmarkCase {
  const skip = realAppSkipReason(app);
  if (skip != undefined) {
    throw new ConfigError([{ path: app, message: skip }]);
  }
  const file = join(SHARED, "data", RECORDING);
  const summary = cliAnalyze(file, { ...HUSKY_PRESET, publish: { enabled: false, namespace: "/lockstep" } });
  const messages = Object.values(summary.topics).reduce((a, t) => a + t.messages, 0);
  const foxe = ensurePackaged();
  return {
    n: messages,
    warmups: 0,
    runs: 3,
    run: async (): Promise<RunResult> => {
      const [server, browser] = await Promise.all([serveApp(app), launchChromium()]);
      try {
        const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
        await openRecordingWithPanel(page, server, RECORDING, foxe);
        await loadPresetInSidebar(page, /husky/);
        const analyze = async (): Promise<PanelAnalysis> => {
          const t0 = process.hrtime.bigint();
          await page.locator('[data-testid="analyze-button"]').click();
          const done = page.locator('[data-testid="analysis-done"]');
          await done.waitFor({ timeout: 600_000 });
          const ns = Number(process.hrtime.bigint() - t0);
          return { ns, messagesPerSec: Number(await done.getAttribute("data-messages-per-sec")), matches: await shows(page, summary, messages) };
        };
        const cold = await analyze();
        await page.getByRole("button", { name: "Back to playback" }).click();
        await page.locator('[data-testid="analysis-done"]').waitFor({ state: "detached" });
        const warm = await analyze();
        return {
          // The panel's own messages/s is the figure; the wall time from Node is its cross-check.
          elapsedNs: (messages / cold.messagesPerSec) * 1e9,
          tuples: summary.tuples,
          outputHash: `${summary.tuples}/${messages}`,
          ok: cold.matches && warm.matches,
          extra: {
            coldMessagesPerSec: cold.messagesPerSec,
            coldSec: round(cold.ns / 1e9),
            warmMessagesPerSec: warm.messagesPerSec,
            warmSec: round(warm.ns / 1e9),
          },
        };
      } finally {
        await browser.close();
        server.stop();
      }
    },
  };
}

/** Whether the panel shows `lockstep analyze`'s sets, drops and held messages, and all `total` messages. */
async function shows(page: Page, expected: AnalyzeSummary, total: number): Promise<boolean> {
  const drops = Object.values(expected.drops).reduce((a, b) => a + b, 0);
  const held = expected.heldAtEnd.reduce((a, b) => a + b, 0);
  return (
    (await panelNumber(page, "tuple-count")) === expected.tuples &&
    (await panelNumber(page, "drop-count")) === drops &&
    (await panelNumber(page, "held-count")) === held &&
    (await panelNumber(page, "ingested")) === total
  );
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** `panel/real-app/studio` and `panel/real-app/lichtblick`. */
export const realAppAnalysisBenchmarks: readonly Benchmark[] = (
  [
    ["studio", APPS.studio],
    ["lichtblick", APPS.lichtblick],
  ] as const
).map(([label, app]) => ({
  name: `panel/real-app/${label}`,
  policy: "fkie/approximate-time",
  description: `whole-recording analysis in the real ${label === "studio" ? "Foxglove Studio 1.76.0" : "Lichtblick 1.10.0"} (husky MCAP, husky preset): messages/s of the first and a second analysis`,
  standard: false,
  defaultN: 0,
  prepare: () => realAppCase(app),
}));
