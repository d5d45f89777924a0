// The CLI's young-generation restart (bin/youngGeneration.mjs): which commands restart, with which
// Node arguments, and that the restarted process runs with the flag and returns the command's result.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { RECORDING_COMMANDS, restartArguments, SEMI_SPACE_MB, SEMI_SPACE_VARIABLE } from "../../bin/youngGeneration.mjs";
import { REPO_ROOT } from "../recording/testing/paths";

const NODE = "/usr/bin/node";
const SCRIPT = "/x/bin/lockstep.js";

describe("restartArguments", () => {
  it("restarts the recording commands with the flag first, Node's arguments, the script and the CLI arguments", () => {
    for (const command of ["analyze", "bench", "demo", "doctor", "replay"]) {
      expect(RECORDING_COMMANDS.has(command)).toBe(true);
      expect(restartArguments([NODE, SCRIPT, command, "a.bag", "--json"], ["--enable-source-maps"], {})).toEqual([
        `--max-semi-space-size=${SEMI_SPACE_MB}`,
        "--enable-source-maps",
        SCRIPT,
        command,
        "a.bag",
        "--json",
      ]);
    }
  });

  it("finds the command after leading options", () => {
    expect(restartArguments([NODE, SCRIPT, "--no-color", "analyze", "a.bag"], [], {})?.slice(-3)).toEqual([
      "--no-color",
      "analyze",
      "a.bag",
    ]);
  });

  it("runs help, info, serve and no command in this process", () => {
    for (const args of [[], ["--help"], ["info", "a.bag"], ["serve", "a.bag"], ["help", "analyze"]]) {
      expect(restartArguments([NODE, SCRIPT, ...args], [], {})).toBeUndefined();
    }
  });

  it("keeps a semi-space size Node was given (flag or NODE_OPTIONS), which also ends the restart", () => {
    expect(restartArguments([NODE, SCRIPT, "analyze"], ["--max-semi-space-size=8"], {})).toBeUndefined();
    expect(restartArguments([NODE, SCRIPT, "analyze"], ["--max-semi-space-size", "8"], {})).toBeUndefined();
    expect(restartArguments([NODE, SCRIPT, "analyze"], [], { NODE_OPTIONS: "--trace-warnings --max-semi-space-size=8" })).toBeUndefined();
    expect(restartArguments([NODE, SCRIPT, "analyze"], ["--max-semi-space-sizes"], {})).toBeDefined();
  });

  it("takes the size from LOCKSTEP_SEMI_SPACE_MB: 0 runs here, a bad value is an error naming it", () => {
    expect(restartArguments([NODE, SCRIPT, "analyze"], [], { [SEMI_SPACE_VARIABLE]: "0" })).toBeUndefined();
    expect(restartArguments([NODE, SCRIPT, "analyze"], [], { [SEMI_SPACE_VARIABLE]: "128" })?.[0]).toBe("--max-semi-space-size=128");
    for (const bad of ["-1", "1.5", "64MB", "5000"]) {
      expect(() => restartArguments([NODE, SCRIPT, "analyze"], [], { [SEMI_SPACE_VARIABLE]: bad })).toThrow(
        new RegExp(`${SEMI_SPACE_VARIABLE}=${bad} is not a size in MB`),
      );
    }
  });
});

describe("the restarted CLI", () => {
  const BIN = join(REPO_ROOT, "bin/lockstep.js");
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "", ...env } });

  it("runs a recording command in a second Node under the flag, with its output and exit code", () => {
    // A preload (through NODE_OPTIONS, so both processes load it) prints each process's Node arguments.
    const dir = mkdtempSync(join(tmpdir(), "lockstep-young-"));
    const preload = join(dir, "argv.cjs");
    writeFileSync(preload, 'process.stderr.write("node args: " + JSON.stringify(process.execArgv) + "\\n");\n');
    try {
      const r = run(["bench", "--definitely-not-an-option"], { NODE_OPTIONS: `--require ${preload}` });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/unknown option '--definitely-not-an-option'/);
      expect(r.stderr.match(/^node args: .*$/gm)).toEqual(["node args: []", `node args: ["--max-semi-space-size=${SEMI_SPACE_MB}"]`]);
      const here = run(["info", "--definitely-not-an-option"], { NODE_OPTIONS: `--require ${preload}` });
      expect(here.status).toBe(2);
      expect(here.stderr.match(/^node args: .*$/gm)).toEqual(["node args: []"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("rejects a bad LOCKSTEP_SEMI_SPACE_MB before doing anything, with exit code 2", () => {
    const r = run(["analyze", "missing.bag"], { [SEMI_SPACE_VARIABLE]: "lots" });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `lockstep: ${SEMI_SPACE_VARIABLE}=lots is not a size in MB from 0 to 4096 (0 keeps Node's default young generation; unset it for ${SEMI_SPACE_MB})\n`,
    );
  });
});
