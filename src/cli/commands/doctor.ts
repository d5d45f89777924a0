import type { Command } from "commander";

import { describeDiagnosis, type Diagnosis } from "../../pipeline/diagnosis";
import { CliError } from "../CliError";
import { runAnalyze } from "./analyze";
import { configArgument } from "../configArgument";

/**
 * Registers `lockstep doctor <recording> --config <file> [--json]`: runs the pipeline over the
 * recording, then says why sets are missing (causes ranked by the sets each costs, with their
 * evidence) and what to change (suggestions found by re-running the policy on the recording's
 * own stamps, each with the exact number of sets it gives). `--json` prints the same as the
 * `"diagnosis"` object of analyze's summary.json. Exit codes as `analyze`.
 */
export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description("why are synchronized sets missing, what to change, and how many sets the change gives")
    .argument("<file>", "a ROS 1 bag or an MCAP file")
    .requiredOption("--config <file|json>", "pipeline config (JSON file or inline JSON)")
    .option("--json", "print the diagnosis as JSON")
    .action(async (file: string, opts: { config: string; json?: boolean }) => {
      const config = configArgument(opts.config);
      const result = await runAnalyze({ file, config });
      const diagnosis = result.summary.diagnosis as Diagnosis | undefined;
      if (diagnosis == undefined) {
        throw new CliError(`${file}: no input message with a header stamp on ${(config.inputs ?? []).map((i) => i.topic).join(", ")}; nothing to diagnose`, 1);
      }
      if (opts.json === true) {
        process.stdout.write(`${JSON.stringify(diagnosis)}\n`);
      } else {
        process.stdout.write(`${describeDiagnosis(diagnosis).join("\n")}\n`);
      }
      if (result.error) {
        throw new CliError(`${file} ${result.error.message} (the diagnosis covers the messages before it)`, 1);
      }
    });
}
