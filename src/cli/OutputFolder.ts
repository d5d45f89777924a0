import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

import { CliError } from "./CliError";

/** The manifest of what the last run wrote into a folder (so the next run can remove stale files). */
const MANIFEST = ".lockstep-outputs.json";

/**
 * An `--out` folder whose files are always whole: each file is written under a temporary name
 * (`.<name>.partial`) and `commit()` renames them all into place, then removes the files an
 * earlier run wrote there (listed in the folder's manifest, plus `alsoOwned`) that this run did
 * not write. A run that dies before `commit()` leaves the earlier run's files untouched beside
 * its own partial ones, never a mixture under the real names.
 */
export class OutputFolder {
  public readonly dir: string;
  readonly #previous: readonly string[];
  readonly #alsoOwned: readonly string[];
  readonly #names: string[] = [];

  private constructor(dir: string, previous: readonly string[], alsoOwned: readonly string[]) {
    this.dir = dir;
    this.#previous = previous;
    this.#alsoOwned = alsoOwned;
  }

  /**
   * Creates the folder if needed and reads its manifest. `alsoOwned` names files this command
   * writes that a run older than the manifest may have left (they are removed when not rewritten).
   * Throws CliError naming the path when the folder cannot be made or written in (1), or is
   * given as an empty name, which would mean the working folder (2).
   */
  public static async open(dir: string, alsoOwned: readonly string[] = []): Promise<OutputFolder> {
    if (dir.trim() === "") {
      throw new CliError(`--out: the folder name is empty; give a folder for the outputs ("." for the working folder)`, 2);
    }
    await makeFolder(dir);
    await probeWritable(dir);
    let previous: string[] = [];
    try {
      const parsed = JSON.parse(await readFile(join(dir, MANIFEST), "utf8")) as unknown;
      if (Array.isArray(parsed)) {
        previous = parsed.filter((n): n is string => typeof n === "string" && isPlainName(n));
      }
    } catch {
      // no manifest (first run, or written by a version without one)
    }
    return new OutputFolder(dir, previous, alsoOwned);
  }

  /** The temporary path to write `name` to (a plain file name); registers it for `commit()`. */
  public path(name: string): string {
    if (!isPlainName(name)) {
      throw new Error(`output file name ${JSON.stringify(name)} must be a plain file name`);
    }
    if (!this.#names.includes(name)) {
      this.#names.push(name);
    }
    return join(this.dir, `.${name}.partial`);
  }

  /** The final paths of the files registered so far. */
  public get files(): string[] {
    return this.#names.map((n) => join(this.dir, n));
  }

  /** Renames every registered file into place, removes stale ones, writes the manifest. */
  public async commit(): Promise<void> {
    for (const name of this.#names) {
      await rename(join(this.dir, `.${name}.partial`), join(this.dir, name));
    }
    for (const name of new Set([...this.#previous, ...this.#alsoOwned])) {
      if (!this.#names.includes(name)) {
        await rm(join(this.dir, name), { force: true });
      }
    }
    const manifest = join(this.dir, `.${MANIFEST}.partial`);
    await writeFile(manifest, `${JSON.stringify(this.#names)}\n`);
    await rename(manifest, join(this.dir, MANIFEST));
  }
}

function isPlainName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !/[/\\\0]/.test(name);
}

/**
 * Writes and removes a probe file in `dir`, so that a folder nothing can be written in is said
 * before the run, not as a raw error from its first output file (permissions do not tell: root
 * passes every permission check where /sys or a read-only mount still refuse the write).
 */
async function probeWritable(dir: string): Promise<void> {
  const probe = join(dir, `.lockstep-probe-${process.pid}.partial`);
  try {
    await writeFile(probe, "");
  } catch (err) {
    throw new CliError(`--out ${dir}: cannot write in the folder: ${refusal(err)}; give a folder you can write in`, 1);
  }
  await rm(probe, { force: true });
}

/** Why the file system refused, in words. */
function refusal(err: unknown): string {
  const code = (err as { code?: string }).code;
  return code === "EACCES" || code === "EPERM" ? "permission denied" : code === "EROFS" ? "the file system is read-only" : `the file system refuses it (${code ?? String(err)})`;
}

/**
 * Creates `dir` and its missing parents one level at a time. Not `mkdir({recursive: true})`:
 * Node's retries it forever where the file system refuses a folder its parent allows (/proc),
 * and its errors do not say which level failed.
 */
async function makeFolder(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let level = resolve(dir); ; level = dirname(level)) {
    const kind = await stat(level).then(
      (s) => (s.isDirectory() ? "folder" : "other"),
      () => "none",
    );
    if (kind === "other") {
      throw new CliError(`--out ${dir}: ${level} exists and is not a folder; give a folder for the outputs`, 1);
    }
    if (kind === "folder" || level === dirname(level)) {
      break;
    }
    missing.unshift(level);
  }
  for (const level of missing) {
    try {
      await mkdir(level);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "EEXIST") {
        continue; // made by someone else meanwhile (a folder, or found as not one just below)
      }
      throw new CliError(`--out ${dir}: cannot create the folder ${level}: ${refusal(err)}`, 1);
    }
  }
}
