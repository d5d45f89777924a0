/**
 * An error meant for the user of the `lockstep` command: its message is printed as is (no stack
 * trace) and the process exits with `exitCode` (2 = usage or config error, 1 = anything else).
 */
export class CliError extends Error {
  public readonly exitCode: 1 | 2;

  public constructor(message: string, exitCode: 1 | 2 = 2) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}
