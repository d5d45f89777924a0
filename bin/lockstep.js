#!/usr/bin/env node
// Runs the prebuilt CLI (build/lockstep.mjs, bundled by `npm ci` through the package's `prepare`
// step, or `npm run build:cli`). Without it, falls back to compiling the TypeScript sources with
// tsx (a development dependency), saying so: that start is slower. LOCKSTEP_FROM_SOURCE=1 forces
// the sources (for a checkout whose bundle may be older than its sources).
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
// A reader that closes the pipe early (`lockstep bench --list | head`) ends the output, not with a
// stack trace. A command that streams its output (replay) listens itself and stops producing; for
// the others the run ends here, with the exit code it has so far.
process.stdout.on("error", (err) => {
  if (err.code !== "EPIPE") {
    throw err;
  }
  if (process.stdout.listenerCount("error") === 1) {
    process.exit(process.exitCode ?? 0);
  }
});
process.exitCode = await main(process.argv.slice(2));
