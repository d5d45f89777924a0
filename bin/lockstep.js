#!/usr/bin/env node
// Runs the prebuilt CLI (build/lockstep.mjs, bundled by `npm ci` through the package's `prepare`
// step, or `npm run build:cli`). Without it, falls back to compiling the TypeScript sources with
// tsx (a development dependency), saying so: that start is slower. LOCKSTEP_FROM_SOURCE=1 forces
// the sources (for a checkout whose bundle may be older than its sources).
import { spawn } from "node:child_process";

import { restartArguments } from "./youngGeneration.mjs";

let restart;
try {
  restart = restartArguments(process.argv, process.execArgv, process.env);
} catch (err) {
  process.stderr.write(`lockstep: ${err.message}\n`);
  process.exit(2);
}
if (restart !== undefined) {
  await runRestarted(restart);
} else {
  await runHere();
}

/**
 * Runs the CLI in a second Node started with `args` (see youngGeneration.mjs): same standard
 * streams, termination signals passed on, its exit status made this process's own.
 */
async function runRestarted(args) {
  const child = spawn(process.execPath, args, { stdio: "inherit" });
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"];
  const forward = (signal) => child.kill(signal);
  for (const signal of signals) {
    process.on(signal, forward);
  }
  const [code, signal] = await new Promise((resolve) => {
    child.on("error", (err) => {
      process.stderr.write(`lockstep: could not start Node again with a larger young generation (${err.message}); set LOCKSTEP_SEMI_SPACE_MB=0 to run without\n`);
      resolve([1, null]);
    });
    child.on("exit", (c, s) => resolve([c, s]));
  });
  for (const s of signals) {
    process.off(s, forward);
  }
  if (signal !== null) {
    // Ended by a signal: end this process the same way, so that callers see it.
    process.kill(process.pid, signal);
    return;
  }
  process.exitCode = code ?? 1;
}

/** Loads the CLI (the bundle, else the sources through tsx) and runs it in this process. */
async function runHere() {
  const fromSource = process.env.LOCKSTEP_FROM_SOURCE === "1";
  let main;
  if (!fromSource) {
    try {
      ({ main } = await import("../build/lockstep.mjs"));
    } catch (err) {
      if (err?.code !== "ERR_MODULE_NOT_FOUND" || !String(err.message).includes("build/lockstep.mjs")) {
        throw err;
      }
      process.stderr.write(
        "lockstep: the prebuilt CLI (build/lockstep.mjs) is missing; run `npm run build:cli` " +
          "(npm ci does it). Running from the TypeScript sources instead, which starts slower.\n",
      );
    }
  }
  if (main === undefined) {
    let register;
    try {
      ({ register } = await import("tsx/esm/api"));
    } catch {
      process.stderr.write(
        "lockstep: cannot start: build/lockstep.mjs is missing and tsx (needed to run the sources) " +
          "is not installed; run `npm ci` in the Lockstep folder.\n",
      );
      process.exit(1);
    }
    register();
    ({ main } = await import("../src/cli/main.ts"));
  }
  process.exitCode = await main(process.argv.slice(2));
}
