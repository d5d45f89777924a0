import type { Command } from "commander";

import { CliError } from "../CliError";

/** Registers `lockstep serve` (being built: see the open issues). */
export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("serve (not available yet)")
    .allowUnknownOption()
    .action(() => {
      throw new CliError("'serve' is not available in this build yet", 1);
    });
}
