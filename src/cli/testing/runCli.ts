// Test support (no production file imports it): the CLI run as a user runs it.
import { spawn } from "node:child_process";
import { join } from "node:path";

import { REPO_ROOT } from "../../recording/testing/paths";

/** What a CLI run gave. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI entry the tests spawn (overridable to test a build). */
export const CLI = process.env.LOCKSTEP_TEST_CLI ?? join(REPO_ROOT, "bin/lockstep.js");

/**
 * Runs `lockstep <args>` in a child Node from the repository root, with `stdin` written and
 * closed and `env` added to the environment; resolves with its exit code and output.
 */
export async function runCli(
  args: readonly string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...options.env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? "");
  });
}
