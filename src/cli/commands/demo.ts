import type { Command } from "commander";

import { CliError } from "../CliError";

/** Registers `lockstep demo` (being built: see the open issues). */
export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description("demo (not available yet)")
    .allowUnknownOption()
    .action(() => {
      throw new CliError("'demo' is not available in this build yet", 1);
    });
}
