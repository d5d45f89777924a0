// Driving the real web apps (Lichtblick 1.10.0, Foxglove Studio 1.76.0 from ../shared/hosts) as a
// user does: served by the hosts' own server, the packaged `.foxe` installed through the app, the
// panel added from the app's menu and configured in the app's settings sidebar.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";

import { ensurePackaged, launchChromium, ROOT } from "./setup";
import type { Diagnosis } from "../src/pipeline/diagnosis";

/** `lockstep serve` started for a test: its WebSocket URL and a stop that waits for the exit. */
export interface ServeProcess {
  readonly url: string;
  /** What serve logged so far (stderr). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts `node bin/lockstep.js serve <file> --loop --now` on a free port (as a robot would: header
 * stamps and receive times shifted to the wall clock) and resolves once it listens.
 */
export async function startServe(file: string): Promise<ServeProcess> {
  const port = await freePort();
  const child = spawn("node", [join(ROOT, "bin/lockstep.js"), "serve", file, "--port", String(port), "--loop", "--now"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      resolve();
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      reject(new Error(`lockstep serve exited with ${String(code)}: ${stderr}`));
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes("lockstep serve:")) {
        resolve();
      }
    });
  });
  return {
    url: `ws://127.0.0.1:${port}`,
    log: () => stderr,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** `lockstep doctor --json` on a file and config: the diagnosis (run in the background). */
export async function cliDoctor(file: string, config: unknown): Promise<Diagnosis> {
  const { stdout } = await promisify(execFile)("node", [join(ROOT, "bin/lockstep.js"), "doctor", file, "--config", JSON.stringify(config), "--json"], {
    maxBuffer: 64 << 20,
  });
  return JSON.parse(stdout) as Diagnosis;
}

/** The shared folder of real hosts and recordings (absent in a user's clone). */
export const SHARED = join(ROOT, "../shared");
export const HOSTS = join(SHARED, "hosts");

/** The two apps, by folder. */
export const APPS = {
  lichtblick: "lichtblick-1.10.0",
  studio: "foxglove-studio-1.76.0",
} as const;

/** Why real-app tests cannot run here, or undefined when they can. */
export function realAppSkipReason(app: string): string | undefined {
  if (!existsSync(join(HOSTS, app, "index.html"))) {
    return `${join(HOSTS, app)} is absent (the real-app tests need ../shared/hosts)`;
  }
  if (!existsSync("/usr/bin/chromium")) {
    return "/usr/bin/chromium is missing (apt-get install -y chromium)";
  }
  return undefined;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => {
        resolve(port);
      });
    });
  });
}

/** An app served on 127.0.0.1 with ../shared/data under /data (same origin, as remote-file needs). */
export interface AppServer {
  readonly url: string;
  /** URL of a file under ../shared/data. */
  dataUrl(relative: string): string;
  stop(): void;
}

/** What a real-app test file works with: the served app, the packaged `.foxe`, fresh browser profiles. */
export interface RealAppSession {
  /** The app served for this describe block. */
  server(): AppServer;
  /** The packaged extension to install. */
  foxe(): string;
  /**
   * A page in a fresh browser profile (the app's storage is per context) at the tests' window
   * size; `errors` collects the page's uncaught errors. Close `context` at the end of the test.
   */
  newPage(): Promise<{ context: BrowserContext; page: Page; errors: string[] }>;
}

/**
 * Registers, in the calling describe block, the hooks every real-app test file needs: package the
 * extension, serve `app` and start Chromium before its tests, close both after them. A file's own
 * beforeAll (CLI oracles, …) may sit beside it.
 */
export function useRealApp(app: string): RealAppSession {
  let browser: Browser | undefined;
  let server: AppServer | undefined;
  let foxe: string | undefined;
  beforeAll(async () => {
    foxe = ensurePackaged();
    [server, browser] = await Promise.all([serveApp(app), launchChromium()]);
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    server?.stop();
  });
  const started = <T>(x: T | undefined, what: string): T => {
    if (x == undefined) {
      throw new Error(`${what} is not started: useRealApp's beforeAll did not run or failed`);
    }
    return x;
  };
  return {
    server: () => started(server, `the ${app} server`),
    foxe: () => started(foxe, "the packaged .foxe"),
    newPage: async () => {
      const context = await started(browser, "Chromium").newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      return { context, page, errors };
    },
  };
}

/** Serves an app folder with ../shared/hosts/serve.mjs (COOP/COEP, HTTP Range). */
export async function serveApp(app: string): Promise<AppServer> {
  const port = await freePort();
  const child: ChildProcess = spawn("node", [join(HOSTS, "serve.mjs"), join(HOSTS, app), String(port)], {
    env: { ...process.env, EXTRA: `/data=${join(SHARED, "data")}` },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.stdout!.once("data", () => {
      resolve();
    });
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    dataUrl: (relative) => `${url}/data/${relative}`,
    stop: () => {
      child.kill();
    },
  };
}

/** The app opened on a recording URL (`remote-file` data source). */
export async function openRecording(page: Page, server: AppServer, recordingUrl: string): Promise<void> {
  await page.goto(`${server.url}/?ds=remote-file&ds.url=${encodeURIComponent(recordingUrl)}`, { waitUntil: "domcontentloaded", timeout: 180_000 });
  await page.locator("[data-puppeteer-file-upload]").waitFor({ state: "attached", timeout: 120_000 });
}

/** The app connected to a Foxglove WebSocket server (`foxglove-websocket` data source). */
export async function openLive(page: Page, server: AppServer, wsUrl: string): Promise<void> {
  await page.goto(`${server.url}/?ds=foxglove-websocket&ds.url=${encodeURIComponent(wsUrl)}`, { waitUntil: "domcontentloaded", timeout: 180_000 });
  await page.locator("[data-puppeteer-file-upload]").waitFor({ state: "attached", timeout: 120_000 });
}

/** Installs a `.foxe` through the app's file input (as dropping it on the window does). */
export async function installExtension(page: Page, foxe: string): Promise<void> {
  // Generous: on a loaded machine the app's main thread can be busy loading the recording.
  await page.locator("[data-puppeteer-file-upload]").setInputFiles(foxe, { timeout: 120_000 });
}

/** Adds the Lockstep panel from the app's "Add panel" menu and returns its root. */
export async function addLockstepPanel(page: Page): Promise<Locator> {
  const item = page.getByText("Lockstep [local]");
  // The extension registers asynchronously after the install: reopen the menu until it is listed.
  for (let attempt = 0; attempt < 30; attempt++) {
    await page.getByLabel("Add panel button").click();
    if (await item.first().isVisible().catch(() => false)) {
      break;
    }
    await page.keyboard.press("Escape");
    await page.waitForTimeout(500);
  }
  await item.first().click();
  const root = page.locator('[data-testid="lockstep-root"]');
  await root.waitFor({ timeout: 60_000 });
  return root;
}

/**
 * The app on a recording under ../shared/data (`relative`), with the `.foxe` installed and a new
 * Lockstep panel added, once the panel lists the recording's stamped topics.
 */
export async function openRecordingWithPanel(page: Page, server: AppServer, relative: string, foxe: string): Promise<void> {
  await openRecording(page, server, server.dataUrl(relative));
  await installExtension(page, foxe);
  await addLockstepPanel(page);
  await page.locator('[data-testid="empty-topics"]').waitFor({ timeout: 120_000 });
}

/**
 * Loads a preset through the app's settings sidebar as a user does (opens the panel's settings,
 * the Presets node, picks the option matching `preset`) and waits until the panel has a config.
 */
export async function loadPresetInSidebar(page: Page, preset: RegExp): Promise<void> {
  await openPanelSettings(page);
  await expandNode(page, "Presets", "Load preset");
  await chooseOption(page, "Load preset", preset);
  await page.locator('[data-testid="empty-state"]').waitFor({ state: "detached" });
}

/** Opens the Lockstep panel's settings in the app's sidebar (its toolbar's Settings button). */
export async function openPanelSettings(page: Page): Promise<void> {
  const toolbar = page.locator('[data-testid="lockstep-root"]').locator("xpath=ancestor::*[.//*[@title='Settings']][1]");
  await toolbar.locator('[title="Settings"]').first().click();
  await page.getByText("Input topics").first().waitFor({ timeout: 30_000 });
}

/**
 * Adds an input slot in the settings sidebar for each of `topics` and picks the topic (the first
 * option matching it) in the new slot; `existing` is how many slots the panel has already.
 */
export async function addInputTopics(page: Page, topics: readonly (string | RegExp)[], existing = 0): Promise<void> {
  const addInput = nodeHeader(page, "Input topics").locator("xpath=..").getByTitle("Add input");
  for (const _ of topics) {
    await addInput.click();
  }
  for (const [i, topic] of topics.entries()) {
    await chooseOption(page, "Topic", topic, existing + i);
  }
}

/** The settings sidebar's node header with this label (clicking it expands or collapses the node). */
function nodeHeader(page: Page, label: string): Locator {
  return page.locator('[data-testid^="settings__nodeHeaderToggle__"]', { hasText: label }).first();
}

/** Expands a settings node when its fields are not shown yet. */
export async function expandNode(page: Page, label: string, firstField: string): Promise<void> {
  if (!(await fieldInput(page, firstField).isVisible().catch(() => false))) {
    await nodeHeader(page, label).click();
  }
  await fieldInput(page, firstField).waitFor({ timeout: 10_000 });
}

/**
 * The input area of the settings field with this label (the cell after its label); `nth` picks
 * among fields that share a label (each input slot's "Topic", say), in sidebar order.
 */
export function fieldInput(page: Page, label: string, nth = 0): Locator {
  return page.locator(`xpath=//div[@title="${label}" or normalize-space(text())="${label}"]/parent::div/following-sibling::div[1]`).nth(nth);
}

/** Picks an option of a select field in the settings sidebar (the `nth` with this label). */
export async function chooseOption(page: Page, label: string, option: string | RegExp, nth = 0): Promise<void> {
  await fieldInput(page, label, nth).locator('[role="button"], [role="combobox"]').first().click();
  await page.getByRole("option", { name: option }).first().click();
}

/** Types into a string field of the settings sidebar (replacing its text) and leaves the field. */
export async function typeInField(page: Page, label: string, text: string): Promise<void> {
  const input = fieldInput(page, label).locator("input").first();
  await input.click();
  await input.fill(text);
  await input.press("Tab");
}

/** The value shown by a settings field (input value, or a select's text; the `nth` with this label). */
export async function fieldValue(page: Page, label: string, nth = 0): Promise<string> {
  const cell = fieldInput(page, label, nth);
  const select = cell.locator('[role="button"], [role="combobox"]').first();
  if ((await select.count()) > 0) {
    return (await select.textContent()) ?? "";
  }
  return await cell.locator("input").first().inputValue();
}

/** A number shown by the panel (by test id). */
export async function panelNumber(page: Page, testId: string): Promise<number> {
  return Number(await page.locator(`[data-testid="${testId}"]`).first().textContent());
}

/** Clicks the panel's "Analyze whole recording" and waits until that analysis is done. */
export async function analyzeWholeRecording(page: Page): Promise<void> {
  await page.locator('[data-testid="analyze-button"]').click();
  await page.locator('[data-testid="analysis-done"]').waitFor({ timeout: 600_000 });
}

/** Opens the panel's Diagnosis tab, clicks "Diagnose" and waits for the diagnosis: its headline. */
export async function diagnoseInPanel(page: Page): Promise<Locator> {
  await page.locator('[data-testid="tab-diagnosis"]').click();
  await page.locator('[data-testid="diagnosis-run"]').click();
  const headline = page.locator('[data-testid="diagnosis-headline"]');
  await headline.waitFor({ timeout: 300_000 });
  return headline;
}

/**
 * Points the default layout's Raw Messages panel at a topic (its message-path input), so the app
 * subscribes to it: the app counts messages only of topics some panel subscribes to.
 */
export async function showInRawMessages(page: Page, topic: string): Promise<void> {
  const input = page.getByPlaceholder("/some/topic.msgs[0].field").first();
  await input.click();
  await input.fill(topic);
  await input.press("Enter");
  await page.keyboard.press("Escape");
}

/** Opens the app's topic list (the left sidebar's "Topics" tab). */
export async function openTopicList(page: Page): Promise<void> {
  await page.getByRole("tab", { name: "Topics" }).first().click();
}

/**
 * The topic list's message-count cell of a topic (both apps keep it up to date; it is in the DOM
 * but not always visible, so wait for it `attached`).
 */
export function topicRow(page: Page, topic: string): Locator {
  return page.locator(`[data-topic="${topic}"][data-topic-stat="count"]`).first();
}

/** The message count the app's topic list shows for a topic (0 while it shows a dash). */
export async function topicMessageCount(page: Page, topic: string): Promise<number> {
  const text = ((await topicRow(page, topic).textContent()) ?? "").replace(/[^0-9]/g, "");
  return text === "" ? 0 : Number(text);
}
