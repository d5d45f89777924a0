import { writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ARTIFACTS, bundleHost, ensureBuilt, HOST_HTML, launchChromium, serve } from "./setup";

const TOPICS = 8;
const HZ = 1000;
/** Simulated duration of the live feed (s); delivered faster than real time. */
const SECONDS = 600;
const FPS = 60;

let browser: Browser | undefined;
let server: Server | undefined;
let baseUrl: string;

beforeAll(async () => {
  const extension = ensureBuilt();
  const hostJs = await bundleHost();
  ({ url: baseUrl, server } = await serve({
    "/": { body: HOST_HTML, type: "text/html" },
    "/host.js": { body: hostJs, type: "text/javascript" },
    "/extension.js": { body: extension, type: "text/javascript" },
  }));
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.close();
});

describe("Lockstep panel performance (built bundle, chromium)", () => {
  it(`renders within 16 ms at ${TOPICS} topics × ${HZ} Hz and keeps the heap flat over ${SECONDS / 60} simulated minutes`, async () => {
    const page = await browser!.newPage({ viewport: { width: 1120, height: 660 } });
    await page.goto(`${baseUrl}/`);
    const cdp = await page.context().newCDPSession(page);
    // The engine's worker heap, through the browser's CDP target of the worker (performance.memory
    // does not exist in workers).
    const bcdp = await browser!.newBrowserCDPSession();
    let nextId = 1;
    const replies = new Map<number, (r: unknown) => void>();
    bcdp.on("Target.receivedMessageFromTarget", (ev: { message: string }) => {
      const msg = JSON.parse(ev.message) as { id?: number; result?: unknown };
      if (msg.id != undefined) {
        replies.get(msg.id)?.(msg.result);
        replies.delete(msg.id);
      }
    });
    let workerSession: string | undefined;
    const workerHeapMB = async (): Promise<number | undefined> => {
      if (workerSession == undefined) {
        const { targetInfos } = (await bcdp.send("Target.getTargets")) as { targetInfos: { targetId: string; type: string }[] };
        const target = targetInfos.find((t) => t.type === "worker");
        if (!target) {
          return undefined;
        }
        ({ sessionId: workerSession } = await bcdp.send("Target.attachToTarget", { targetId: target.targetId, flatten: false }));
      }
      const call = async (method: string): Promise<unknown> =>
        await new Promise((resolve) => {
          const id = nextId++;
          replies.set(id, resolve);
          void bcdp.send("Target.sendMessageToTarget", { sessionId: workerSession!, message: JSON.stringify({ id, method }) });
        });
      await call("HeapProfiler.collectGarbage");
      const r = (await call("Runtime.getHeapUsage")) as { usedSize?: number } | undefined;
      return r?.usedSize == undefined ? undefined : r.usedSize / 2 ** 20;
    };
    const heap: { simSec: number; mainMB: number; workerMB: number | undefined }[] = [];
    const measure = async (simSec: number): Promise<void> => {
      // Let in-flight frames and deltas settle, then collect until the heap is stable.
      await new Promise((r) => setTimeout(r, 300));
      for (let i = 0; i < 3; i++) {
        await cdp.send("HeapProfiler.collectGarbage");
      }
      const { usedSize } = await cdp.send("Runtime.getHeapUsage");
      const workerMB = await workerHeapMB().catch(() => undefined);
      heap.push({ simSec, mainMB: usedSize / 2 ** 20, workerMB });
    };
    await page.exposeFunction("lockstepSample", measure);
    const config = {
      inputs: Array.from({ length: TOPICS }, (_, i) => ({ topic: `/synth/${i}` })),
      policy: { type: "fkie/approximate-time", maxQueueSize: 10, maxTimespan: "1ms" },
      publish: { enabled: false, namespace: "/lockstep" },
    };
    await page.evaluate(async (opts) => {
      await (window as unknown as { lockstepHost: { start(o: unknown): Promise<void> } }).lockstepHost.start(opts);
    }, { mode: "live", publish: false, initialState: config, colorScheme: "light" });
    await page.click('[data-testid="tab-timeline"]');
    const t0 = Date.now();
    const fed = await page.evaluate(
      async (a) => await (window as unknown as { lockstepHost: { synthetic(x: unknown): Promise<{ renders: number; messages: number }> } }).lockstepHost.synthetic(a),
      { topics: TOPICS, hz: HZ, seconds: SECONDS, fps: FPS, sampleEverySec: 60 },
    );
    const wallSec = (Date.now() - t0) / 1000;
    await measure(SECONDS);
    const s = (await page.evaluate(() => (window as unknown as { lockstepHost: { summary(): unknown } }).lockstepHost.summary())) as {
      renders: number;
      renderMs: { median: number; p99: number; p999: number; max: number; over16: number };
      errors: string[];
    };
    const tuples = Number(await page.locator('[data-testid="tuple-count"]').textContent());
    const skipped = Number((await page.locator('[data-testid="skipped"]').getAttribute("data-count").catch(() => "0")) ?? 0);
    await page.screenshot({ path: join(ARTIFACTS, "perf-synthetic-timeline.png") });
    const slope = (ys: number[]): number => {
      const xs = heap.map((h) => h.simSec / 60);
      const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
      const my = ys.reduce((a, b) => a + b, 0) / ys.length;
      const num = xs.reduce((a, x, i) => a + (x - mx) * (ys[i]! - my), 0);
      const den = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
      return num / den;
    };
    const workerSamples = heap.map((h) => h.workerMB).filter((w): w is number => w != undefined);
    const growth = (ys: number[]): number => {
      const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
      const messagesBetween = ((heap[heap.length - 2]!.simSec - heap[1]!.simSec) * TOPICS * HZ);
      return ((mean(ys.slice(-3)) - mean(ys.slice(0, 3))) * 2 ** 20) / messagesBetween;
    };
    const report = {
      topics: TOPICS,
      hz: HZ,
      simulatedSec: SECONDS,
      wallSec,
      speedup: SECONDS / wallSec,
      fed,
      tuples,
      skipped,
      render: s.renderMs,
      heap,
      mainSlopeMBPerMin: slope(heap.map((h) => h.mainMB)),
      workerSlopeMBPerMin: workerSamples.length === heap.length ? slope(workerSamples) : undefined,
      mainGrowthBytesPerMessage: growth(heap.map((h) => h.mainMB)),
      workerGrowthBytesPerMessage: workerSamples.length === heap.length ? growth(workerSamples) : undefined,
    };
    writeFileSync(join(ARTIFACTS, "perf.json"), JSON.stringify(report, null, 2));
    console.log(JSON.stringify(report));
    expect(s.errors).toEqual([]);
    expect(fed.messages).toBeGreaterThanOrEqual(TOPICS * HZ * SECONDS);
    // Renders (onRender → done) within one 60 Hz frame. On this shared 2-core machine the OS or a
    // major GC occasionally stalls the renderer; those outliers are reported (over16) and bounded.
    expect(s.renderMs.p99).toBeLessThan(16);
    expect(s.renderMs.over16 / s.renders).toBeLessThan(0.001);
    // Flat heap: once the stores are full (first sample, after 1 simulated minute) memory does not
    // grow with the data: between the mean of the first three and of the last three samples (7
    // simulated minutes, 3.4 M messages apart) the heap grows by less than 2 bytes per message —
    // any per-message leak would be far larger. Single samples scatter by ±10 MB with GC timing.
    expect(report.mainGrowthBytesPerMessage).toBeLessThan(2);
    if (report.workerGrowthBytesPerMessage != undefined) {
      expect(report.workerGrowthBytesPerMessage).toBeLessThan(2);
    }
    expect(tuples).toBeGreaterThan(0);
    await page.close();
  }, 900_000);
});
