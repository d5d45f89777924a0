// The hand-written host's synthetic live feed (8 topics × 1 kHz by default, delivered faster than
// real time) driving the built panel in chromium. Used by e2e/load.test.ts (functional checks
// only) and by `lockstep bench panel` (render times and heap figures; never asserted in tests).
import type { Browser } from "playwright-core";

import { bundleHost, ensureBuilt, HOST_HTML, launchChromium, serve } from "./setup";

/** What one synthetic run reports. */
export interface SyntheticLoadReport {
  readonly topics: number;
  readonly hz: number;
  readonly simulatedSec: number;
  readonly wallSec: number;
  readonly fed: { renders: number; messages: number };
  readonly tuples: number;
  /** Live messages the engine could not keep up with (counted, shown). */
  readonly skipped: number;
  /** Messages the panel shows as received (sent to the engine). */
  readonly received: number;
  readonly render: { median: number; p99: number; p999: number; max: number; over16: number };
  readonly renders: number;
  readonly errors: string[];
  /** Heap samples (MiB) every `sampleEverySec` simulated seconds, when measured. */
  readonly heap: { simSec: number; mainMB: number; workerMB: number | undefined }[];
  /** Bytes of heap growth per message between the first and last three samples. */
  readonly mainGrowthBytesPerMessage: number | undefined;
  readonly workerGrowthBytesPerMessage: number | undefined;
}

/** The built panel in the test host, served on 127.0.0.1, in a shared chromium. */
export interface SyntheticHost {
  readonly browser: Browser;
  readonly url: string;
  close(): Promise<void>;
}

/** Starts chromium and the test host (no recording). */
export async function startSyntheticHost(): Promise<SyntheticHost> {
  const extension = ensureBuilt();
  const hostJs = await bundleHost();
  const { url, server } = (await serve({
    "/": { body: HOST_HTML, type: "text/html" },
    "/host.js": { body: hostJs, type: "text/javascript" },
    "/extension.js": { body: extension, type: "text/javascript" },
  }));
  const browser = await launchChromium();
  return {
    browser,
    url,
    close: async () => {
      await browser.close();
      server.close();
    },
  };
}

/** Feeds `topics` × `hz` for `seconds` simulated seconds; optionally samples both heaps. */
export async function runSyntheticLoad(
  host: SyntheticHost,
  options: { topics: number; hz: number; seconds: number; fps: number; measureHeap: boolean },
): Promise<SyntheticLoadReport> {
  const { topics, hz, seconds, fps } = options;
  const page = await host.browser.newPage({ viewport: { width: 1120, height: 660 } });
  await page.goto(`${host.url}/`);
  const heap: { simSec: number; mainMB: number; workerMB: number | undefined }[] = [];
  const cdp = await page.context().newCDPSession(page);
  const bcdp = await host.browser.newBrowserCDPSession();
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
  // The engine's worker heap, through the browser's CDP target of the worker (performance.memory
  // does not exist in workers).
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
  const measure = async (simSec: number): Promise<void> => {
    if (!options.measureHeap) {
      return;
    }
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
    inputs: Array.from({ length: topics }, (_, i) => ({ topic: `/synth/${i}` })),
    policy: { type: "fkie/approximate-time", maxQueueSize: 10, maxTimespan: "1ms" },
    publish: { enabled: false, namespace: "/lockstep" },
  };
  await page.evaluate(async (opts) => {
    await (window as unknown as { lockstepHost: { start(o: unknown): Promise<void> } }).lockstepHost.start(opts);
  }, { mode: "live", publish: false, initialState: config, colorScheme: "light" });
  await page.click('[data-testid="tab-timeline"]');
  // Renders the host issued before the feed (start-up, the tab switch) are not the feed's.
  const rendersBefore = ((await page.evaluate(() => (window as unknown as { lockstepHost: { summary(): unknown } }).lockstepHost.summary())) as { renders: number }).renders;
  const t0 = Date.now();
  const fed = await page.evaluate(
    async (a) => await (window as unknown as { lockstepHost: { synthetic(x: unknown): Promise<{ renders: number; messages: number }> } }).lockstepHost.synthetic(a),
    { topics, hz, seconds, fps, sampleEverySec: Math.max(1, Math.floor(seconds / 10)) },
  );
  const wallSec = (Date.now() - t0) / 1000;
  await measure(seconds);
  const s = (await page.evaluate(() => (window as unknown as { lockstepHost: { summary(): unknown } }).lockstepHost.summary())) as {
    renders: number;
    renderMs: SyntheticLoadReport["render"];
    errors: string[];
  };
  // Let the engine catch up (its in-flight frames) before reading the counters.
  const num = async (id: string): Promise<number> => Number(await page.locator(`[data-testid="${id}"]`).first().textContent());
  const skippedNow = async (): Promise<number> =>
    Number((await page.locator('[data-testid="skipped"]').getAttribute("data-count", { timeout: 100 }).catch(() => "0")) ?? 0);
  let tuples = 0;
  let received = 0;
  let skipped = 0;
  for (let i = 0; i < 120; i++) {
    [tuples, received, skipped] = [await num("tuple-count"), await num("ingested"), await skippedNow()];
    if (received + skipped >= fed.messages) {
      break;
    }
    await page.waitForTimeout(500);
  }
  const growth = (ys: number[]): number | undefined => {
    if (heap.length < 6) {
      return undefined;
    }
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    const messagesBetween = (heap[heap.length - 2]!.simSec - heap[1]!.simSec) * topics * hz;
    return ((mean(ys.slice(-3)) - mean(ys.slice(0, 3))) * 2 ** 20) / messagesBetween;
  };
  const workerSamples = heap.map((h) => h.workerMB).filter((w): w is number => w != undefined);
  await page.close();
  return {
    topics,
    hz,
    simulatedSec: seconds,
    wallSec,
    fed,
    tuples,
    skipped,
    received,
    render: s.renderMs,
    renders: s.renders - rendersBefore,
    errors: s.errors,
    heap,
    mainGrowthBytesPerMessage: growth(heap.map((h) => h.mainMB)),
    workerGrowthBytesPerMessage: workerSamples.length === heap.length ? growth(workerSamples) : undefined,
  };
}
