import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { CliError } from "./CliError";
import { OutputFolder } from "./OutputFolder";
import { suiteTempDir } from "../testing/tempDir";

async function openError(dir: string): Promise<CliError> {
  try {
    await OutputFolder.open(dir);
  } catch (err) {
    if (err instanceof CliError) {
      return err;
    }
    throw err;
  }
  throw new Error("expected a CliError");
}

describe("OutputFolder", () => {
  const tmp = suiteTempDir("lockstep-outputfolder-");

  it("creates missing parents, writes whole files on commit and removes what an earlier run wrote", async () => {
    const dir = join(tmp.path, "a", "b");
    const first = await OutputFolder.open(dir);
    await writeFile(first.path("x.json"), "1");
    await writeFile(first.path("y.json"), "1");
    expect(existsSync(join(dir, "x.json"))).toBe(false); // not before commit
    await first.commit();
    const second = await OutputFolder.open(dir);
    await writeFile(second.path("x.json"), "2");
    await second.commit();
    expect(await readFile(join(dir, "x.json"), "utf8")).toBe("2");
    expect(existsSync(join(dir, "y.json"))).toBe(false);
  });

  it("names the level that is a file, not a folder", async () => {
    const file = join(tmp.path, "plain");
    await writeFile(file, "");
    expect((await openError(file)).message).toBe(`--out ${file}: ${file} exists and is not a folder; give a folder for the outputs`);
    expect((await openError(join(file, "sub"))).message).toBe(`--out ${join(file, "sub")}: ${file} exists and is not a folder; give a folder for the outputs`);
  });

  it.skipIf(process.getuid?.() === 0)("names the level it may not create", async () => {
    const locked = join(tmp.path, "locked");
    await mkdir(locked);
    await chmod(locked, 0o500);
    const err = await openError(join(locked, "x", "y"));
    await chmod(locked, 0o700);
    expect(err.message).toBe(`--out ${join(locked, "x", "y")}: cannot create the folder ${join(locked, "x")}: permission denied`);
  });

  it.runIf(process.platform === "linux" && existsSync("/sys/kernel"))("names a file system that refuses folders to everyone, root included", async () => {
    expect((await openError("/sys/lockstep-no-such/out")).message).toMatch(
      /^--out \/sys\/lockstep-no-such\/out: cannot create the folder \/sys\/lockstep-no-such: (permission denied|the file system is read-only)$/,
    );
  });

  it.runIf(process.platform === "linux" && existsSync("/sys/kernel"))("names an existing folder nothing can be written in, before any output", async () => {
    expect((await openError("/sys/kernel")).message).toMatch(
      /^--out \/sys\/kernel: cannot write in the folder: (permission denied|the file system is read-only); give a folder you can write in$/,
    );
  });

  it("refuses an empty folder name, which would write into the working folder", async () => {
    for (const empty of ["", "  "]) {
      const err = await openError(empty);
      expect(err.exitCode).toBe(2);
      expect(err.message).toBe('--out: the folder name is empty; give a folder for the outputs ("." for the working folder)');
    }
    // The probe leaves nothing behind in a folder it could write in.
    const dir = join(tmp.path, "probed");
    await OutputFolder.open(dir);
    expect(await readdir(dir)).toEqual([]);
  });

  it.runIf(process.platform === "linux" && existsSync("/proc/self"))("fails at once where the file system refuses a folder (Node's recursive mkdir loops there)", async () => {
    expect((await openError("/proc/lockstep-no-such/out")).message).toMatch(/^--out \/proc\/lockstep-no-such\/out: cannot create the folder \/proc\/lockstep-no-such: the file system refuses it/);
  });
});
