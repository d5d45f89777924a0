import { readFileSync } from "node:fs";

import { ConfigLoadError, loadConfig, type PipelineConfig } from "../pipeline";
import { CliError } from "./CliError";

/**
 * The `--config <file.json | inline JSON>` argument of a command, read from disk and validated
 * (`loadConfig`); `fuseYaml` is the `--fusion <fuse.yaml>` argument, which replaces the config's
 * fusion section. Warnings about fuse parameters Lockstep ignores go to `onWarning` (default:
 * {@link printConfigWarning}). Throws CliError(2) naming the file and every offending field.
 */
export function configArgument(
  arg: string,
  fuseYaml?: string,
  onWarning: (message: string) => void = printConfigWarning,
): PipelineConfig {
  try {
    return loadConfig(arg, (path) => readFileSync(path, "utf8"), { fuseYaml, onWarning });
  } catch (err) {
    if (err instanceof ConfigLoadError) {
      throw new CliError(err.message, 2);
    }
    throw err;
  }
}

/** Prints a config warning to stderr, one line. */
export function printConfigWarning(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}
