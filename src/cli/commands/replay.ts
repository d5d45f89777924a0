import type { Command } from "commander";

import { CliError } from "../CliError";

/** Registers `lockstep replay` (being built: see the open issues). */
export function registerReplay(program: Command): void {
  program
    .command("replay")
    .description("replay (not available yet)")
    .allowUnknownOption()
    .action(() => {
      throw new CliError("'replay' is not available in this build yet", 1);
    });
}
