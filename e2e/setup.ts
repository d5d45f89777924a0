// Shared setup of the browser tests: the built extension (built here when missing or stale), the
// test host bundle, the husky recording as JSON, a static server on 127.0.0.1, chromium, and
// `lockstep analyze`'s summary as the reference the panel's numbers are compared with.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";

import { REPO_ROOT } from "../bench/repoRoot";
import { openRecordingFile } from "../src/recording/node";

/**
 * The checkout's root: found as the benchmarks find it, since this module also runs from a bundle
 * chunk under build/ (`lockstep bench panel/…`), where `../` of the module is not the root.
 */
export const ROOT = REPO_ROOT;
export const ARTIFACTS = join(ROOT, "e2e/artifacts");
/** config/husky.json, the preset the apps' sidebar offers as "husky" (sync and fusion). */
export const HUSKY_PRESET = JSON.parse(readFileSync(join(ROOT, "config/husky.json"), "utf8")) as { policy: Record<string, unknown> } & Record<string, unknown>;
export const BAG = [join(ROOT, "samples/husky-2015.bag"), join(ROOT, "../shared/data/husky-2015.bag")].find((p) => existsSync(p))!;
const CHROMIUM = "/usr/bin/chromium";

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) {
      newest = Math.max(newest, newestMtime(p));
    } else if (!entry.name.includes(".test.")) {
      newest = Math.max(newest, statSync(p).mtimeMs);
    }
  }
  return newest;
}

/** The packaged extension: `npm run package`'s output (id-version.foxe at the project root). */
export const FOXE = join(ROOT, "lockstep.lockstep-0.1.0.foxe");

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The fields of `lockstep analyze`'s summary.json that the browser tests compare with the panel's. */
export interface AnalyzeSummary {
  tuples: number;
  drops: Record<string, number>;
  heldAtEnd: number[];
  topics: Record<string, { messages: number; slot: number; drops: Record<string, number> }>;
  [key: string]: unknown;
}

/**
 * `lockstep analyze` on a file and config, run as a user runs it (bin/lockstep.js): its
 * summary.json. Its --out folder is a temporary one, removed before this returns.
 */
export function cliAnalyze(file: string, config: unknown): AnalyzeSummary {
  const out = mkdtempSync(join(tmpdir(), "lockstep-analyze-"));
  try {
    execFileSync("node", [join(ROOT, "bin/lockstep.js"), "analyze", file, "--config", JSON.stringify(config), "--out", out], { cwd: ROOT, stdio: "pipe" });
    return JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as AnalyzeSummary;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The `.foxe` from `npm run package` (production build), rebuilt when missing or older than
 * src/, config.ts, package.json, README.md or CHANGELOG.md. Test files run in parallel processes:
 * a lock directory makes one build and the others wait for it.
 */
export function ensurePackaged(): string {
  const inputs = [join(ROOT, "config.ts"), join(ROOT, "package.json"), join(ROOT, "README.md"), join(ROOT, "CHANGELOG.md")];
  const fresh = (): boolean =>
    existsSync(FOXE) &&
    existsSync(join(ROOT, "dist/extension.js")) &&
    statSync(FOXE).mtimeMs >= Math.max(newestMtime(join(ROOT, "src")), ...inputs.map((f) => statSync(f).mtimeMs));
  const lock = join(ROOT, "dist.lock");
  for (;;) {
    if (fresh()) {
      return FOXE;
    }
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another test file is building; a lock older than 5 minutes is a crashed build.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 300_000) {
        rmSync(lock, { recursive: true, force: true });
      }
      sleepSync(500);
    }
  }
  try {
    if (!fresh()) {
      execFileSync("npm", ["run", "package"], { cwd: ROOT, stdio: "pipe" });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  return FOXE;
}

/** dist/extension.js of the production build (the same file the `.foxe` holds). */
export function ensureBuilt(): string {
  ensurePackaged();
  return readFileSync(join(ROOT, "dist/extension.js"), "utf8");
}

/**
 * `entry` (a path under the repository) bundled for the browser as one script: a page's or a
 * dedicated worker's. sql.js names Node's modules in code that runs only under Node, and the
 * decompressors' wasm files travel inside the bundle.
 */
export async function bundleForBrowser(entry: string): Promise<string> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    write: false,
    format: "iife",
    target: "es2022",
    platform: "browser",
    external: ["fs", "path", "crypto"],
    loader: { ".wasm": "dataurl" },
    logLevel: "warning",
  });
  return result.outputFiles[0]!.text;
}

/** The test host page script (e2e/host/host.ts bundled for the browser). */
export async function bundleHost(): Promise<string> {
  return await bundleForBrowser("e2e/host/host.ts");
}

/** A decoded message as plain JSON values: typed arrays as arrays, bigints as numbers. */
export function plain(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) {
    return Array.from(value as unknown as ArrayLike<number>);
  }
  if (Array.isArray(value)) {
    return value.map(plain);
  }
  if (typeof value === "object" && value != undefined) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return typeof value === "bigint" ? Number(value) : value;
}

/** The recording as the host serves it: topics and decoded messages (plain JSON) in receive order. */
export async function recordingJson(file: string): Promise<string> {
  const rec = await openRecordingFile(file);
  const topics = rec.info.channels.map((c) => ({ name: c.topic, schemaName: c.schemaName, datatype: c.schemaName }));
  const messages: unknown[] = [];
  for await (const m of rec.messages()) {
    messages.push({ topic: m.topic, schemaName: m.schemaName, receiveTime: m.receiveTime, sizeInBytes: m.sizeInBytes, message: plain(m.message) });
  }
  await rec.close();
  return JSON.stringify({ topics, messages });
}

/** Static files on 127.0.0.1 (random port). */
export async function serve(files: Record<string, { body: string; type: string }>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const f = files[(req.url ?? "/").split("?")[0]!];
    if (!f) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": f.type, "cache-control": "no-store" }).end(f.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Debian chromium, headless; playwright never downloads a browser here. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--enable-precise-memory-info",
      "--js-flags=--expose-gc",
    ],
  });
}

export const HOST_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>Lockstep test host</title>
<style>html,body{margin:0;height:100%} #panel{width:1100px;height:640px;position:relative}</style></head>
<body><div id="panel"></div><script src="/host.js"></script></body></html>`;
