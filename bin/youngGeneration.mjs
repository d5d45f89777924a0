// The young generation (V8's semi-space) the CLI's recording commands run with, and the decision
// to start Node again to get it. Plain JavaScript: it runs before the bundle or tsx is loaded.
//
// Why: the fusion preview keeps a window of states, constraints and their solver blocks that lives
// a few young-generation collections. With Node's default semi-space (16 MB) most of that window
// is copied into the old generation and collected again there; with 64 MB it dies young. Measured
// on the husky preset (`fixed-lag/runner`, three alternated rounds, 2026-12-04): 193.9× real time
// and 147k CPU ns per message with the default, 216.3× and 124k with 64 MB (32 MB: 196.5×); jackal
// 3D 70.7× → 78.4×. The size can only be set when Node starts (NODE_OPTIONS or a flag), so the
// commands that read recordings start a second Node process with it; the others (help, info,
// serve) start as they are. The browser panel's worker cannot take V8 flags and runs with the
// browser's default.

/** The semi-space size the recording commands get, MB (`--max-semi-space-size`). */
export const SEMI_SPACE_MB = 64;

/** The commands that read recordings (and may run the fusion preview) in this process. */
export const RECORDING_COMMANDS = new Set(["analyze", "bench", "demo", "doctor", "replay"]);

/** The environment variable that overrides SEMI_SPACE_MB; 0 keeps Node's default (no restart). */
export const SEMI_SPACE_VARIABLE = "LOCKSTEP_SEMI_SPACE_MB";

const FLAG = "--max-semi-space-size";

/**
 * The arguments to start Node again with (the flag, then Node's own arguments, the script and the
 * CLI arguments), or undefined to run in this process: when the command is not one of
 * RECORDING_COMMANDS, when Node already has a semi-space size (a flag or NODE_OPTIONS: the
 * user's choice, and the restarted process itself), or when the size is 0. Throws RangeError
 * naming the variable when `LOCKSTEP_SEMI_SPACE_MB` is not a whole number of MB from 0 to 4096.
 *
 * @param argv process.argv (node, script, CLI arguments)
 * @param execArgv process.execArgv
 * @param env process.env
 */
export function restartArguments(argv, execArgv, env) {
  const command = argv.slice(2).find((a) => !a.startsWith("-"));
  if (command === undefined || !RECORDING_COMMANDS.has(command)) {
    return undefined;
  }
  const nodeOptions = (env.NODE_OPTIONS ?? "").split(/\s+/);
  if ([...execArgv, ...nodeOptions].some((a) => a === FLAG || a.startsWith(`${FLAG}=`))) {
    return undefined;
  }
  const size = semiSpaceMB(env[SEMI_SPACE_VARIABLE]);
  if (size === 0) {
    return undefined;
  }
  return [`${FLAG}=${size}`, ...execArgv, ...argv.slice(1)];
}

function semiSpaceMB(value) {
  if (value === undefined || value === "") {
    return SEMI_SPACE_MB;
  }
  const mb = Number(value);
  if (!/^\d+$/.test(value) || mb > 4096) {
    throw new RangeError(
      `${SEMI_SPACE_VARIABLE}=${value} is not a size in MB from 0 to 4096 (0 keeps Node's default young generation; unset it for ${SEMI_SPACE_MB})`,
    );
  }
  return mb;
}
