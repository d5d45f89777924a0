import { spawn } from "node:child_process";

import { CliError } from "./CliError";
import { configArgument, printConfigWarning } from "./configArgument";
import type { PipelineConfig } from "../pipeline";

/**
 * The young generation (V8's semi-space, MB) the fusion preview runs with in the CLI.
 *
 * Why: the fusion preview keeps a window of states, constraints and solver blocks alive for a few
 * young-generation collections. With Node's default semi-space (16 MB) most of that window is
 * copied into the old generation and collected there again; with 64 MB it dies young. Measured on
 * the husky preset (`fixed-lag/runner`, three alternated rounds, 2026-12-04): 193.9× real time and
 * 147k CPU ns per message with the default, 216.3× and 124k with 64 MB (32 MB: 196.5×); jackal 3D
 * 70.7× → 78.4×. The synchronizer alone gains nothing and its W3 pipelines lose 6–19 %, and the
 * peak memory of `analyze` on husky grows by about 110 MB, so only runs with a fusion section get
 * it. The size can only be set when Node starts, so such a run starts a second Node. The browser
 * panel's worker cannot take V8 flags and runs with the browser's default.
 */
export const FUSION_SEMI_SPACE_MB = 64;

/** The environment variable that overrides FUSION_SEMI_SPACE_MB; 0 keeps Node's default. */
export const SEMI_SPACE_VARIABLE = "LOCKSTEP_SEMI_SPACE_MB";

const FLAG = "--max-semi-space-size";

/**
 * Node options that open an inspector (`--inspect`, `--inspect-brk`, `--inspect-wait`, with or
 * without `=[host:]port`). A Node started with one runs fusion in itself: the user debugs the
 * process they started, and a second Node given the same option would try to bind the same port.
 */
const INSPECTOR = /^--inspect(-brk|-wait)?(=|$)/;

/**
 * The Node arguments that give a fusion run its young generation (`--max-semi-space-size=N`), or
 * an empty list when Node already has a semi-space size (a flag or NODE_OPTIONS: the user's
 * choice, and what ends the restart), opens an inspector (see INSPECTOR), or the size is 0.
 * Throws CliError(2) naming the variable when `LOCKSTEP_SEMI_SPACE_MB` is not a whole number of
 * MB from 0 to 4096.
 */
export function fusionNodeArguments(
  execArgv: readonly string[] = process.execArgv,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const nodeOptions = (env.NODE_OPTIONS ?? "").split(/\s+/);
  if ([...execArgv, ...nodeOptions].some((a) => a === FLAG || a.startsWith(`${FLAG}=`) || INSPECTOR.test(a))) {
    return [];
  }
  const value = env[SEMI_SPACE_VARIABLE];
  let size = FUSION_SEMI_SPACE_MB;
  if (value != undefined && value !== "") {
    size = Number(value);
    if (!/^\d+$/.test(value) || size > 4096) {
      throw new CliError(
        `${SEMI_SPACE_VARIABLE}=${value} is not a size in MB from 0 to 4096 (0 keeps Node's default young generation; unset it for ${FUSION_SEMI_SPACE_MB})`,
        2,
      );
    }
  }
  return size === 0 ? [] : [`${FLAG}=${size}`];
}

/**
 * Runs this command again in a second Node with the fusion preview's young generation, when the
 * run has a fusion section and this Node lacks that generation (see {@link fusionNodeArguments}): same arguments and standard
 * streams, SIGINT/SIGTERM/SIGHUP passed on. Resolves with the second run's exit code, or undefined
 * when this process should run the command itself. When the second run ends by a signal, this
 * process ends by the same signal. Throws CliError(2) for a bad `LOCKSTEP_SEMI_SPACE_MB`.
 */
async function rerunForFusion(run: { readonly fusion: boolean }): Promise<number | undefined> {
  const flags = run.fusion ? fusionNodeArguments() : [];
  const script = process.argv[1];
  if (flags.length === 0 || script == undefined) {
    return undefined;
  }
  const child = spawn(process.execPath, [...flags, ...process.execArgv, script, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  for (const signal of signals) {
    process.on(signal, forward);
  }
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on("error", (err) => {
      reject(
        new CliError(
          `could not start Node again with a larger young generation for the fusion preview (${err.message}); set ${SEMI_SPACE_VARIABLE}=0 to run without`,
          1,
        ),
      );
    });
    child.on("exit", (c, s) => {
      resolve([c, s]);
    });
  }).finally(() => {
    for (const s of signals) {
      process.off(s, forward);
    }
  });
  if (signal != undefined) {
    process.kill(process.pid, signal);
  }
  return code ?? 1;
}

/**
 * {@link rerunForFusion} with the second run's exit code made this process's (`process.exitCode`):
 * true when the command ran there (the caller returns), false when it is to run here.
 */
export async function ranInFusionNode(run: { readonly fusion: boolean }): Promise<boolean> {
  const code = await rerunForFusion(run);
  if (code == undefined) {
    return false;
  }
  process.exitCode = code;
  return true;
}

/**
 * The command's `--config` (and `--fusion`) argument read once ({@link configArgument}), or
 * undefined when its fusion section made the command run in a second Node
 * ({@link ranInFusionNode}; the caller returns). The config's warnings are printed by the Node
 * that runs the command, once. Throws CliError(2) for a bad config, before any second Node.
 */
export async function configInFusionNode(arg: string, fuseYaml?: string): Promise<PipelineConfig | undefined> {
  const warnings: string[] = [];
  const config = configArgument(arg, fuseYaml, (message) => warnings.push(message));
  if (await ranInFusionNode({ fusion: config.fusion != undefined })) {
    return undefined;
  }
  warnings.forEach(printConfigWarning);
  return config;
}
