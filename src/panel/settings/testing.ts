// Test support for the settings tests (not part of the panel).
import type { Topic } from "@foxglove/extension";

import { ConfigError, parseConfig, type ConfigIssue } from "../../pipeline";

/** The issues `parseConfig` reports for `config` (empty when it is valid); other errors propagate. */
export function issuesOf(config: unknown): ConfigIssue[] {
  try {
    parseConfig(config);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) {
      return [...err.issues];
    }
    throw err;
  }
}

/** A data-source topic of `schemaName` (the deprecated `datatype`, still required, the same). */
export function topic(name: string, schemaName: string): Topic {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- `datatype` is still a required field of Topic
  return { name, schemaName, datatype: schemaName };
}
