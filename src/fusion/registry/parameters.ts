import { parseDuration, previewValue } from "../../time";
import type { LossConfig } from "../core";

/** How a plugin parameter is written in JSON and checked. */
export type ParameterKind =
  | { readonly kind: "dimensions"; readonly allowed: readonly string[] }
  | { readonly kind: "bool" }
  | { readonly kind: "number"; readonly min?: number; readonly exclusiveMin?: boolean }
  | { readonly kind: "integer"; readonly min?: number }
  | { readonly kind: "string" }
  | { readonly kind: "enum"; readonly values: readonly string[] }
  | { readonly kind: "duration" }
  | { readonly kind: "vector"; readonly length: number; readonly min?: number; readonly exclusiveMin?: boolean }
  | { readonly kind: "loss" }
  | { readonly kind: "uuid" };

/**
 * One parameter of a fuse plugin: its camelCase name (fuse's YAML name is `fuseName(name)`), how
 * it is checked, its default (what fuse uses when it is absent; undefined = none), its unit and a
 * line of help. The config validation, the config schema, the panel's fields and the docs read
 * these, so a parameter is described here once.
 */
export interface ParameterSpec {
  readonly name: string;
  readonly type: ParameterKind;
  readonly default?: unknown;
  readonly unit?: string;
  readonly help: string;
  /** Must be present (no default in fuse either). */
  readonly required?: boolean;
}

/** fuse's YAML spelling of a camelCase parameter name (`linearVelocityDimensions` → `linear_velocity_dimensions`). */
export function fuseName(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A value that failed its parameter check: the message says what was expected. */
export class ParameterError extends Error {
  /** Path suffix below the parameter (e.g. "[1]"), "" for the parameter itself. */
  public readonly subPath: string;

  public constructor(subPath: string, message: string) {
    super(message);
    this.name = "ParameterError";
    this.subPath = subPath;
  }
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v != undefined && !Array.isArray(v);
}

interface Bound {
  readonly min?: number;
  readonly exclusiveMin?: boolean;
}

function bound(b: Bound): string {
  return b.min == undefined ? "finite" : b.exclusiveMin === true ? `> ${b.min}` : `≥ ${b.min}`;
}

function inRange(x: number, b: Bound): boolean {
  return Number.isFinite(x) && (b.min == undefined || (b.exclusiveMin === true ? x > b.min : x >= b.min));
}

/**
 * Checks one value against its parameter kind and returns it in the form the plugin reads
 * (durations in ns, a loss as LossConfig or null). Throws ParameterError.
 */
export function checkParameter(spec: ParameterSpec, v: unknown): unknown {
  const t = spec.type;
  switch (t.kind) {
    case "dimensions": {
      if (!Array.isArray(v)) {
        throw new ParameterError("", `expected a list of dimension names (${t.allowed.join(", ")})`);
      }
      v.forEach((d, i) => {
        if (typeof d !== "string" || !t.allowed.includes(d.toLowerCase())) {
          throw new ParameterError(`[${i}]`, `${previewValue(d)} is not a dimension here (allowed: ${t.allowed.join(", ")})`);
        }
      });
      return v;
    }
    case "bool":
      if (typeof v !== "boolean") {
        throw new ParameterError("", `expected true or false, got ${previewValue(v)}`);
      }
      return v;
    case "number":
      if (typeof v !== "number" || !inRange(v, t)) {
        throw new ParameterError("", `expected a number ${bound(t)}, got ${previewValue(v)}`);
      }
      return v;
    case "integer":
      if (typeof v !== "number" || !Number.isInteger(v) || (t.min != undefined && v < t.min)) {
        throw new ParameterError("", `expected an integer${t.min == undefined ? "" : ` ≥ ${t.min}`}, got ${previewValue(v)}`);
      }
      return v;
    case "string":
      if (typeof v !== "string") {
        throw new ParameterError("", `expected a string, got ${previewValue(v)}`);
      }
      return v;
    case "enum":
      if (typeof v !== "string" || !t.values.includes(v)) {
        throw new ParameterError("", `expected one of ${t.values.map((x) => JSON.stringify(x)).join(", ")}, got ${previewValue(v)}`);
      }
      return v;
    case "uuid":
      if (typeof v !== "string" || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) {
        throw new ParameterError("", `expected a UUID string (8-4-4-4-12 hex digits), got ${previewValue(v)}`);
      }
      return v;
    case "duration":
      try {
        return parseDuration(v, "");
      } catch (e) {
        throw new ParameterError("", (e as Error).message.replace(/^: /, ""));
      }
    case "vector": {
      if (!Array.isArray(v) || v.length !== t.length) {
        throw new ParameterError("", `expected ${t.length} numbers ${bound(t)}, got ${previewValue(v)}`);
      }
      v.forEach((x, i) => {
        if (typeof x !== "number" || !inRange(x, t)) {
          throw new ParameterError(`[${i}]`, `expected a number ${bound(t)}, got ${previewValue(x)}`);
        }
      });
      return v;
    }
    case "loss": {
      if (v == undefined) {
        return null;
      }
      if (!isObj(v) || typeof v.type !== "string") {
        throw new ParameterError("", `expected null or {"type": "fuse_loss::HuberLoss", "parameters": {"a": 1}}`);
      }
      for (const k of Object.keys(v)) {
        if (k !== "type" && k !== "parameters") {
          throw new ParameterError(`.${k}`, "unknown key (allowed: type, parameters)");
        }
      }
      const params = v.parameters ?? {};
      if (!isObj(params) || !Object.values(params).every((x) => typeof x === "number")) {
        throw new ParameterError(".parameters", "expected an object of numbers");
      }
      const loss: LossConfig = { type: v.type, parameters: params as Record<string, number> };
      return loss;
    }
  }
}

/** A JSON-schema fragment for one parameter (for config/pipeline.schema.json and editors). */
export function parameterSchema(spec: ParameterSpec): Record<string, unknown> {
  const t = spec.type;
  const base: Record<string, unknown> = { description: spec.unit ? `${spec.help} [${spec.unit}]` : spec.help };
  if (spec.default != undefined) {
    base.default = spec.default;
  }
  switch (t.kind) {
    case "dimensions":
      return { ...base, type: "array", items: { enum: [...t.allowed] }, uniqueItems: true };
    case "bool":
      return { ...base, type: "boolean" };
    case "number":
      return { ...base, type: "number", ...(t.min == undefined ? {} : t.exclusiveMin === true ? { exclusiveMinimum: t.min } : { minimum: t.min }) };
    case "integer":
      return { ...base, type: "integer", ...(t.min == undefined ? {} : { minimum: t.min }) };
    case "string":
      return { ...base, type: "string" };
    case "enum":
      return { ...base, enum: [...t.values] };
    case "uuid":
      return { ...base, type: "string", pattern: "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$" };
    case "duration":
      return { ...base, type: ["string", "integer"] };
    case "vector": {
      const item: Record<string, unknown> = { type: "number" };
      if (t.min != undefined) {
        item[t.exclusiveMin === true ? "exclusiveMinimum" : "minimum"] = t.min;
      }
      return { ...base, type: "array", items: item, minItems: t.length, maxItems: t.length };
    }
    case "loss":
      return {
        ...base,
        oneOf: [{ type: "null" }, { type: "object", required: ["type"], properties: { type: { type: "string" }, parameters: { type: "object" } }, additionalProperties: false }],
      };
  }
}
