import type { Command } from "commander";

import { CliError } from "../CliError";

/** Registers `lockstep analyze` (being built: see the open issues). */
export function registerAnalyze(program: Command): void {
  program
    .command("analyze")
    .description("analyze (not available yet)")
    .allowUnknownOption()
    .action(() => {
      throw new CliError("'analyze' is not available in this build yet", 1);
    });
}
