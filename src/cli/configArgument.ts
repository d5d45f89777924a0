import { closeSync, openSync, readSync } from "node:fs";

import { ConfigLoadError, loadConfig, type PipelineConfig } from "../pipeline";
import { CliError } from "./CliError";
import { terminalText } from "./logText";

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
    return loadConfig(arg, readConfigFile, { fuseYaml, onWarning });
  } catch (err) {
    if (err instanceof ConfigLoadError) {
      throw new CliError(err.message, 2);
    }
    throw err;
  }
}

/** Prints a config warning to stderr, one line. */
export function printConfigWarning(message: string): void {
  process.stderr.write(`warning: ${terminalText(message)}\n`);
}

/**
 * The most bytes read of a config or fuse YAML file. Real ones are a few KB; a file's whole text is
 * held while it is parsed, so this bounds the memory whatever path is given (`/dev/zero` too).
 */
export const MAX_CONFIG_FILE_BYTES = 16 * 2 ** 20;

/**
 * A config file's text, read in chunks up to MAX_CONFIG_FILE_BYTES (a pipe, as `--config <(…)`
 * gives, has no size to check beforehand). Throws the reader's error, or one saying the file is
 * too long.
 */
function readConfigFile(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) {
        return Buffer.concat(chunks, total).toString("utf8");
      }
      total += n;
      if (total > MAX_CONFIG_FILE_BYTES) {
        throw new Error(`longer than the ${MAX_CONFIG_FILE_BYTES / 2 ** 20} MiB a config file is read up to; is it the right file?`);
      }
      chunks.push(Buffer.from(buffer.subarray(0, n)));
    }
  } finally {
    closeSync(fd);
  }
}
