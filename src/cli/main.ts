import { Command, CommanderError } from "commander";

import { CliError } from "./CliError";
import { registerAnalyze } from "./commands/analyze";
import { registerBench } from "./commands/bench";
import { registerDemo } from "./commands/demo";
import { registerDoctor } from "./commands/doctor";
import { registerInfo } from "./commands/info";
import { registerReplay } from "./commands/replay";
import { registerServe } from "./commands/serve";
import { terminalText } from "./logText";

/**
 * Runs the `lockstep` command with the given arguments (without `node` and the script path).
 * Resolves to the process exit code: 0 success, 2 usage or config error, 1 anything else.
 * Never throws: every error is printed to stderr as one readable message, without a stack trace.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command("lockstep")
    .description("ROS-grade message synchronization and fuse previews, headless")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  registerReplay(program);
  registerAnalyze(program);
  registerBench(program);
  registerDemo(program);
  registerInfo(program);
  registerServe(program);
  registerDoctor(program);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander already printed its message (help or usage error)
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof CliError) {
      process.stderr.write(`lockstep: ${terminalText(err.message)}\n`);
      return err.exitCode;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`lockstep: ${terminalText(message)}\n`);
    return 1;
  }
}
