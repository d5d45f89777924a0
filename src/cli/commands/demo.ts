import type { Command } from "commander";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { CliError } from "../CliError";
import { runAnalyze } from "./analyze";
import { configArgument } from "../configArgument";
import { ranInFusionNode } from "../youngGeneration";

/**
 * The repository root: the nearest folder above this module with a package.json (this module is
 * src/cli/commands/demo.ts, or the prebuilt build/lockstep.mjs).
 */
const ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));

function packageRoot(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "package.json"))) {
      return d;
    }
    if (dirname(d) === d) {
      return resolve(dir, "../../..");
    }
  }
}

/**
 * Registers `lockstep demo [--out DIR] [--no-package]`: analyzes the embedded recording
 * (samples/husky-2015.bag) with config/husky.json into an output folder, builds the extension
 * (`npm run package`, skipped with --no-package or LOCKSTEP_DEMO_SKIP_PACKAGE=1) and says where
 * everything is and how to install the .foxe in Foxglove. A failed packaging step is reported
 * clearly; the analysis is printed either way.
 */
export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description("analyze the embedded Husky recording with config/husky.json and build the .foxe")
    .option("--out <dir>", "output folder", "out/demo")
    .option("--no-package", "skip building the .foxe (npm run package)")
    .action(async (opts: { out: string; package: boolean }) => {
      const recording = join(ROOT, "samples/husky-2015.bag");
      const configPath = join(ROOT, "config/husky.json");
      // The husky preset has a fusion section: the demo gets the fusion preview's young generation.
      if (await ranInFusionNode({ fusion: true })) {
        return;
      }
      const out = resolve(opts.out);
      const result = await runAnalyze({ file: recording, config: configArgument(configPath), out });
      const say = (s: string): void => {
        process.stdout.write(`${s}\n`);
      };
      say(`Lockstep demo: ${relative(process.cwd(), recording)} with ${relative(process.cwd(), configPath)}`);
      say(result.lines.join("\n"));
      if (result.error) {
        throw new CliError(`the embedded recording is damaged: ${result.error.message}`, 1);
      }
      say("");
      say(`outputs in ${out}:`);
      for (const f of result.files) {
        say(`  ${relative(out, f)}`);
      }
      say(`open ${join(out, "synchronized.mcap")} in Foxglove to see the synchronized sets under /lockstep/….`);
      const skip = !opts.package || process.env.LOCKSTEP_DEMO_SKIP_PACKAGE === "1";
      if (skip) {
        say("packaging skipped (--no-package / LOCKSTEP_DEMO_SKIP_PACKAGE=1); build the extension with `npm run package`.");
        return;
      }
      say("building the extension (npm run package)…");
      const started = Date.now();
      const code = await runNpm(["run", "package"]);
      const foxe = await newestFoxe(started);
      if (code !== 0 || foxe == undefined) {
        say(
          `packaging FAILED (npm run package exited with ${code}${foxe == undefined ? ", no new .foxe found" : ""}); ` +
            "the analysis above is complete. Run `npm run package` yourself to see the error.",
        );
        process.exitCode = 1;
        return;
      }
      say(`extension: ${foxe}`);
      say("install it in Foxglove: drag the .foxe file onto the Foxglove window (or use Settings → Extensions → Install),");
      say("or run `npm run local-install` to install it into the local Foxglove desktop app.");
      say('then add the "Lockstep" panel and open samples/husky-2015.bag.');
    });
}

async function runNpm(args: string[]): Promise<number> {
  return await new Promise((resolvePromise) => {
    const child = spawn(process.platform === "win32" ? "npm.cmd" : "npm", args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", () => {
      resolvePromise(127);
    });
    child.on("close", (code) => {
      resolvePromise(code ?? 1);
    });
  });
}

/** The .foxe in the repository root written after `since` (ms epoch), if any. */
async function newestFoxe(since: number): Promise<string | undefined> {
  let best: { path: string; mtime: number } | undefined;
  for (const name of await readdir(ROOT)) {
    if (name.endsWith(".foxe")) {
      const path = join(ROOT, name);
      const { mtimeMs } = await stat(path);
      if (mtimeMs >= since - 1000 && (!best || mtimeMs > best.mtime)) {
        best = { path, mtime: mtimeMs };
      }
    }
  }
  return best?.path;
}
