// `lockstep … | head`: the reader closes the pipe before the CLI has written everything.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

import { CLI } from "./testing/runCli";
import { REPO_ROOT } from "../recording/testing/paths";

/** Runs the CLI with its standard output closed by the reader before the CLI writes to it. */
async function runWithClosedOutput(args: readonly string[]): Promise<{ code: number; stderr: string }> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code: code ?? -1, stderr });
    });
  });
}

describe("a closed standard output", () => {
  it("ends `bench --list` quietly, with exit code 0 and nothing on stderr", async () => {
    const run = await runWithClosedOutput(["bench", "--list"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  it("keeps an error's exit code and message: `info` of a file that does not exist", async () => {
    const run = await runWithClosedOutput(["info", "/nonexistent/recording.mcap"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^lockstep: /);
    expect(run.stderr).not.toMatch(/EPIPE|\n\s+at /);
  });
});
