// The production package: what `npm run package` ships and what `npm run local-install` installs.
import JSZip from "jszip";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
// jszip is the packager's own zip library (create-foxglove-extension depends on it, pinned).
import { beforeAll, describe, expect, it } from "vitest";

import { ensurePackaged, ROOT } from "./setup";
import { suiteTempDir } from "../src/testing/tempDir";

/** The size limit of the `.foxe` (bytes). */
const FOXE_LIMIT = 600 * 1024;

/** Strings that exist only in the engine's code (pipeline, fusion): each must occur once in the bundle. */
const ENGINE_MARKERS = ["Pipeline.push after finish()", "FixedLagSmoother lagDuration must be"];

let foxe: string;
let zip: JSZip;

beforeAll(async () => {
  foxe = ensurePackaged();
  zip = await JSZip.loadAsync(readFileSync(foxe));
}, 300_000);

describe("npm run package", () => {
  it(`builds a .foxe of at most ${FOXE_LIMIT / 1024} KB with the files the apps need`, () => {
    expect(statSync(foxe).size).toBeLessThanOrEqual(FOXE_LIMIT);
    const names = Object.keys(zip.files).filter((n) => !zip.files[n]!.dir);
    expect(names).toEqual(expect.arrayContaining(["package.json", "README.md", "CHANGELOG.md", "dist/extension.js"]));
    expect(names.filter((n) => n.endsWith(".map"))).toEqual([]);
  });

  it("ships no source maps (inline or referenced) in the extension or its worker, and the engine once", async () => {
    const js = await zip.file("dist/extension.js")!.async("string");
    expect(js).not.toMatch(/sourceMappingURL/);
    expect(js).not.toMatch(/data:application\/json;charset=utf-8;base64/);
    for (const marker of ENGINE_MARKERS) {
      expect(js.split(marker).length - 1, marker).toBe(1);
    }
    const pkg = JSON.parse(await zip.file("package.json")!.async("string")) as { main: string; publisher: string };
    expect(pkg.main).toBe("./dist/extension.js");
    expect(pkg.publisher).toBe("lockstep");
  });
});

describe("npm run local-install", () => {
  const tmp = suiteTempDir("lockstep-home-");

  it("installs the unzipped extension for Foxglove and Lichtblick desktop, replacing older versions", () => {
    const home = join(tmp.path, "home");
    mkdirSync(home);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    const folder = `lockstep.lockstep-${pkg.version}`;
    const stale = join(home, ".lichtblick-suite/extensions/lockstep.lockstep-0.0.1");
    execFileSync("mkdir", ["-p", stale]);
    execFileSync("node", [join(ROOT, "scripts/localInstall.mjs"), "--no-build"], { env: { ...process.env, HOME: home }, stdio: "pipe" });
    for (const base of [".foxglove-studio/extensions", ".lichtblick-suite/extensions"]) {
      const dir = join(home, base, folder);
      expect(readdirSync(join(home, base))).toEqual([folder]);
      expect(readFileSync(join(dir, "dist/extension.js"), "utf8")).toBe(readFileSync(join(ROOT, "dist/extension.js"), "utf8"));
      for (const f of ["package.json", "README.md", "CHANGELOG.md"]) {
        expect(existsSync(join(dir, f)), f).toBe(true);
      }
    }
    expect(existsSync(stale)).toBe(false);
    const only = join(tmp.path, "lichtblick-only");
    mkdirSync(only);
    execFileSync("node", [join(ROOT, "scripts/localInstall.mjs"), "--no-build", "--app", "lichtblick"], { env: { ...process.env, HOME: only }, stdio: "pipe" });
    expect(existsSync(join(only, ".foxglove-studio"))).toBe(false);
    expect(existsSync(join(only, ".lichtblick-suite/extensions", folder, "dist/extension.js"))).toBe(true);
  });
});
