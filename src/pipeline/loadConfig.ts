import { ConfigError } from "./ConfigError";
import type { PipelineConfig } from "./config";
import { parseConfigText } from "./parseConfig";

/**
 * Thrown by `loadConfig`: the config could not be read or is invalid. `message` is ready to show
 * (it names the file or "--config" and lists every offending field with its JSON path).
 */
export class ConfigLoadError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = "ConfigLoadError";
  }
}

/**
 * Reads a pipeline config given as a command-line argument: inline JSON (text starting with
 * "{") or a file path, read with `readText` (the caller's I/O, so this runs anywhere). Validates
 * it with `parseConfigText`.
 *
 * Throws ConfigLoadError naming the file (with the reader's error code, e.g. ENOENT) or every
 * offending field.
 */
export function loadConfig(arg: string, readText: (path: string) => string): PipelineConfig {
  const inline = arg.trimStart().startsWith("{");
  let text = arg;
  if (!inline) {
    try {
      text = readText(arg);
    } catch (err) {
      const code = (err as { code?: string }).code ?? String(err);
      throw new ConfigLoadError(
        `cannot read config file "${arg}" (${code}); pass a JSON file or inline JSON`,
      );
    }
  }
  try {
    return parseConfigText(text);
  } catch (err) {
    if (err instanceof ConfigError) {
      const where = inline ? "--config" : `config file "${arg}"`;
      const lines = err.issues.map((i) => `  ${i.path}: ${i.message}`).join("\n");
      throw new ConfigLoadError(`invalid ${where}:\n${lines}`);
    }
    throw err;
  }
}
