import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { REPO_ROOT } from "../../recording/testing/paths";
import { suiteTempDir } from "../../testing/tempDir";
import { runCli, type CliRun } from "../testing/runCli";

async function run(args: string[]): Promise<CliRun> {
  return await runCli(args, { env: { LOCKSTEP_FROM_SOURCE: "1" } });
}

describe("lockstep analyze --fusion <fuse.yaml>", () => {
  const tmp = suiteTempDir("lockstep-fuse-yaml-");

  it("exits 2 naming the file, the key path and the value of a wrong parameter", async () => {
    const yaml = (await readFile(join(REPO_ROOT, "config/husky.fuse.yaml"), "utf8")).replace("orientation_dimensions: [yaw]", "orientation_dimensions: [heading]");
    const file = join(tmp.path, "bad.yaml");
    await writeFile(file, yaml);
    const r = await run(["analyze", "samples/husky-2015.bag", "--config", "config/husky.json", "--fusion", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`invalid fuse YAML file "${file}"`);
    expect(r.stderr).toContain('state_estimator.ros__parameters.imu.orientation_dimensions[0]: "heading" is not a dimension here (allowed: yaw, z)');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 60_000);
});
