import { parseDuration, previewValue } from "../../time";
import type { UuidRecipe } from "../core";
import {
  checkParameter,
  motionModelDescriptor,
  motionModelDescriptors,
  ParameterError,
  sensorDescriptor,
  sensorDescriptors,
  type MotionModelDescriptor,
  type ParameterSpec,
  type SensorDescriptor,
} from "../registry";
import { FusionConfigError } from "./FusionConfigError";

/** One sensor entry of the `fusion.sensors` map (type plus fuse's parameters, camelCase). */
export interface SensorConfig {
  /** fuse_models class name, e.g. "fuse_models::Odometry2D". */
  readonly type: string;
  /** The registered plugin (how to build it, what it reads). */
  readonly descriptor: SensorDescriptor;
  /** Motion models applied to this sensor's transactions (fuse's `motion_models`). */
  readonly motionModels: readonly string[];
  /** May start/reset the estimator (fuse's `ignition`). */
  readonly ignition: boolean;
  /** The plugin parameters, validated (durations already in ns). */
  readonly params: Readonly<Record<string, unknown>>;
}

/** One motion model entry of `fusion.motionModels`. */
export interface MotionModelConfig {
  /** e.g. "fuse_models::Unicycle2D". */
  readonly type: string;
  /** The registered plugin. */
  readonly descriptor: MotionModelDescriptor;
  readonly params: Readonly<Record<string, unknown>>;
}

/** The optimizer section (fuse's FixedLagSmoother / BatchOptimizer parameters). */
export interface OptimizerConfig {
  readonly type: "fixed-lag" | "batch";
  /** `lag_duration` in ns (fixed-lag only); default 5 s. */
  readonly lag: number;
  /** `optimization_period` in ns; default 100 ms (10 Hz). */
  readonly updatePeriod: number;
  /** `transaction_timeout` in ns; default 100 ms. */
  readonly transactionTimeout: number;
  /** Solver iterations per cycle (Ceres `max_num_iterations`); default 50 (Ceres' default). */
  readonly maxIterations: number;
}

/** The validated `fusion` section. */
export interface FusionConfig {
  /** Explicit UUID recipe; undefined = the recording's ROS version. */
  readonly uuidRecipe: UuidRecipe | undefined;
  readonly sensors: ReadonlyMap<string, SensorConfig>;
  readonly motionModels: ReadonlyMap<string, MotionModelConfig>;
  readonly optimizer: OptimizerConfig;
}

/** One problem of a fusion config: the JSON path of the field and what is wrong with it. */
export interface FusionConfigIssue {
  readonly path: string;
  readonly message: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v != undefined && !Array.isArray(v);
}

/** Thrown inside the parser to abandon the current entry; the issue is already recorded. */
class Abandon extends Error {}

class Issues {
  public readonly list: FusionConfigIssue[] = [];

  /** Records the issue and abandons the current entry. */
  public fail(path: string, message: string): never {
    this.list.push({ path, message });
    throw new Abandon(message);
  }

  /** Runs `f`; an abandoned entry yields undefined, other errors propagate. */
  public entry<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (e) {
      if (e instanceof Abandon) {
        return undefined;
      }
      throw e;
    }
  }
}

function checkKeys(issues: Issues, o: Obj, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) {
      issues.fail(`${path}.${k}`, `unknown key (allowed: ${allowed.join(", ")})`);
    }
  }
}

function parseParams(
  issues: Issues,
  o: Obj,
  specs: readonly ParameterSpec[],
  reserved: readonly string[],
  path: string,
): Record<string, unknown> {
  const byName = new Map(specs.map((s) => [s.name, s]));
  checkKeys(issues, o, [...reserved, ...byName.keys()], path);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (reserved.includes(k)) {
      continue;
    }
    try {
      out[k] = checkParameter(byName.get(k)!, v);
    } catch (e) {
      if (e instanceof ParameterError) {
        issues.fail(`${path}.${k}${e.subPath}`, e.message);
      }
      throw e;
    }
  }
  for (const s of specs) {
    if (s.required === true && out[s.name] == undefined) {
      issues.fail(`${path}.${s.name}`, `required: ${s.help}`);
    }
  }
  return out;
}

/**
 * The registered plugin an entry's `type` names and the entry's validated parameters (`reserved`
 * keys besides `type` are the caller's); an unknown type is an issue naming the registered ones.
 */
function parsePlugin<D extends { readonly type: string; readonly parameters: readonly ParameterSpec[] }>(
  issues: Issues,
  entry: Obj,
  path: string,
  kind: string,
  lookup: (type: string) => D | undefined,
  registered: () => readonly D[],
  reserved: readonly string[],
): { descriptor: D; params: Record<string, unknown> } {
  const descriptor = typeof entry.type === "string" ? lookup(entry.type) : undefined;
  if (descriptor == undefined) {
    issues.fail(`${path}.type`, `unknown ${kind} ${previewValue(entry.type)} (registered: ${registered().map((d) => d.type).join(", ")})`);
  }
  return { descriptor, params: parseParams(issues, entry, descriptor.parameters, ["type", ...reserved], path) };
}

function parse(value: unknown, path: string, issues: Issues): FusionConfig | undefined {
  if (!isObj(value)) {
    issues.fail(path, "expected an object with sensors, motionModels and optimizer");
  }
  issues.entry(() => { checkKeys(issues, value, ["sensors", "motionModels", "optimizer", "uuidRecipe"], path); });
  let uuidRecipe: UuidRecipe | undefined;
  if (value.uuidRecipe != undefined) {
    issues.entry(() => {
      if (value.uuidRecipe !== "ros1" && value.uuidRecipe !== "ros2") {
        issues.fail(`${path}.uuidRecipe`, `expected "ros1" or "ros2", got ${previewValue(value.uuidRecipe)}`);
      }
      uuidRecipe = value.uuidRecipe;
    });
  }
  const motionModels = new Map<string, MotionModelConfig>();
  const declaredMotion = new Set<string>();
  const mm = value.motionModels ?? {};
  if (!isObj(mm)) {
    issues.entry(() => issues.fail(`${path}.motionModels`, "expected an object mapping names to motion models"));
  } else {
    for (const [name, m] of Object.entries(mm)) {
      declaredMotion.add(name);
      const p = `${path}.motionModels.${name}`;
      issues.entry(() => {
        if (!isObj(m)) {
          issues.fail(p, "expected an object with a type");
        }
        const { descriptor, params } = parsePlugin(issues, m, p, "motion model", motionModelDescriptor, motionModelDescriptors, []);
        motionModels.set(name, { type: descriptor.type, descriptor, params });
      });
    }
  }
  const sensors = new Map<string, SensorConfig>();
  const ss = value.sensors;
  if (!isObj(ss) || Object.keys(ss).length === 0) {
    issues.entry(() => issues.fail(`${path}.sensors`, "expected an object mapping names to at least one sensor model"));
  } else {
    for (const [name, s] of Object.entries(ss)) {
      const p = `${path}.sensors.${name}`;
      issues.entry(() => {
        if (!isObj(s)) {
          issues.fail(p, "expected an object with a type");
        }
        const { descriptor, params } = parsePlugin(issues, s, p, "sensor model", sensorDescriptor, sensorDescriptors, ["motionModels", "ignition"]);
        const models = s.motionModels ?? [];
        if (!Array.isArray(models)) {
          issues.fail(`${p}.motionModels`, "expected a list of motion model names");
        }
        models.forEach((m, i) => {
          if (typeof m !== "string" || !declaredMotion.has(m)) {
            issues.fail(`${p}.motionModels[${i}]`, `${previewValue(m)} is not a motion model in ${path}.motionModels`);
          }
        });
        if (s.ignition != undefined && typeof s.ignition !== "boolean") {
          issues.fail(`${p}.ignition`, `expected true or false, got ${previewValue(s.ignition)}`);
        }
        if (descriptor.defaultTopic == undefined && params.topic == undefined && params.slot == undefined) {
          issues.fail(p, `needs a "topic" (or a "slot" index into the pipeline inputs)`);
        }
        sensors.set(name, { type: descriptor.type, descriptor, motionModels: models as string[], ignition: s.ignition === true, params });
      });
    }
  }
  const optimizer = issues.entry(() => parseOptimizer(issues, value.optimizer ?? {}, `${path}.optimizer`));
  if (issues.list.length > 0 || optimizer == undefined) {
    return undefined;
  }
  return { uuidRecipe, sensors, motionModels, optimizer };
}

function parseOptimizer(issues: Issues, o: unknown, path: string): OptimizerConfig {
  if (!isObj(o)) {
    issues.fail(path, "expected an object");
  }
  checkKeys(issues, o, ["type", "lag", "updatePeriod", "transactionTimeout", "maxIterations"], path);
  const type = o.type ?? "fixed-lag";
  if (type !== "fixed-lag" && type !== "batch") {
    issues.fail(`${path}.type`, `expected "fixed-lag" or "batch", got ${previewValue(type)}`);
  }
  const dur = (k: string, def: number): number => {
    if (o[k] == undefined) {
      return def;
    }
    try {
      return parseDuration(o[k], `${path}.${k}`);
    } catch (e) {
      return issues.fail(`${path}.${k}`, (e as Error).message.replace(`${path}.${k}: `, ""));
    }
  };
  const updatePeriod = dur("updatePeriod", 100_000_000);
  if (updatePeriod <= 0) {
    issues.fail(`${path}.updatePeriod`, "must be > 0");
  }
  const maxIterations = o.maxIterations ?? 50;
  if (typeof maxIterations !== "number" || !Number.isInteger(maxIterations) || maxIterations < 1) {
    issues.fail(`${path}.maxIterations`, `expected a positive integer, got ${previewValue(maxIterations)}`);
  }
  return {
    type,
    lag: dur("lag", 5_000_000_000),
    updatePeriod,
    transactionTimeout: dur("transactionTimeout", 100_000_000),
    maxIterations,
  };
}

/**
 * Every problem of a `fusion` config section, each with its JSON path (prefixed by `path`), in
 * document order; empty when the section is valid. For the pipeline's config validation and the
 * panel's settings fields. Plugin types and their parameters are the registered plugins'
 * (src/fusion/registry): an unknown `type` names the registered ones.
 */
export function validateFusionConfig(value: unknown, path = "fusion"): FusionConfigIssue[] {
  const issues = new Issues();
  issues.entry(() => parse(value, path, issues));
  return issues.list;
}

/**
 * Validates a `fusion` config section (DESIGN §3.2), mirroring fuse's YAML: `sensors` and
 * `motionModels` are maps from plugin name to `{type, …parameters}` (fuse's parameter names in
 * camelCase); sensors add `motionModels: [names]` and `ignition`; `optimizer` has `type`
 * ("fixed-lag" | "batch"), `lag`, `updatePeriod`, `transactionTimeout` (durations, DESIGN §3.1)
 * and `maxIterations`; `uuidRecipe` is "ros1" | "ros2". Throws FusionConfigError with the JSON path
 * of the first problem `validateFusionConfig` finds.
 */
export function parseFusionConfig(value: unknown, path = "fusion"): FusionConfig {
  const issues = new Issues();
  const config = issues.entry(() => parse(value, path, issues));
  const first = issues.list[0];
  if (first != undefined || config == undefined) {
    throw new FusionConfigError(first?.path ?? path, first?.message ?? "invalid fusion config");
  }
  return config;
}
