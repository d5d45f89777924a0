/** One problem found in a pipeline config. */
export interface ConfigIssue {
  /** JSON Pointer of the offending field ("/policy/maxTimespan"; "/" for the document itself). */
  readonly path: string;
  /** What is wrong and how to fix it, without the path. */
  readonly message: string;
}

/**
 * Thrown by `parseConfig` when a pipeline config is invalid. `issues` lists every problem found
 * (at least one), each with the JSON path of the field; `message` has one line per issue,
 * `"<path>: <message>"`, so it can be shown to the user as is.
 */
export class ConfigError extends Error {
  public readonly issues: readonly ConfigIssue[];

  public constructor(issues: readonly ConfigIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join("\n"));
    this.name = "ConfigError";
    this.issues = issues;
  }
}
