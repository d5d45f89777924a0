import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { REPO_ROOT } from "../../recording/testing/paths";

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "bin/lockstep.js"), ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, LOCKSTEP_FROM_SOURCE: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end();
  });
}

describe("lockstep analyze --fusion <fuse.yaml>", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lockstep-fuse-yaml-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("exits 2 naming the file, the key path and the value of a wrong parameter", async () => {
    const yaml = (await readFile(join(REPO_ROOT, "config/husky.fuse.yaml"), "utf8")).replace("orientation_dimensions: [yaw]", "orientation_dimensions: [heading]");
    const file = join(dir, "bad.yaml");
    await writeFile(file, yaml);
    const r = await run(["analyze", "samples/husky-2015.bag", "--config", "config/husky.json", "--fusion", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`invalid fuse YAML file "${file}"`);
    expect(r.stderr).toContain('state_estimator.ros__parameters.imu.orientation_dimensions[0]: "heading" is not a dimension here (allowed: yaw, z)');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 60_000);
});
