import type { Command } from "commander";

import { CliError } from "../CliError";

/** Registers `lockstep bench` (being built: see the open issues). */
export function registerBench(program: Command): void {
  program
    .command("bench")
    .description("bench (not available yet)")
    .allowUnknownOption()
    .action(() => {
      throw new CliError("'bench' is not available in this build yet", 1);
    });
}
