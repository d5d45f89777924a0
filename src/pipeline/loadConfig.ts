import { ConfigError } from "./ConfigError";
import type { PipelineConfig } from "./config";
import { parseConfig, parseConfigText } from "./parseConfig";
import { FuseYamlError, fusionFromFuseYaml } from "../fusion/config";
import { fileSystemReason, previewValue } from "../time";

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

/** How `loadConfig` treats what the config file alone does not say. */
export interface LoadConfigOptions {
  /**
   * A fuse YAML parameter file that replaces the config's `fusion` section (the CLI's
   * `--fusion`), read with the same `readText`.
   */
  readonly fuseYaml?: string;
  /**
   * Receives each warning: a fuse YAML key Lockstep ignores (naming the file and the key path), an
   * input that repeats another's topic (naming both).
   */
  readonly onWarning?: (message: string) => void;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v != undefined && !Array.isArray(v);
}

/** `relative` as seen from the folder of `file` (absolute paths as they are); no Node path module, so this runs anywhere. */
function besideFile(file: string | undefined, relative: string): string {
  if (file == undefined || /^([/\\]|[A-Za-z]:[/\\])/.test(relative)) {
    return relative;
  }
  const cut = Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\"));
  return cut < 0 ? relative : `${file.slice(0, cut + 1)}${relative}`;
}

function readOrThrow(path: string, readText: (path: string) => string, what: string, hint: string): string {
  try {
    return readText(path);
  } catch (err) {
    throw new ConfigLoadError(`cannot read ${what} "${path}" (${fileSystemReason(err)}); ${hint}`);
  }
}

/**
 * The `fusion` section a fuse YAML file gives, with the JSON-only keys of `overrides` (the rest
 * of a `{"fuseYaml": …}` section: `uuidRecipe`, `optimizer` keys) applied over it.
 */
function fusionFromFile(
  path: string,
  overrides: Obj,
  readText: (path: string) => string,
  options: LoadConfigOptions,
  where: string,
): Obj {
  for (const key of ["sensors", "motionModels"]) {
    if (key in overrides) {
      throw new ConfigLoadError(`invalid ${where}:\n  /fusion/${key}: give either fusion.fuseYaml or fusion.${key}, not both`);
    }
  }
  const text = readOrThrow(path, readText, "fuse YAML file", "pass a fuse parameter file (.yaml)");
  const optimizerOverride = isObj(overrides.optimizer) ? overrides.optimizer : {};
  try {
    const imported = fusionFromFuseYaml(text, { optimizer: optimizerOverride.type === "batch" ? "batch" : "fixed-lag" });
    for (const w of imported.warnings) {
      options.onWarning?.(`fuse YAML "${path}": ${w.path === "" ? "" : `${w.path}: `}${w.message}`);
    }
    const fusion: Obj = { ...imported.fusion, ...overrides };
    fusion.optimizer = { ...(imported.fusion.optimizer as Obj), ...optimizerOverride };
    return fusion;
  } catch (err) {
    if (err instanceof FuseYamlError) {
      const lines = err.issues.map((i) => `  ${i.path === "" ? "(file)" : i.path}: ${i.message}`).join("\n");
      throw new ConfigLoadError(`invalid fuse YAML file "${path}":\n${lines}`);
    }
    throw err;
  }
}

/**
 * Reads a pipeline config given as a command-line argument: inline JSON (text starting with
 * "{" or "[") or a file path, read with `readText` (the caller's I/O, so this runs anywhere). Validates
 * it with `parseConfigText`.
 *
 * The `fusion` section may come from fuse's own YAML: `options.fuseYaml` (replacing the
 * section), or `"fusion": {"fuseYaml": "<file>", …}` in the config, the file relative to the
 * config file's folder (to the working folder for inline JSON), with `uuidRecipe` and `optimizer`
 * keys beside it applied over what the file gives (`fusionFromFuseYaml`).
 *
 * Throws ConfigLoadError naming the file (with the reader's refusal in words) or every
 * offending field (fuse YAML fields by their key path in that file).
 */
export function loadConfig(arg: string, readText: (path: string) => string, options: LoadConfigOptions = {}): PipelineConfig {
  // "[" too: a JSON array is inline JSON (the wrong shape, said as such), not a file name.
  const inline = /^\s*[[{]/.test(arg);
  const text = inline ? arg : readOrThrow(arg, readText, "config file", "pass a JSON file or inline JSON");
  const where = inline ? "--config" : `config file "${arg}"`;
  try {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return parseConfigText(text); // throws the located JSON error
    }
    if (isObj(json)) {
      if (options.fuseYaml != undefined) {
        json = { ...json, fusion: fusionFromFile(options.fuseYaml, {}, readText, options, where) };
      } else if (isObj(json.fusion) && "fuseYaml" in json.fusion) {
        const { fuseYaml, ...overrides } = json.fusion;
        if (typeof fuseYaml !== "string" || fuseYaml === "") {
          throw new ConfigLoadError(`invalid ${where}:\n  /fusion/fuseYaml: expected the path of a fuse YAML file, got ${previewValue(fuseYaml)}`);
        }
        json = { ...json, fusion: fusionFromFile(besideFile(inline ? undefined : arg, fuseYaml), overrides, readText, options, where) };
      }
    }
    const config = parseConfig(json);
    repeatedInputs(config).forEach((w) => options.onWarning?.(w));
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      const lines = err.issues.map((i) => `  ${i.path}: ${i.message}`).join("\n");
      throw new ConfigLoadError(`invalid ${where}:\n${lines}`);
    }
    throw err;
  }
}

/**
 * One warning per input that repeats an earlier input's topic (with its stamp source: one topic
 * has one, which parseConfig checks): both slots then receive the same message with the same
 * stamp, so every set holds it twice. Not an error: a test of a policy on a one-topic recording
 * does it on purpose.
 */
function repeatedInputs(config: PipelineConfig): string[] {
  const first = new Map<string, number>();
  const warnings: string[] = [];
  config.inputs?.forEach((input, i) => {
    const earlier = first.get(input.topic);
    if (earlier == undefined) {
      first.set(input.topic, i);
      return;
    }
    warnings.push(
      `/inputs/${i}: the same topic as /inputs/${earlier} (${previewValue(input.topic)}): every set would hold one message of it twice; remove one`,
    );
  });
  return warnings;
}
