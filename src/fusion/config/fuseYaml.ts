import { parseDocument, YAMLError } from "yaml";

import { formatDuration, previewValue } from "../../time";
import {
  checkParameter,
  fuseName,
  motionModelDescriptor,
  ParameterError,
  sensorDescriptor,
  type MotionModelDescriptor,
  type ParameterSpec,
  type SensorDescriptor,
} from "../registry";
import { validateFusionConfig } from "./fusionConfig";

/** One problem or remark about a fuse YAML file: the key path in the file and what it means. */
export interface FuseYamlIssue {
  /** Dotted key path from the file's root, e.g. "state_estimator.ros__parameters.imu_sensor.topic". */
  readonly path: string;
  readonly message: string;
}

/** A fuse YAML file that cannot be used: every offending key path with its value and what is expected. */
export class FuseYamlError extends Error {
  public readonly issues: readonly FuseYamlIssue[];

  public constructor(issues: readonly FuseYamlIssue[]) {
    super(issues.map((i) => `${i.path === "" ? "(file)" : i.path}: ${i.message}`).join("\n"));
    this.name = "FuseYamlError";
    this.issues = issues;
  }
}

/** The `fusion` config section read from a fuse YAML file, with what Lockstep does not run. */
export interface FuseYamlImport {
  /** The JSON `fusion` section (DESIGN §3.2), camelCase, durations as strings with a unit. */
  readonly fusion: Record<string, unknown>;
  /** Keys of the file Lockstep ignores (parameters it does not implement, publishers, unknown plugins). */
  readonly warnings: readonly FuseYamlIssue[];
}

/** What the file does not say: which fuse optimizer node reads it. */
export interface FuseYamlOptions {
  /** fuse_optimizers' fixed_lag_smoother_node ("fixed-lag", the default) or batch_optimizer_node ("batch"). */
  readonly optimizer?: "fixed-lag" | "batch";
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v != undefined && !Array.isArray(v);
}

function show(v: unknown): string {
  return previewValue(v, 80);
}

/** Keys whose presence marks a map as a fuse optimizer's parameter namespace. */
const OPTIMIZER_KEYS = ["sensor_models", "motion_models", "publishers", "lag_duration", "optimization_frequency", "optimization_period", "transaction_timeout"];

/** Loader sections of the optimizer and the ROS 2 forward-declaration list each may carry. */
const LOADERS = [
  { key: "motion_models", list: "motion_model_list", role: "motion" },
  { key: "sensor_models", list: "sensor_model_list", role: "sensor" },
  { key: "publishers", list: "publisher_list", role: "publisher" },
] as const;

interface Declared {
  readonly name: string;
  readonly path: string;
  readonly entry: Obj;
}

class Collector {
  public readonly errors: FuseYamlIssue[] = [];
  public readonly warnings: FuseYamlIssue[] = [];

  public error(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  public warn(path: string, message: string): void {
    this.warnings.push({ path, message });
  }
}

function join(path: string, key: string | number): string {
  return typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`;
}

/**
 * Finds the optimizer node's parameters: the root itself (a ROS 1 file loaded into the node's
 * namespace), or below node names and `ros__parameters` (ROS 2 `--params-file`, ROS 1 files
 * nested under the node name, `/**` wildcards).
 */
function findNamespace(root: Obj, out: Collector): { ns: Obj; path: string } | undefined {
  let ns = root;
  let path = "";
  for (let depth = 0; depth < 6; depth++) {
    if (OPTIMIZER_KEYS.some((k) => k in ns)) {
      return { ns, path };
    }
    if (isObj(ns.ros__parameters)) {
      ns = ns.ros__parameters;
      path = join(path, "ros__parameters");
      continue;
    }
    const candidates = Object.entries(ns).filter(([, v]) => isObj(v) && containsOptimizer(v, 6 - depth));
    if (candidates.length > 1) {
      out.error(path, `several fuse optimizer nodes (${candidates.map(([k]) => k).join(", ")}); give a file with one`);
      return undefined;
    }
    if (candidates.length === 0) {
      break;
    }
    const [key, value] = candidates[0]!;
    ns = value as Obj;
    path = join(path, key);
  }
  out.error(path, `no fuse optimizer parameters found (expected ${OPTIMIZER_KEYS.slice(0, 4).join(", ")} …)`);
  return undefined;
}

function containsOptimizer(o: Obj, depth: number): boolean {
  if (OPTIMIZER_KEYS.some((k) => k in o)) {
    return true;
  }
  return depth > 0 && Object.values(o).some((v) => isObj(v) && containsOptimizer(v, depth - 1));
}

/**
 * The plugins a loader section declares, in the three forms fuse reads: a list of
 * `{name, type, …}` (ROS 1), a map `name: {type, …}` (ROS 1 and ROS 2), and that map with a
 * `<role>_list` of the names to load (ROS 2's forward declaration; other entries are not loaded).
 */
function declaredPlugins(ns: Obj, nsPath: string, loader: (typeof LOADERS)[number], out: Collector): Declared[] {
  const value = ns[loader.key];
  const path = join(nsPath, loader.key);
  if (value == undefined) {
    return [];
  }
  const result: Declared[] = [];
  if (Array.isArray(value)) {
    value.forEach((e, i) => {
      const p = join(path, i);
      if (!isObj(e) || typeof e.name !== "string") {
        out.error(p, `expected {name: <plugin name>, type: <class>}, got ${show(e)}`);
        return;
      }
      result.push({ name: e.name, path: p, entry: e });
    });
    return result;
  }
  if (!isObj(value)) {
    out.error(path, `expected a map of plugin names to {type: <class>} (or a list of {name, type}), got ${show(value)}`);
    return [];
  }
  const list = value[loader.list];
  if (list != undefined && !(Array.isArray(list) && list.every((n) => typeof n === "string"))) {
    out.error(join(path, loader.list), `expected a list of plugin names, got ${show(list)}`);
    return [];
  }
  for (const [name, e] of Object.entries(value)) {
    if (name === loader.list) {
      continue;
    }
    const p = join(path, name);
    if (!isObj(e)) {
      out.error(p, `expected {type: <class>, …}, got ${show(e)}`);
      continue;
    }
    if (Array.isArray(list) && !list.includes(name)) {
      out.warn(p, `not in ${loader.list}, so fuse does not load it; ignored`);
      continue;
    }
    result.push({ name, path: p, entry: e });
  }
  if (Array.isArray(list)) {
    list.forEach((name, i) => {
      if (!result.some((d) => d.name === name)) {
        out.error(join(join(path, loader.list), i), `"${name}" is listed but has no entry ${join(path, name)} with its type`);
      }
    });
  }
  return result;
}

/** A ROS name as the recording spells it: relative names resolve in the root namespace. */
function resolveTopic(topic: string): string {
  return topic.startsWith("/") ? topic : `/${topic}`;
}

/** The longest duration a config holds, in seconds: 2^53 ns (about 104 days), as `parseDuration`. */
const MAX_SECONDS = Number.MAX_SAFE_INTEGER / 1e9;

function seconds(path: string, v: unknown, out: Collector, options: { positive?: boolean } = {}): number | undefined {
  const positive = options.positive === true;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || (positive && v === 0) || v > MAX_SECONDS) {
    out.error(path, `expected a number of seconds ${positive ? "> 0" : "≥ 0"} and at most ${Math.floor(MAX_SECONDS)} (104 days), got ${show(v)}`);
    return undefined;
  }
  return Math.round(v * 1e9);
}

/**
 * One parameter value as fuse writes it, in the form Lockstep's JSON config takes: durations are
 * seconds (→ a duration string), a loss is `{type, <its parameters>}` (→ `{type, parameters}`),
 * a topic may be relative; the rest is the same. Checked against the parameter's descriptor.
 */
function convertValue(spec: ParameterSpec, v: unknown, path: string, out: Collector): unknown {
  let value = v;
  if (spec.type.kind === "duration") {
    const ns = seconds(path, v, out);
    if (ns == undefined) {
      return undefined;
    }
    value = formatDuration(ns);
  } else if (spec.type.kind === "loss" && isObj(v)) {
    const { type, ...parameters } = v;
    value = { type, parameters };
  } else if (spec.name === "topic" && typeof v === "string") {
    value = resolveTopic(v);
  }
  try {
    checkParameter(spec, value);
  } catch (e) {
    if (e instanceof ParameterError) {
      const sub = spec.type.kind === "loss" && e.subPath === ".parameters" ? "" : e.subPath;
      out.error(path + sub, e.message);
      return undefined;
    }
    throw e;
  }
  return value;
}

/** The plugin's parameters from its own section (`<name>: {…}` beside the loader sections). */
function pluginParams(
  descriptor: SensorDescriptor | MotionModelDescriptor,
  section: unknown,
  path: string,
  out: Collector,
): Obj | undefined {
  const params: Obj = {};
  if (section != undefined && !isObj(section)) {
    out.error(path, `expected the parameters of ${descriptor.type} as a map, got ${show(section)}`);
    return undefined;
  }
  const byFuseName = new Map(descriptor.parameters.map((s) => [fuseName(s.name), s]));
  for (const [key, v] of Object.entries(section ?? {})) {
    const spec = byFuseName.get(key);
    const p = join(path, key);
    if (spec == undefined) {
      out.warn(p, `not a parameter of ${descriptor.type} that Lockstep implements; ignored`);
      continue;
    }
    const value = convertValue(spec, v, p, out);
    if (value != undefined) {
      params[spec.name] = value;
    }
  }
  for (const spec of descriptor.parameters) {
    if (spec.required === true && params[spec.name] == undefined && section?.[fuseName(spec.name)] == undefined) {
      out.error(join(path, fuseName(spec.name)), `required by ${descriptor.type}: ${spec.help}`);
    }
  }
  if (descriptor.role === "sensor" && descriptor.defaultTopic == undefined && section?.topic == undefined) {
    out.error(join(path, "topic"), `required by ${descriptor.type}: the topic it subscribes to`);
  }
  return params;
}

function optimizerSection(ns: Obj, nsPath: string, options: FuseYamlOptions, out: Collector): Obj {
  const optimizer: Obj = { type: options.optimizer ?? "fixed-lag" };
  const p = (k: string): string => join(nsPath, k);
  if (ns.lag_duration != undefined) {
    const lag = seconds(p("lag_duration"), ns.lag_duration, out);
    if (optimizer.type === "batch") {
      out.warn(p("lag_duration"), "the batch optimizer keeps every variable; ignored");
    } else if (lag != undefined) {
      optimizer.lag = formatDuration(lag);
    }
  }
  if (ns.optimization_frequency != undefined) {
    const f = ns.optimization_frequency;
    // Its period, 1/f, must be a duration a config holds: at least 1 ns, at most 104 days.
    if (typeof f !== "number" || !Number.isFinite(f) || f <= 0 || f > 1e9 || 1 / f > MAX_SECONDS) {
      out.error(p("optimization_frequency"), `expected a frequency in Hz from ${(1 / MAX_SECONDS).toPrecision(2)} (a period of 104 days) to 1e9, got ${show(f)}`);
    } else {
      optimizer.updatePeriod = formatDuration(Math.round(1e9 / f));
    }
    if (ns.optimization_period != undefined) {
      out.warn(p("optimization_period"), "optimization_frequency is given too and takes precedence; ignored");
    }
  } else if (ns.optimization_period != undefined) {
    const period = seconds(p("optimization_period"), ns.optimization_period, out, { positive: true });
    if (period != undefined) {
      optimizer.updatePeriod = formatDuration(period);
    }
  }
  if (ns.transaction_timeout != undefined) {
    const t = seconds(p("transaction_timeout"), ns.transaction_timeout, out);
    if (t != undefined) {
      optimizer.transactionTimeout = formatDuration(t);
    }
  }
  const solver = ns.solver_options;
  if (solver != undefined) {
    if (!isObj(solver)) {
      out.error(p("solver_options"), `expected a map of Ceres solver options, got ${show(solver)}`);
    } else {
      for (const [k, v] of Object.entries(solver)) {
        if (k === "max_num_iterations") {
          if (typeof v !== "number" || !Number.isInteger(v) || v < 1) {
            out.error(join(p("solver_options"), k), `expected an integer ≥ 1, got ${show(v)}`);
          } else {
            optimizer.maxIterations = v;
          }
        } else {
          out.warn(join(p("solver_options"), k), "a Ceres option Lockstep's solver does not implement; ignored");
        }
      }
    }
  }
  return optimizer;
}

/**
 * The longest fuse YAML text read, in characters. fuse's parameter files are a few KB; the YAML
 * reader needs some 300 bytes of memory per character of text, so this bounds a run's memory
 * whatever file it is given.
 */
export const MAX_FUSE_YAML_CHARS = 2 ** 20;

/**
 * Reads fuse's own YAML parameters (what a fuse_optimizers node is launched with) into the JSON
 * `fusion` section. Accepts ROS 1 parameter files (the node's namespace at the root or under the
 * node name) and ROS 2 `--params-file` files (`<node>: ros__parameters: …`, `/**` too); the
 * `motion_models`, `sensor_models` and `publishers` loader sections as a list of `{name, type}`,
 * a map of `name: {type}`, or that map with ROS 2's `*_list`; each plugin's parameters in the
 * section named after it, snake_case as fuse spells them. The parameter names and checks are the
 * registered plugins' own (`fuseName` of each descriptor parameter), so nothing here repeats them.
 *
 * Parameters Lockstep does not implement, publishers and plugin types it has not registered are
 * returned as warnings naming their key path (an unregistered plugin is not run). Throws
 * FuseYamlError listing every key path whose value is wrong (with the value and what is
 * expected), a required parameter that is missing, or a file that is not YAML.
 */
export function fusionFromFuseYaml(text: string, options: FuseYamlOptions = {}): FuseYamlImport {
  if (text.length > MAX_FUSE_YAML_CHARS) {
    throw new FuseYamlError([
      {
        path: "",
        message:
          `${(text.length / 2 ** 20).toFixed(1)} MiB of text, more than the ${MAX_FUSE_YAML_CHARS / 2 ** 20} MiB a fuse parameter file is read up to ` +
          `(they are a few KB); give the file that holds the fuse optimizer's parameters`,
      },
    ]);
  }
  let root: unknown;
  const out = new Collector();
  try {
    // parseDocument, not parse: parse prints the YAML's warnings to the process (Node's warning
    // channel, with a code frame); here they join the file's other warnings.
    const doc = parseDocument(text);
    if (doc.errors.length > 0) {
      throw doc.errors[0]!;
    }
    for (const w of doc.warnings) {
      // The message's first line names the line and column; a code frame follows.
      out.warn("", `${(w.message.split("\n")[0] ?? "").replace(/:$/, "")}; read as plain YAML`);
    }
    root = doc.toJS();
  } catch (e) {
    // The reader's messages end with the line and column (said once, first, here), then show a
    // code frame.
    const first = ((e as Error).message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
    const where = e instanceof YAMLError && e.linePos ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : "";
    throw new FuseYamlError([{ path: "", message: `not YAML${where}: ${first}` }]);
  }
  if (!isObj(root)) {
    throw new FuseYamlError([{ path: "", message: `expected a map of fuse parameters, got ${show(root)}` }]);
  }
  const found = findNamespace(root, out);
  if (found == undefined) {
    throw new FuseYamlError(out.errors);
  }
  const { ns, path: nsPath } = found;
  const optimizer = optimizerSection(ns, nsPath, options, out);
  const consumed = new Set<string>(["lag_duration", "optimization_frequency", "optimization_period", "transaction_timeout", "solver_options"]);
  const motionModels: Obj = {};
  const sensors: Obj = {};
  const declaredMotion = new Set<string>();
  for (const loader of LOADERS) {
    consumed.add(loader.key);
    for (const d of declaredPlugins(ns, nsPath, loader, out)) {
      consumed.add(d.name);
      const sectionPath = join(nsPath, d.name);
      const type = d.entry.type;
      if (loader.role === "publisher") {
        out.warn(d.path, `publisher ${show(type)} is not run: Lockstep reports the fused pose and transactions itself; ignored`);
        continue;
      }
      const descriptor = typeof type === "string" ? (loader.role === "motion" ? motionModelDescriptor(type) : sensorDescriptor(type)) : undefined;
      if (typeof type !== "string") {
        out.error(join(d.path, "type"), `expected the plugin class (e.g. "fuse_models::Unicycle2D"), got ${show(type)}`);
        continue;
      }
      if (descriptor == undefined) {
        out.warn(join(d.path, "type"), `${type} is not implemented by Lockstep; ${loader.role === "motion" ? "motion model" : "sensor"} "${d.name}" is not run`);
        continue;
      }
      const allowed = loader.role === "sensor" ? ["name", "type", "motion_models", "ignition"] : ["name", "type"];
      for (const k of Object.keys(d.entry)) {
        if (!allowed.includes(k)) {
          out.warn(join(d.path, k), `fuse's loader reads only ${allowed.filter((a) => a !== "name").join(", ")} here (plugin parameters go in ${sectionPath}); ignored`);
        }
      }
      const params = pluginParams(descriptor, ns[d.name], sectionPath, out);
      if (params == undefined) {
        continue;
      }
      if (loader.role === "motion") {
        declaredMotion.add(d.name);
        motionModels[d.name] = { type, ...params };
        continue;
      }
      const sensor: Obj = { type };
      const models = d.entry.motion_models;
      if (models != undefined) {
        if (!Array.isArray(models) || !models.every((m) => typeof m === "string")) {
          out.error(join(d.path, "motion_models"), `expected a list of motion model names, got ${show(models)}`);
        } else {
          sensor.motionModels = models.filter((m) => declaredMotion.has(m));
          models.forEach((m, i) => {
            if (!declaredMotion.has(m)) {
              out.warn(join(join(d.path, "motion_models"), i), `"${m}" is not a motion model Lockstep runs (declare it in ${join(nsPath, "motion_models")}); not applied`);
            }
          });
        }
      }
      if (d.entry.ignition != undefined) {
        if (typeof d.entry.ignition !== "boolean") {
          out.error(join(d.path, "ignition"), `expected true or false, got ${show(d.entry.ignition)}`);
        } else {
          sensor.ignition = d.entry.ignition;
        }
      }
      sensors[d.name] = { ...sensor, ...params };
    }
  }
  for (const key of Object.keys(ns)) {
    if (!consumed.has(key)) {
      out.warn(join(nsPath, key), "not a fuse optimizer parameter or plugin section Lockstep implements; ignored");
    }
  }
  if (out.errors.length > 0) {
    throw new FuseYamlError(out.errors);
  }
  const fusion: Obj = { optimizer, motionModels, sensors };
  // What the file-level checks cannot see (e.g. no sensor left to run) is the JSON validation's.
  const issues = validateFusionConfig(fusion);
  if (issues.length > 0) {
    throw new FuseYamlError(issues.map((i) => ({ path: nsPath, message: `as Lockstep config, ${i.path}: ${i.message}` })));
  }
  return { fusion, warnings: out.warnings };
}
