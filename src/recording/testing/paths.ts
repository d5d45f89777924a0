import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (tests run from anywhere). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** The shared recordings folder next to the repository (`../shared/data`), if present. */
export const SHARED_DATA = resolve(REPO_ROOT, "../shared/data");

/** Whether the shared recordings are available; tests that need them skip with a message otherwise. */
export const HAS_SHARED_DATA = existsSync(join(SHARED_DATA, "mustang-2014.bag"));

/** Path of a shared recording. */
export function sharedRecording(name: string): string {
  return join(SHARED_DATA, name);
}

/** The embedded demo recording. */
export const HUSKY_BAG = join(REPO_ROOT, "samples/husky-2015.bag");
