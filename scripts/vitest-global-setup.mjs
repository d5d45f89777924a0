// Builds the prebuilt CLI once before the tests, so tests that spawn bin/lockstep.js run the
// current sources (a bundle from an older checkout would otherwise be used). After the tests,
// fails the run when a test left a temporary folder behind: each run of the suite would
// otherwise leave its recordings and outputs in the temp folder (12 GB after one day of runs on
// the development machine).
import { readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Folders in the temp folder that outlive a run on purpose: the benchmarks' caches. */
const KEPT = new Set(["lockstep-bench", "lockstep-peers"]);

let startedMs = 0;

export async function setup() {
  startedMs = Date.now();
  await import("./build-cli.mjs");
}

export function teardown() {
  const left = readdirSync(tmpdir()).filter((name) => {
    if (!name.startsWith("lockstep-") || KEPT.has(name)) {
      return false;
    }
    try {
      return statSync(join(tmpdir(), name)).mtimeMs >= startedMs;
    } catch {
      return false; // removed meanwhile
    }
  });
  if (left.length > 0) {
    // vitest reports an exception thrown here but still exits 0; the exit code fails the run.
    process.exitCode = 1;
    process.stderr.write(
      `\nFAIL the tests left ${left.length} temporary folder(s) in ${tmpdir()}: ${left.join(", ")}. ` +
        "Remove each in the test that makes it (src/testing/tempDir.ts: suiteTempDir).\n",
    );
  }
}
