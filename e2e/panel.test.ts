import type { Server } from "node:http";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ARTIFACTS, BAG, bundleHost, cliAnalyze, ensureBuilt, HOST_HTML, HUSKY_PRESET, launchChromium, recordingJson, serve, type AnalyzeSummary } from "./setup";
import { parseConfig, Pipeline } from "../src/pipeline";
import { openRecordingFile } from "../src/recording/node";

/** The husky preset as shipped (sync + fusion). */
const HUSKY = HUSKY_PRESET;
/** The same without fusion: the live tests deliver frames much faster than real time. */
const SYNC: Record<string, unknown> = { ...HUSKY };
delete SYNC.fusion;

interface HostSummary {
  savedState: unknown;
  settings: Record<string, { fields?: Record<string, { disabled?: boolean; value?: unknown; error?: string; help?: string }> }>;
  subscriptions: { topic: string }[];
  advertised: [string, string][];
  publishedCount: Record<string, number>;
  publishedSample: { topic: string; message: { header?: { stamp?: unknown } } }[];
  renders: number;
  errors: string[];
  hasAdvertise: boolean;
}

let browser: Browser | undefined;
let server: Server | undefined;
let baseUrl: string;
let expected: AnalyzeSummary;
let expectedSync: AnalyzeSummary;
let recordingStartNs: number;
let recordingEndNs: number;

/** Tuples of the husky pipeline over the messages received at or after `fromNs` (Node, no panel). */
async function tuplesFrom(fromNs: number): Promise<number> {
  const pipeline = new Pipeline(parseConfig(SYNC));
  const rec = await openRecordingFile(BAG);
  for await (const m of rec.messages({ topics: pipeline.topics })) {
    if (m.receiveTime.sec * 1e9 + m.receiveTime.nsec >= fromNs) {
      pipeline.push(m);
    }
  }
  await rec.close();
  return pipeline.statistics.tuples;
}

async function openHost(options: Record<string, unknown>): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width: 1120, height: 660 } });
  const logs: string[] = [];
  page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
  await page.goto(`${baseUrl}/`);
  await page.evaluate(async (opts) => {
    await (window as unknown as { lockstepHost: { start(o: unknown): Promise<void> } }).lockstepHost.start(opts);
  }, options);
  (page as unknown as { logs: string[] }).logs = logs;
  return page;
}

const summary = async (page: Page): Promise<HostSummary> =>
  await (page.evaluate(() => (window as unknown as { lockstepHost: { summary(): unknown } }).lockstepHost.summary()) as Promise<HostSummary>);
const play = async (page: Page, untilNs?: number): Promise<number> =>
  await page.evaluate(async (u) => await (window as unknown as { lockstepHost: { play(f?: number, u?: number): Promise<number> } }).lockstepHost.play(200e6, u ?? Infinity), untilNs);
const text = async (page: Page, id: string): Promise<string> => (await page.locator(`[data-testid="${id}"]`).first().textContent()) ?? "";

async function waitForCount(page: Page, n: number): Promise<void> {
  await page.waitForFunction((want) => document.querySelector('[data-testid="tuple-count"]')?.textContent === String(want), n, { timeout: 120_000 });
}

/** The husky presets' input topics, in config order. */
const HUSKY_INPUTS = ["/imu/data", "/husky_velocity_controller/odom", "/fix"];

/**
 * Waits until the panel has subscribed to every input topic: it subscribes from an effect after
 * its first render, and a frame played before that is filtered by the host (as an app does), so
 * a loaded machine would otherwise lose the first messages.
 */
async function waitForSubscriptions(page: Page): Promise<void> {
  await expect
    .poll(
      async () => {
        const subscribed = new Set((await summary(page)).subscriptions.map((x) => x.topic));
        return HUSKY_INPUTS.every((t) => subscribed.has(t));
      },
      { timeout: 120_000 },
    )
    .toBe(true);
}

/** Stamps from another clock: 1 s after the epoch (first message) and 1e12 s (mid-stream). */
const BAD_STAMPS = [{ sec: 1, nsec: 0 }, { sec: 1e12, nsec: 0 }];

/** The recording with a copy of an /imu/data message carrying a bad stamp first and another mid-stream. */
function withBadStamps(recJson: string): string {
  const rec = JSON.parse(recJson) as { topics: unknown[]; messages: { topic: string; receiveTime: unknown; message: { header: { stamp: unknown } } }[] };
  const imu = rec.messages.filter((m) => m.topic === "/imu/data");
  const bad = (m: (typeof imu)[number], stamp: unknown): (typeof imu)[number] => ({ ...m, message: { ...m.message, header: { ...m.message.header, stamp } } });
  const mid = Math.floor(rec.messages.length / 2);
  const messages = [bad(imu[0]!, BAD_STAMPS[0]), ...rec.messages.slice(0, mid), bad(rec.messages.slice(mid).find((m) => m.topic === "/imu/data")!, BAD_STAMPS[1]), ...rec.messages.slice(mid)];
  return JSON.stringify({ topics: rec.topics, messages });
}

beforeAll(async () => {
  const extension = ensureBuilt();
  const [hostJs, recJson] = await Promise.all([bundleHost(), recordingJson(BAG)]);
  const rec = JSON.parse(recJson) as { messages: { receiveTime: { sec: number; nsec: number } }[] };
  recordingStartNs = rec.messages[0]!.receiveTime.sec * 1e9 + rec.messages[0]!.receiveTime.nsec;
  const last = rec.messages[rec.messages.length - 1]!.receiveTime;
  recordingEndNs = last.sec * 1e9 + last.nsec;
  // The reference: `lockstep analyze` on the same recording with the same config.
  expected = cliAnalyze(BAG, HUSKY);
  expectedSync = cliAnalyze(BAG, SYNC);
  ({ url: baseUrl, server } = await serve({
    "/": { body: HOST_HTML, type: "text/html" },
    "/host.js": { body: hostJs, type: "text/javascript" },
    "/extension.js": { body: extension, type: "text/javascript" },
    "/husky.json": { body: recJson, type: "application/json" },
    "/husky-bad-stamps.json": { body: withBadStamps(recJson), type: "application/json" },
  }));
  browser = await launchChromium();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
});

describe("Lockstep panel in chromium (built bundle)", () => {
  it("plays the husky recording: same tuples as `lockstep analyze`, resets on seek, analyzes the whole file", { timeout: 600_000 }, async () => {
    expect(expected.tuples).toBeGreaterThan(0);
    const page = await openHost({ mode: "recording", publish: false, initialState: HUSKY, colorScheme: "light", recordingUrl: "/husky.json" });
    let s = await summary(page);
    expect(s.subscriptions.map((x) => x.topic)).toEqual(HUSKY_INPUTS);
    expect(s.savedState).toEqual(HUSKY);
    await play(page);
    await waitForCount(page, expected.tuples);
    await page.click('[data-testid="tab-drops"]');
    for (const [reason, n] of Object.entries(expected.drops)) {
      await expect.poll(async () => await page.locator(`[data-testid="drop-${reason}"]`).getAttribute("data-count")).toBe(String(n));
    }
    await page.click('[data-testid="tab-stats"]');
    await page.screenshot({ path: join(ARTIFACTS, "recording-stats.png") });
    await page.click('[data-testid="tab-timeline"]');
    await page.screenshot({ path: join(ARTIFACTS, "recording-timeline.png") });
    const box = (await page.locator('[data-testid="timeline"]').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.6, box.y + 40);
    for (let i = 0; i < 14; i++) {
      await page.mouse.wheel(0, -100);
    }
    await page.screenshot({ path: join(ARTIFACTS, "recording-timeline-zoomed.png") });
    await page.click('[data-testid="tab-trajectory"]');
    await page.screenshot({ path: join(ARTIFACTS, "recording-trajectory.png") });
    if (HUSKY.fusion != undefined) {
      // The recording starts with the robot's odometry about 8 m from its origin, fuse at its
      // ignition pose: aligned, the raw track starts on the fused one; then back as recorded.
      const trajectory = page.locator('[data-testid="trajectory"]');
      expect(Number(await trajectory.getAttribute("data-start-gap"))).toBeGreaterThan(1);
      await page.locator('[data-testid="trajectory-align"]').check();
      await expect.poll(async () => await trajectory.getAttribute("data-aligned")).toBe("true");
      expect(Number(await trajectory.getAttribute("data-start-gap"))).toBeLessThan(0.01);
      // The choice and the open tab are saved with the layout; the pipeline's part is as it was.
      s = await summary(page);
      expect(s.savedState).toEqual({ ...HUSKY, view: { tab: "trajectory", rawPlacement: "start-aligned" } });
      await page.screenshot({ path: join(ARTIFACTS, "recording-trajectory-aligned.png") });
      await page.locator('[data-testid="trajectory-align"]').uncheck();
      await expect.poll(async () => await trajectory.getAttribute("data-aligned")).toBe("false");
      expect(((await summary(page)).savedState as { view?: unknown }).view).toEqual({ tab: "trajectory", rawPlacement: "as-recorded" });

      await page.click('[data-testid="tab-transactions"]');
      await page.waitForSelector('[data-testid="transaction"]', { timeout: 60_000 });
      await page.locator('[data-testid="transaction"] summary').first().click();
      await page.screenshot({ path: join(ARTIFACTS, "recording-transactions.png") });
    }
    await page.click('[data-testid="tab-tuples"]');
    await page.screenshot({ path: join(ARTIFACTS, "recording-tuples.png") });

    // Seek to the middle: the panel starts over and counts only what follows.
    const mid = Math.round((recordingStartNs + recordingEndNs) / 2);
    await page.evaluate((t) => {
      (window as unknown as { lockstepHost: { seek(n: number): void } }).lockstepHost.seek(t);
    }, mid);
    await play(page);
    await waitForCount(page, await tuplesFrom(mid));

    // Whole-recording analysis through subscribeMessageRange.
    await page.click('[data-testid="analyze-button"]');
    await page.waitForSelector('[data-testid="analysis-done"]', { timeout: 300_000 });
    await waitForCount(page, expected.tuples);
    expect(await text(page, "analysis-done")).toMatch(/whole recording analyzed/);
    s = await summary(page);
    expect(s.errors).toEqual([]);
    expect(s.hasAdvertise).toBe(false);
    expect(s.settings.publish?.fields?.enabled?.disabled).toBe(true);
    await page.close();
  });

  it("a layout saved with the trajectory tab open and aligned reopens so", { timeout: 300_000 }, async () => {
    if (HUSKY.fusion == undefined) {
      return;
    }
    const initialState = { ...HUSKY, view: { tab: "trajectory", rawPlacement: "start-aligned" } };
    const page = await openHost({ mode: "recording", publish: false, initialState, colorScheme: "light", recordingUrl: "/husky.json" });
    const trajectory = page.locator('[data-testid="trajectory"]');
    await trajectory.waitFor();
    await page.click('[data-testid="analyze-button"]');
    await page.waitForSelector('[data-testid="analysis-done"]', { timeout: 240_000 });
    await expect.poll(async () => await trajectory.getAttribute("data-aligned"), { timeout: 30_000 }).toBe("true");
    expect(await page.locator('[data-testid="trajectory-align"]').isChecked()).toBe(true);
    const s = await summary(page);
    expect(s.savedState).toEqual(initialState);
    expect(s.errors).toEqual([]);
    await page.close();
  });

  it("recording host without subscribeMessageRange: whole-file analysis through preload/allFrames", async () => {
    const page = await openHost({ mode: "recording", rangeApi: false, publish: false, initialState: SYNC, colorScheme: "light", recordingUrl: "/husky.json" });
    await page.click('[data-testid="analyze-button"]');
    await page.waitForSelector('[data-testid="analysis-done"]', { timeout: 300_000 });
    await waitForCount(page, expectedSync.tuples);
    const s = await summary(page);
    expect(s.subscriptions.every((x) => (x as { preload?: boolean }).preload !== true)).toBe(true);
    expect(s.errors).toEqual([]);
    await page.close();
  });

  it("live source with publishing: republishes every tuple under /lockstep with the original schemas", async () => {
    const state = { ...SYNC, publish: { enabled: true, namespace: "/lockstep" } };
    const page = await openHost({ mode: "live", publish: true, initialState: state, colorScheme: "dark", recordingUrl: "/husky.json" });
    await waitForSubscriptions(page);
    await play(page);
    await waitForCount(page, expectedSync.tuples);
    await page.waitForFunction(() => document.querySelector('[data-testid="publishing"]') != undefined);
    const s = await summary(page);
    expect(new Map(s.advertised)).toEqual(
      new Map([
        ["/lockstep/imu/data", "sensor_msgs/Imu"],
        ["/lockstep/husky_velocity_controller/odom", "nav_msgs/Odometry"],
        ["/lockstep/fix", "sensor_msgs/NavSatFix"],
      ]),
    );
    await expect
      .poll(async () => (await summary(page)).publishedCount)
      .toEqual({
        "/lockstep/imu/data": expectedSync.tuples,
        "/lockstep/husky_velocity_controller/odom": expectedSync.tuples,
        "/lockstep/fix": expectedSync.tuples,
      });
    expect(s.publishedSample[0]?.message.header?.stamp).toBeDefined();
    expect(s.errors).toEqual([]);
    await page.click('[data-testid="tab-timeline"]');
    await page.screenshot({ path: join(ARTIFACTS, "live-publish-timeline-dark.png") });
    await page.close();
  });

  it("live source without advertise: the publish switch is disabled with the reason, nothing is advertised", async () => {
    const state = { ...SYNC, publish: { enabled: true, namespace: "/lockstep" } };
    const page = await openHost({ mode: "live", publish: false, initialState: state, colorScheme: "light", recordingUrl: "/husky.json" });
    await waitForSubscriptions(page);
    await play(page, recordingStartNs + 60e9);
    const s = await summary(page);
    expect(s.hasAdvertise).toBe(false);
    expect(s.advertised).toEqual([]);
    expect(s.settings.publish?.fields?.enabled).toMatchObject({ disabled: true, value: false });
    expect(s.settings.publish?.fields?.status).toMatchObject({ value: "Source can't publish" });
    expect(String(s.settings.publish?.fields?.status?.help)).toMatch(/cannot publish/);
    expect(await page.locator('[data-testid="publishing"]').count()).toBe(0);
    expect(await page.locator('[data-testid="analyze-button"]').isDisabled()).toBe(true);
    expect(Number(await text(page, "tuple-count"))).toBeGreaterThan(0);
    await page.close();
  });

  it(
    "bad stamps first and mid-stream are drops and every later message is analyzed",
    async () => {
      const page = await openHost({ mode: "recording", publish: false, initialState: SYNC, colorScheme: "light", recordingUrl: "/husky-bad-stamps.json" });
      await waitForSubscriptions(page);
      await play(page);
      await waitForCount(page, expectedSync.tuples);
      const dropsExpected = Object.values(expectedSync.drops).reduce((a, b) => a + b, 0) + BAD_STAMPS.length;
      await expect.poll(async () => Number(await text(page, "drop-count"))).toBe(dropsExpected);
      const received = Number(await text(page, "ingested"));
      const matched = Number(await text(page, "matched-count"));
      const held = Number(await text(page, "held-count"));
      expect(matched + dropsExpected + held).toBe(received);
      await page.close();
    },
  );
});
