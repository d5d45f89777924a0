// Types of youngGeneration.mjs (plain JavaScript so that bin/lockstep.js runs it before any build).

/** The semi-space size the recording commands get, MB (`--max-semi-space-size`). */
export const SEMI_SPACE_MB: number;
/** The commands that read recordings (and may run the fusion preview) in this process. */
export const RECORDING_COMMANDS: ReadonlySet<string>;
/** The environment variable that overrides SEMI_SPACE_MB; 0 keeps Node's default (no restart). */
export const SEMI_SPACE_VARIABLE: string;
/** See youngGeneration.mjs: the arguments to start Node again with, or undefined to run here. */
export function restartArguments(
  argv: readonly string[],
  execArgv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string[] | undefined;
