import type { Command } from "commander";

import { CliError } from "./CliError";
import { DEFAULT_MAX_CHUNK_BYTES } from "../recording";

/**
 * Adds `--max-chunk-size <MiB>` to `command`: the largest chunk or record a reader takes into
 * memory (`OpenOptions.maxChunkBytes`). Every command that reads a recording takes it, so the
 * damage line that names a chunk over the limit ("raise the limit with --max-chunk-size") can be
 * followed whichever command printed it.
 */
export function addMaxChunkSizeOption(command: Command): Command {
  return command.option(
    "--max-chunk-size <MiB>",
    `largest chunk or record (a .db3 message row too) to read from the file or decompress, in MiB (default ${DEFAULT_MAX_CHUNK_BYTES / 2 ** 20}); larger ones are reported as damaged`,
  );
}

/**
 * The option's value in bytes (fractions of a MiB allowed), or undefined when it was not given.
 * Throws CliError (exit 2) naming the option and the value when it is not a positive number.
 */
export function maxChunkBytesOf(text: string | undefined): number | undefined {
  if (text == undefined) {
    return undefined;
  }
  const mib = Number(text);
  if (!(mib > 0) || !Number.isFinite(mib)) {
    throw new CliError(`--max-chunk-size: expected a positive number of MiB, got ${JSON.stringify(text)}`, 2);
  }
  return Math.floor(mib * 2 ** 20);
}
