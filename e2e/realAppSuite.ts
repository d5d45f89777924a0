// The real-app scenario, shared by lichtblick.test.ts and studio.test.ts (one browser and one app
// server per file, a fresh browser profile per test): install the .foxe, add the panel, configure
// it in the app's sidebar (husky preset, then an edit), play and seek, analyze the whole recording
// and compare every number with `lockstep analyze` on the same file, run realAppChecks.ts, edit the
// publish settings (results kept), reload (state and open tab kept); then live against `lockstep serve`.
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import {
  addLockstepPanel,
  analyzeWholeRecording,
  expandNode,
  fieldInput,
  fieldValue,
  installExtension,
  loadPresetInSidebar,
  openLive,
  openPanelSettings,
  openRecordingWithPanel,
  openTopicList,
  panelNumber,
  realAppSkipReason,
  SHARED,
  showInRawMessages,
  startServe,
  topicMessageCount,
  topicRow,
  typeInField,
  useRealApp,
} from "./realApp";
import { REAL_APP_CHECKS } from "./realAppChecks";
import { ARTIFACTS, cliAnalyze, HUSKY_PRESET } from "./setup";

/** The husky preset as shipped; the test loads it through the sidebar, then edits maxTimespan. */
const HUSKY = HUSKY_PRESET;
const EDITED_TIMESPAN = "60ms";
/** The namespace the live test publishes under (set in the sidebar, then switched on). */
const LIVE_NAMESPACE = "/lockstep_live";

/** One recording the app opens: its path under ../shared/data. */
export interface RealAppRecording {
  readonly relative: string;
  readonly label: string;
}

/** Registers the real-app tests for one app over the given recordings. */
export function realAppSuite(
  app: string,
  title: string,
  recordings: readonly RealAppRecording[],
  options: { readonly pending?: string } = {},
): void {
  const skip = realAppSkipReason(app) ?? options.pending;
  describe.skipIf(skip != undefined)(`${title} (real app, ${skip ?? "../shared/hosts"})`, () => {
    const session = useRealApp(app);
    const edited = { ...HUSKY, policy: { ...HUSKY.policy, maxTimespan: EDITED_TIMESPAN }, publish: { enabled: false, namespace: "/lockstep" } };

    for (const [index, recording] of recordings.entries()) {
      // The UI flows (play and seek, edits, reload) run on the first recording; every recording
      // gets the sidebar configuration and the whole-recording comparison (the format's numbers).
      const full = index === 0;
      const testTitle = full
        ? `${recording.label}: sidebar config, play and seek, whole-recording numbers equal lockstep analyze, edits and reload keep state`
        : `${recording.label}: sidebar config, whole-recording numbers equal lockstep analyze`;
      it(testTitle, { timeout: 900_000 }, async () => {
        const file = join(SHARED, "data", recording.relative);
        const expected = cliAnalyze(file, edited);
        expect(expected.tuples).toBeGreaterThan(0);
        // Each test starts from a fresh profile (no installed extension, the app's default layout).
        const { context, page, errors } = await session.newPage();
        await openRecordingWithPanel(page, session.server(), recording.relative, session.foxe());
        // A new panel: no red error, the data source's stamped topics and the matching preset.
        expect(await page.locator('[data-testid="config-error"]').count()).toBe(0);
        expect(await page.locator('[data-testid="empty-topics"]').textContent()).toContain("/imu/data");
        expect(await page.locator('[data-testid="empty-presets"]').textContent()).toMatch(/husky/);

        await loadPresetInSidebar(page, /husky/);
        await typeInField(page, "Max timespan", EDITED_TIMESPAN);
        await expect.poll(async () => await fieldValue(page, "Max timespan")).toBe(EDITED_TIMESPAN);
        expect(await page.locator('[data-testid="config-error"]').count()).toBe(0);

        // Play, then seek back to the start: the panel starts over.
        if (full) {
          await page.getByTitle("Play").first().click();
          await expect.poll(async () => await panelNumber(page, "ingested"), { timeout: 120_000 }).toBeGreaterThan(50);
          await page.getByTitle("Pause").first().click();
          const before = await panelNumber(page, "ingested");
          await page.getByTitle(/Seek backward/).first().click();
          await expect.poll(async () => await panelNumber(page, "ingested"), { timeout: 60_000 }).toBeLessThan(before);
          await page.screenshot({ path: join(ARTIFACTS, `${app}-${index}-playback.png`) });
        }

        // Whole-recording analysis: every number equals the CLI's on the same file and config.
        await analyzeWholeRecording(page);
        const dropsTotal = Object.values(expected.drops).reduce((a, b) => a + b, 0);
        const held = expected.heldAtEnd.reduce((a, b) => a + b, 0);
        const messages = Object.values(expected.topics).reduce((a, t) => a + t.messages, 0);
        await expect.poll(async () => await panelNumber(page, "tuple-count")).toBe(expected.tuples);
        expect(await panelNumber(page, "drop-count")).toBe(dropsTotal);
        expect(await panelNumber(page, "held-count")).toBe(held);
        expect(await panelNumber(page, "ingested")).toBe(messages);
        expect(await panelNumber(page, "matched-count")).toBe(expected.tuples * expected.heldAtEnd.length);
        await page.locator('[data-testid="tab-drops"]').click();
        for (const [reason, n] of Object.entries(expected.drops)) {
          expect(await page.locator(`[data-testid="drop-${reason}"]`).getAttribute("data-count"), reason).toBe(String(n));
        }
        await page.locator('[data-testid="tab-stats"]').click();
        for (const [topic, t] of Object.entries(expected.topics)) {
          const cells = page.locator(`[data-testid="topic-row-${t.slot}"] td`);
          expect(await cells.nth(1).textContent()).toBe(topic);
          expect(Number(await cells.nth(2).textContent()), `${topic} messages`).toBe(t.messages);
          expect(Number(await cells.nth(3).textContent()), `${topic} matched`).toBe(expected.tuples);
          expect(Number(await cells.nth(4).textContent()), `${topic} dropped`).toBe(Object.values(t.drops).reduce((a, b) => a + b, 0));
        }
        const rate = (await page.locator('[data-testid="analysis-done"]').getAttribute("data-messages-per-sec")) ?? "?";
        console.log(`${app} ${recording.label}: whole-recording analysis ${messages} messages, ${rate} messages/s (figure, not asserted)`);
        await page.screenshot({ path: join(ARTIFACTS, `${app}-${index}-analyzed.png`) });

        // The other areas' checks (realAppChecks.ts), on the same analyzed panel.
        for (const check of REAL_APP_CHECKS) {
          try {
            await check.run({ app, page, file, config: edited, summary: expected });
          } catch (e) {
            if (e instanceof Error) {
              e.message = `${check.title}: ${e.message}`;
            }
            throw e;
          }
        }

        if (full) {
          // A publish-settings edit keeps the results.
          await expandNode(page, "Publish", "Namespace");
          await typeInField(page, "Namespace", "/lockstep_test");
          await expect.poll(async () => await fieldValue(page, "Namespace")).toBe("/lockstep_test");
          expect(await page.locator('[data-testid="analysis-done"]').count()).toBe(1);
          expect(await panelNumber(page, "tuple-count")).toBe(expected.tuples);

          // An analysis edit after the whole-recording analysis offers to re-run it.
          await typeInField(page, "Max timespan", "50ms");
          await page.locator('[data-testid="analysis-stale"]').waitFor();
          expect(await page.locator('[data-testid="analyze-button"]').textContent()).toMatch(/Re-run/);
          await typeInField(page, "Max timespan", EDITED_TIMESPAN);
          await expect.poll(async () => await fieldValue(page, "Max timespan"), { timeout: 30_000 }).toBe(EDITED_TIMESPAN);
          // The open tab is saved with the layout too.
          await page.locator('[data-testid="tab-trajectory"]').click();
          await expect.poll(async () => await page.locator('[data-testid="panel-view"]').getAttribute("data-view")).toBe("trajectory");
          // The app writes the layout (panel state included) on a debounce after the last edit: give
          // it time to persist before reloading, or the reload shows the edit before the last one.
          await page.waitForTimeout(3_000);

          // Reload: the layout keeps the panel and its configuration (and the extension stays installed).
          await page.reload({ waitUntil: "domcontentloaded", timeout: 180_000 });
          await page.locator('[data-testid="lockstep-root"]').waitFor({ timeout: 120_000 });
          await openPanelSettings(page);
          await expandNode(page, "Publish", "Namespace");
          expect(await fieldValue(page, "Namespace")).toBe("/lockstep_test");
          await expandNode(page, "Sync policy", "Max timespan");
          expect(await fieldValue(page, "Max timespan")).toBe(EDITED_TIMESPAN);
          expect(await page.locator('[data-testid="config-error"]').count()).toBe(0);
          expect(await page.locator('[data-testid="panel-view"]').getAttribute("data-view")).toBe("trajectory");
          await page.screenshot({ path: join(ARTIFACTS, `${app}-${index}-reloaded.png`) });
        }
        expect(errors).toEqual([]);
        await context.close();
      });
    }

    it("live against lockstep serve: publishing switched on keeps the results; sets, transactions and a fused pose; the namespaced topics in the app's topic list, with messages", { timeout: 600_000 }, async () => {
      const serve = await startServe(join(SHARED, "data/husky-2015.bag"));
      try {
        const { context, page, errors } = await session.newPage();
        await openLive(page, session.server(), serve.url);
        await installExtension(page, session.foxe());
        await addLockstepPanel(page);
        await loadPresetInSidebar(page, /husky/);
        await expandNode(page, "Publish", "Namespace");
        await typeInField(page, "Namespace", LIVE_NAMESPACE);
        await expect.poll(async () => await fieldValue(page, "Namespace")).toBe(LIVE_NAMESPACE);

        // Live data: sets and rates before publishing is switched on.
        await expect.poll(async () => await panelNumber(page, "tuple-count"), { timeout: 180_000 }).toBeGreaterThan(5);
        expect(await page.locator('[data-testid="publishing"]').count()).toBe(0);

        // Switching publishing on (a publish-settings edit) keeps the results gathered so far.
        const before = await panelNumber(page, "tuple-count");
        await fieldInput(page, "Publish").getByRole("button", { name: "On" }).click();
        await page.locator('[data-testid="publishing"]').waitFor({ timeout: 60_000 });
        expect(await page.locator('[data-testid="publishing"]').textContent()).toContain(LIVE_NAMESPACE);
        expect(await panelNumber(page, "tuple-count")).toBeGreaterThanOrEqual(before);

        // Fusion on live data: a transaction and a fused pose.
        await page.locator('[data-testid="tab-transactions"]').click();
        await page.locator('[data-testid="transaction"]').first().waitFor({ timeout: 180_000 });
        await page.locator('[data-testid="tab-trajectory"]').click();
        await expect.poll(async () => Number(await page.locator('[data-testid="trajectory"]').getAttribute("data-fused")), { timeout: 180_000 }).toBeGreaterThan(0);
        await page.screenshot({ path: join(ARTIFACTS, `${app}-live.png`) });
        // Joined mid-run, fuse starts from its ignition pose while the odometry is metres along:
        // aligned, the raw track starts on the fused one.
        const trajectory = page.locator('[data-testid="trajectory"]');
        await page.locator('[data-testid="trajectory-align"]').check({ timeout: 120_000 });
        await expect.poll(async () => await trajectory.getAttribute("data-aligned")).toBe("true");
        expect(Number(await trajectory.getAttribute("data-start-gap"))).toBeLessThan(0.01);
        await page.screenshot({ path: join(ARTIFACTS, `${app}-live-aligned.png`) });

        // The app's own Raw Messages panel subscribes to the fused poses the panel publishes
        // (serve relays them as a server channel); the app's topic list counts what arrives.
        await showInRawMessages(page, `${LIVE_NAMESPACE}/fused_poses`);
        // Raw Messages shows the relayed foxglove.PosesInFrame (its frame is "odom").
        await page.getByText('"odom"', { exact: true }).first().waitFor({ timeout: 120_000 });
        await openTopicList(page);
        for (const topic of ["/imu/data", "/husky_velocity_controller/odom", "/fix", "/fused_poses", "/transactions"]) {
          await topicRow(page, `${LIVE_NAMESPACE}${topic}`).waitFor({ state: "attached", timeout: 120_000 });
        }
        await expect.poll(async () => await topicMessageCount(page, `${LIVE_NAMESPACE}/fused_poses`), { timeout: 120_000 }).toBeGreaterThan(0);
        await page.screenshot({ path: join(ARTIFACTS, `${app}-live-topics.png`) });
        expect(errors).toEqual([]);
        await context.close();
      } finally {
        await serve.stop();
      }
    });
  });
}
