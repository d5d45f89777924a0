import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";

import { policyDescriptor } from "../filters/policies/descriptors";
import { parseDuration, previewValue, StampRangeError } from "../time";
import { ConfigError, type ConfigIssue } from "./ConfigError";
import { closestName } from "./closestName";
import { POLICY_TYPES, type PipelineConfig, type PolicyConfig } from "./config";
import { pipelineSchema } from "./configSchema";

/** The publish namespace when the config gives none. */
export const DEFAULT_PUBLISH_NAMESPACE = "/lockstep";

/**
 * Validates a pipeline config (DESIGN §3.2) and returns it with durations converted to exact
 * integer nanoseconds. `json` is the already-parsed JSON value.
 *
 * Rejects, with a `ConfigError` listing every problem (the first `MAX_CONFIG_ISSUES`, then a
 * count) with its JSON path and a fix hint: nesting deeper than `MAX_CONFIG_DEPTH`, an object
 * with more than `MAX_CONFIG_KEYS` keys, unknown
 * keys (including parameters that the chosen policy type does not have), wrong types, values out of
 * range, malformed or inexact durations ("1.0000000001s"), per-slot arrays whose length is not the
 * number of inputs, a `trigger` that is not a slot, `slots` that disagree with `inputs`.
 *
 * Never fills in policy defaults: an absent parameter stays absent so the policy class applies
 * its library's own default. `publish` is always present, with its defaults.
 *
 * ```ts
 * parseConfig({ slots: 2, policy: { type: "fkie/approximate-time", maxTimespan: "50ms" } })
 *   .policy; // { type: "fkie/approximate-time", maxTimespan: 50000000 }
 * ```
 */
export function parseConfig(json: unknown): PipelineConfig {
  checkNesting(json);
  const validate = getValidator();
  if (!validate(json)) {
    throw new ConfigError(schemaIssues(validate.errors ?? []));
  }
  const raw = json as RawConfig;
  const issues: ConfigIssue[] = [];
  const slots = raw.inputs?.length ?? raw.slots ?? 0;
  if (raw.inputs != undefined && raw.slots != undefined && raw.slots !== raw.inputs.length) {
    issues.push({
      path: "/slots",
      message: `${raw.slots} does not match the ${raw.inputs.length} inputs; remove "slots" or set it to ${raw.inputs.length}`,
    });
  }
  const policy = convertPolicy(raw.policy, slots, issues);
  raw.transforms?.forEach((t, i) => {
    if (t.parent === t.child) {
      issues.push({
        path: `/transforms/${i}/child`,
        message: `"${t.child}" is also the parent; a transform needs two different frames`,
      });
    }
    if (t.quaternion?.every((q) => q === 0) === true) {
      issues.push({
        path: `/transforms/${i}/quaternion`,
        message: "is all zeros, which is not a rotation; use [0, 0, 0, 1] for none",
      });
    }
  });
  if (issues.length > 0) {
    throw new ConfigError(issues);
  }
  const config: Mutable<PipelineConfig> = {
    slots,
    policy,
    publish: {
      enabled: raw.publish?.enabled ?? false,
      namespace: raw.publish?.namespace ?? DEFAULT_PUBLISH_NAMESPACE,
    },
  };
  if (raw.inputs != undefined) {
    config.inputs = raw.inputs.map((input) => ({ ...input }));
  }
  if (raw.buffer != undefined) {
    config.buffer = { ...raw.buffer };
  }
  if (raw.transforms != undefined) {
    config.transforms = raw.transforms.map((t) => ({ ...t }));
  }
  if (raw.fusion != undefined) {
    config.fusion = raw.fusion;
  }
  return config;
}

/**
 * Parses config text (a file's content or inline JSON) and validates it with `parseConfig`.
 * Throws ConfigError at path "/" with the line and column when the text is not JSON.
 */
export function parseConfigText(text: string): PipelineConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    const pos = /position (\d+)/.exec(detail);
    let where = "";
    if (pos) {
      const before = text.slice(0, Number(pos[1]));
      const line = before.split("\n").length;
      const column = before.length - before.lastIndexOf("\n");
      where = ` (line ${line}, column ${column})`;
    }
    throw new ConfigError([{ path: "/", message: `not valid JSON${where}: ${detail}` }]);
  }
  return parseConfig(json);
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Deepest nesting of arrays and objects a config may have (real ones have fewer than 10 levels). */
export const MAX_CONFIG_DEPTH = 64;
/** Most keys one object of a config may have (the largest real one, fusion's sensors, has tens). */
export const MAX_CONFIG_KEYS = 1000;
/** Problems listed one by one in a ConfigError; the rest are counted in one last issue. */
export const MAX_CONFIG_ISSUES = 100;

/**
 * Throws ConfigError at the path of the first value nested deeper than MAX_CONFIG_DEPTH or the
 * first object with more than MAX_CONFIG_KEYS keys. Walks
 * the value without recursion, once, so a hostile config (a million levels) costs linear time
 * and no stack, and everything after it (schema validation, fusion) only sees shallow values.
 */
function checkNesting(json: unknown): void {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value: json, depth: 0, path: "" }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value !== "object" || value == undefined) {
      continue;
    }
    if (depth >= MAX_CONFIG_DEPTH) {
      throw new ConfigError([
        {
          path: path === "" ? "/" : path,
          message: `is nested more than ${MAX_CONFIG_DEPTH} levels deep; a pipeline config is a few levels of objects and arrays, so this is not one`,
        },
      ]);
    }
    const entries = Object.entries(value);
    if (!Array.isArray(value) && entries.length > MAX_CONFIG_KEYS) {
      throw new ConfigError([
        {
          path: path === "" ? "/" : path,
          message: `has ${entries.length} keys, more than the ${MAX_CONFIG_KEYS} any part of a pipeline config has; this is not a pipeline config (${show(value)})`,
        },
      ]);
    }
    for (const [key, child] of entries) {
      if (typeof child === "object" && child != undefined) {
        stack.push({ value: child, depth: depth + 1, path: `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}` });
      }
    }
  }
}

interface RawConfig {
  slots?: number;
  inputs?: { topic: string; stamp?: string }[];
  policy: Record<string, unknown> & { type: string };
  buffer?: Record<string, unknown>;
  transforms?: {
    parent: string;
    child: string;
    translation: [number, number, number];
    rpy?: [number, number, number];
    quaternion?: [number, number, number, number];
  }[];
  fusion?: Record<string, unknown>;
  publish?: { enabled?: boolean; namespace?: string };
}

/**
 * Converts the parameters of a schema-valid policy: durations to nanoseconds, per-slot lists
 * checked against the slot count, a trigger checked against the slots. How is decided by each
 * parameter's kind in the policy's descriptor.
 */
function convertPolicy(
  raw: Record<string, unknown> & { type: string },
  slots: number,
  issues: ConfigIssue[],
): PolicyConfig {
  const parameters = policyDescriptor(raw.type)?.parameters ?? [];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const path = `/policy/${key}`;
    const kind = parameters.find((p) => p.name === key)?.kind;
    if (kind === "duration" || kind === "nullableDuration") {
      out[key] = value == undefined ? null : duration(value, path, "unsigned", issues);
    } else if (kind === "perSlotDuration" || kind === "perSlotSignedDuration") {
      const list = value as unknown[];
      checkPerSlot(list, path, slots, issues);
      out[key] = list.map((v, i) =>
        duration(
          v,
          `${path}/${i}`,
          kind === "perSlotSignedDuration" ? "signed" : "unsigned",
          issues,
        ),
      );
    } else if (kind === "group") {
      if (Array.isArray(value)) {
        checkPerSlot(value, path, slots, issues);
        out[key] = value.map((v) => ({ ...(v as object) }));
      } else {
        out[key] = { ...(value as object) };
      }
    } else if (kind === "trigger" && typeof value === "number" && value >= slots) {
      issues.push({
        path,
        message: `slot ${value} does not exist (the policy has ${slots} slots: 0..${slots - 1}); use a slot index or "any"`,
      });
    } else {
      out[key] = value;
    }
  }
  return out as unknown as PolicyConfig;
}

function checkPerSlot(list: unknown[], path: string, slots: number, issues: ConfigIssue[]): void {
  if (list.length !== slots) {
    issues.push({
      path,
      message: `has ${list.length} entries but the pipeline has ${slots} inputs; give one value per input, in slot order`,
    });
  }
}

function duration(
  value: unknown,
  path: string,
  sign: "signed" | "unsigned",
  issues: ConfigIssue[],
): number {
  try {
    return parseDuration(value, path, { allowNegative: sign === "signed" });
  } catch (err) {
    if (!(err instanceof StampRangeError)) {
      throw err;
    }
    issues.push({ path, message: err.message.replace(`${path}: `, "") });
    return NaN;
  }
}

let compiled: ValidateFunction | undefined;

function getValidator(): ValidateFunction {
  compiled ??= new Ajv({
    allErrors: true,
    verbose: true,
    discriminator: true,
    allowUnionTypes: true,
    strict: true,
    strictRequired: false,
  }).compile(pipelineSchema());
  return compiled;
}

const DURATION_HINT =
  'use a number with a unit ("250ns", "40us", "33ms", "1.5s") or integer nanoseconds';

/** The pattern a `pattern` error's field must match (one that matches nothing if unreadable). */
function fieldPattern(err: ErrorObject): RegExp {
  try {
    return new RegExp(String(err.params.pattern), "u");
  } catch {
    return /(?!)/;
  }
}

/** Turns ajv's errors into one readable issue per offending field. */
function schemaIssues(errors: readonly ErrorObject[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  // Each error is described in time independent of the others (no scan of `errors` per error, no
  // serialization of a whole object per error), so 100,000 unknown keys cost linear time.
  const missingTypes = new Set(
    errors.filter((e) => e.keyword === "required" && e.params.missingProperty === "type").map((e) => e.instancePath),
  );
  let unlisted = 0;
  for (const err of errors) {
    const issue = describe(err, errors.length, missingTypes);
    if (issue && !seen.has(`${issue.path}\n${issue.message}`)) {
      seen.add(`${issue.path}\n${issue.message}`);
      if (issues.length < MAX_CONFIG_ISSUES) {
        issues.push(issue);
      } else {
        unlisted += 1;
      }
    }
  }
  if (unlisted > 0) {
    issues.push({ path: "/", message: `… and ${unlisted} more problems like these (only the first ${MAX_CONFIG_ISSUES} are listed)` });
  }
  return issues.length > 0 ? issues : [{ path: "/", message: "is not a valid pipeline config" }];
}

function describe(err: ErrorObject, errorCount: number, missingTypes: ReadonlySet<string>): ConfigIssue | undefined {
  const base = err.instancePath === "" ? "" : err.instancePath;
  const at = base === "" ? "/" : base;
  const value = show(err.data);
  const isDuration = /\/definitions\/(duration|durationOrNull|signedDuration)\//.test(
    err.schemaPath,
  );
  const params = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case "additionalProperties": {
      const key = String(params.additionalProperty);
      const allowed = Object.keys(
        (err.parentSchema as { properties?: object } | undefined)?.properties ?? {},
      );
      const guess = closestName(key, allowed);
      const hint = guess != undefined ? `did you mean "${guess}"? ` : "";
      if (base === "/policy") {
        const type = String((err.data as { type?: unknown }).type);
        const names = allowed.filter((k) => k !== "type");
        return {
          path: `${base}/${key}`,
          message:
            `"${type}" has no parameter "${key}"; ${hint}` +
            (names.length > 0
              ? `its parameters are ${names.join(", ")}`
              : "it takes no parameters"),
        };
      }
      return {
        path: `${base}/${key}`,
        message: `unknown key "${key}"; ${hint}allowed here: ${allowed.join(", ")}`,
      };
    }
    case "required": {
      const key = String(params.missingProperty);
      if (err.schemaPath.startsWith("#/anyOf/")) {
        return undefined; // reported once by the anyOf error
      }
      if (base === "/policy" && key === "type") {
        return {
          path: "/policy/type",
          message: `is missing; use one of ${POLICY_TYPES.join(", ")}`,
        };
      }
      return { path: `${base}/${key}`, message: "is required but missing" };
    }
    case "anyOf":
      if (err.schemaPath === "#/anyOf") {
        return {
          path: "/inputs",
          message:
            'is missing; give "inputs" (the topics, in slot order) or "slots" (the number of inputs, for replay)',
        };
      }
      return { path: at, message: err.message ?? "is invalid" };
    case "discriminator": {
      if (params.error === "tag") {
        // Either missing (reported by "required") or not a string.
        const missing = missingTypes.has(base);
        return missing
          ? undefined
          : {
              path: `${base}/type`,
              message: `must be a string; use one of ${POLICY_TYPES.join(", ")}`,
            };
      }
      const type = show(params.tagValue);
      const guess = closestName(String(params.tagValue), POLICY_TYPES);
      return {
        path: `${base}/type`,
        message:
          `unknown policy ${type}; ` +
          (guess != undefined ? `did you mean "${guess}"? ` : "") +
          `use one of ${POLICY_TYPES.join(", ")}`,
      };
    }
    case "type":
      if (isDuration) {
        return { path: at, message: `${value} is not a duration; ${DURATION_HINT}` };
      }
      return {
        path: at,
        message: `${value} is ${kindOf(err.data)}; expected ${String(params.type).replace(",", " or ")}`,
      };
    case "pattern":
      if (isDuration) {
        const written = String(err.data);
        const squeezed = written.replace(/\s+/g, "");
        // The hint is checked against this field's own pattern: some durations may be negative,
        // others not, and a suggestion the field rejects again would send the user in a circle.
        if (squeezed !== written && fieldPattern(err).test(squeezed)) {
          return { path: at, message: `${value} is not a duration; use "${squeezed}"` };
        }
        if (squeezed.startsWith("-") && fieldPattern(err).test(squeezed.slice(1))) {
          return { path: at, message: `${value} is negative; a duration here must be >= 0` };
        }
        return { path: at, message: `${value} is not a duration; ${DURATION_HINT}` };
      }
      if (base.endsWith("/trigger")) {
        return { path: at, message: `${value} is not a slot; use a slot index or "any"` };
      }
      if (base === "/publish/namespace") {
        return {
          path: at,
          message: `${value} is not a ROS namespace; use an absolute name such as "/lockstep"`,
        };
      }
      return { path: at, message: `${value} has the wrong form (${err.message ?? "pattern"})` };
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      if (isDuration && err.keyword === "minimum") {
        return { path: at, message: `${value} is negative; a duration here must be >= 0` };
      }
      return {
        path: at,
        message: `${value} is out of range; it must be ${String(params.comparison)} ${String(params.limit)}`,
      };
    case "minItems":
    case "maxItems": {
      const schemaItems = err.parentSchema as { minItems?: number; maxItems?: number } | undefined;
      const n = (err.data as unknown[]).length;
      if (schemaItems?.minItems != undefined && schemaItems.minItems === schemaItems.maxItems) {
        return {
          path: at,
          message: `has ${n} entries; it needs exactly ${schemaItems.minItems} numbers`,
        };
      }
      return {
        path: at,
        message: `has ${n} entries; it needs ${err.message?.replace("must NOT have ", "no ") ?? ""}`,
      };
    }
    case "minLength":
      return { path: at, message: "must not be empty" };
    case "enum":
      return {
        path: at,
        message: `${value} is not one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`,
      };
    case "not":
      if (/\/transforms\/\d+$/.test(base)) {
        return { path: at, message: 'gives both "rpy" and "quaternion"; give only one rotation' };
      }
      return { path: at, message: err.message ?? "is invalid" };
    case "oneOf":
      // With the discriminator, the branch's own errors say what is wrong.
      return errorCount > 1 ? undefined : { path: at, message: "does not match any allowed form" };
    default:
      return { path: at, message: `${value} ${err.message ?? "is invalid"}` };
  }
}

/** `show`'s answers for objects: the errors of one object's many keys share its description. */
const shown = new WeakMap<object, string>();

/**
 * A value as JSON, clipped to 60 characters (`previewValue`), each object described once: one
 * config can quote the same large object in many issues.
 */
function show(value: unknown): string {
  if (typeof value === "object" && value != undefined) {
    let text = shown.get(value);
    if (text == undefined) {
      text = previewValue(value);
      shown.set(value, text);
    }
    return text;
  }
  return previewValue(value);
}

function kindOf(value: unknown): string {
  if (value == undefined) {
    return "null";
  }
  if (Array.isArray(value)) {
    return "an array";
  }
  if (typeof value === "number" && !Number.isInteger(value)) {
    return "not an integer";
  }
  return `a ${typeof value}`;
}
