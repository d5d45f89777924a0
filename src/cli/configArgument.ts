import { readFileSync } from "node:fs";

import { ConfigLoadError, loadConfig, type PipelineConfig } from "../pipeline";
import { CliError } from "./CliError";

/**
 * The `--config <file.json | inline JSON>` argument of a command, read from disk and validated
 * (`loadConfig`); `fuseYaml` is the `--fusion <fuse.yaml>` argument, which replaces the config's
 * fusion section. Warnings about fuse parameters Lockstep ignores go to stderr, one line each.
 * Throws CliError(2) naming the file and every offending field.
 */
export function configArgument(arg: string, fuseYaml?: string): PipelineConfig {
  try {
    return loadConfig(arg, (path) => readFileSync(path, "utf8"), {
      fuseYaml,
      onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
    });
  } catch (err) {
    if (err instanceof ConfigLoadError) {
      throw new CliError(err.message, 2);
    }
    throw err;
  }
}

/**
 * Whether the `--config` (and `--fusion`) arguments give a fusion section, read without printing
 * warnings; false when the config cannot be loaded (the command then reports why through
 * `configArgument`).
 */
export function configHasFusion(arg: string, fuseYaml?: string): boolean {
  try {
    return loadConfig(arg, (path) => readFileSync(path, "utf8"), { fuseYaml }).fusion != undefined;
  } catch {
    return false;
  }
}
