import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The checkout's root (the nearest folder above this module holding package.json): the same
 * whether the benchmarks run from bench/ through tsx or from a bundle chunk under build/.
 */
export const REPO_ROOT: string = (() => {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let d = start; ; d = dirname(d)) {
    if (existsSync(join(d, "package.json"))) {
      return d;
    }
    if (dirname(d) === d) {
      return join(start, "..");
    }
  }
})();
