import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

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
   */
  public static async open(dir: string, alsoOwned: readonly string[] = []): Promise<OutputFolder> {
    await mkdir(dir, { recursive: true });
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
