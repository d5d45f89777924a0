import type { SettingsTreeAction } from "@foxglove/extension";

import { parseGenericText, SENSOR_TYPES } from "./fusionSettings";
import { isRecord } from "./isRecord";
import { DEFAULT_NAMESPACE, type LockstepConfig } from "./panelConfig";
import { defaultPolicy, POLICY_PARAMS, type ParamSpec } from "./policyParams";
import { ACTION, STAMP_PATH_CHOICE, stampChoice } from "./settingsTree";

/** What actions need besides the config. */
export interface ActionEnv {
  /** Presets by name (loaded by the "Load preset" field). */
  readonly presets: Readonly<Record<string, unknown>>;
  /** Topic offered for a new input slot (e.g. the first unused data-source topic). */
  readonly suggestTopic?: (config: LockstepConfig) => string;
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function slotIndex(key: string | undefined): number | undefined {
  const m = key == undefined ? undefined : /^slot(\d+)$/.exec(key);
  return m ? Number(m[1]) : undefined;
}

/** The fusion object a tree child key names: ["sensors", name], ["motionModels", name] or ["optimizer"]. */
function fusionTarget(key: string | undefined): [string, string?] | undefined {
  if (key == undefined) {
    return undefined;
  }
  if (key.startsWith("sensor:")) {
    return ["sensors", key.slice(7)];
  }
  if (key.startsWith("motion:")) {
    return ["motionModels", key.slice(7)];
  }
  return key === "optimizer" ? ["optimizer"] : undefined;
}

/** The `stamp` an input gets when its "Stamp source" is set to `choice` (undefined = the default, header). */
function stampFromChoice(current: string | undefined, choice: unknown): string | undefined {
  if (choice === STAMP_PATH_CHOICE) {
    return stampChoice(current) === STAMP_PATH_CHOICE ? current : ".header.stamp";
  }
  return typeof choice === "string" && choice !== "" && choice !== "header" ? choice : undefined;
}

/**
 * The stamp path a message-path field's value names: the app's field writes the topic in front
 * ("/imu.meta.time", or quoted: "\"/a b\".meta.time"); the config keeps the path in the message
 * (".meta.time"). An empty value goes back to the header stamp (undefined).
 */
export function stampPathOfField(topic: string, value: unknown): string | undefined {
  if (typeof value !== "string" || value.trim() === "") {
    return undefined;
  }
  const v = value.trim();
  for (const prefix of [`"${topic}"`, topic]) {
    if (topic !== "" && v.startsWith(prefix) && (v.length === prefix.length || v[prefix.length] === ".")) {
      const rest = v.slice(prefix.length);
      return rest === "" ? undefined : rest;
    }
  }
  if (v.startsWith("/")) {
    const dot = v.indexOf(".");
    return dot < 0 ? undefined : v.slice(dot);
  }
  return v.startsWith(".") ? v : `.${v}`;
}

/**
 * The JSON value a settings field edit stores for a policy parameter. Empty input removes the key
 * (the library's default applies); "unlimited" stores null where allowed; anything else is kept
 * as typed so that the validator can name it.
 */
export function paramValue(spec: ParamSpec, value: unknown): unknown {
  switch (spec.kind) {
    case "duration": {
      if (typeof value !== "string" || value.trim() === "") {
        return undefined;
      }
      const t = value.trim();
      if (spec.nullable === true && /^(unlimited|none|null)$/i.test(t)) {
        return null;
      }
      // A bare number stays text: the validator refuses it with the hint to add a unit
      // (panelIssues), instead of it silently meaning nanoseconds.
      return t === "0" ? 0 : t;
    }
    case "trigger":
      return value === "any" ? "any" : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
    case "boolean":
      return value === true ? true : undefined;
    case "int":
    case "float":
      return typeof value === "number" && Number.isFinite(value) ? value : undefined;
  }
}

function setDotted(obj: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split(".");
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    if (!isRecord(cur[k])) {
      cur[k] = {};
    }
    cur = cur[k] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1]!;
  // null is a value here ("unlimited"); only undefined removes the key (library default).
  // eslint-disable-next-line @foxglove/strict-equality
  if (value === undefined) {
    delete cur[last];
  } else {
    cur[last] = value;
  }
  // Drop a nested object that became empty (e.g. rateConfig).
  if (keys.length > 1 && Object.keys(cur).length === 0) {
    delete obj[keys[0]!];
  }
}

/** Keeps every per-slot array as long as `inputs` (pads with 0, trims the end). */
function syncPerSlot(config: LockstepConfig, removed?: number, movedUp?: number): void {
  for (const spec of POLICY_PARAMS[config.policy.type] ?? []) {
    const arr = config.policy[spec.key];
    if (spec.perSlot !== true || !Array.isArray(arr)) {
      continue;
    }
    const copy = [...(arr as unknown[])];
    if (removed != undefined) {
      copy.splice(removed, 1);
    }
    if (movedUp != undefined && movedUp > 0 && movedUp < copy.length) {
      [copy[movedUp - 1], copy[movedUp]] = [copy[movedUp], copy[movedUp - 1]];
    }
    while (copy.length < config.inputs.length) {
      copy.push(0);
    }
    copy.length = config.inputs.length;
    config.policy[spec.key] = copy;
  }
}

/**
 * Applies one settings-tree action to the config and returns the new config (the argument is
 * never mutated). Unknown actions and paths return the config unchanged, as the extension API
 * asks (new action kinds appear over time).
 */
export function applySettingsAction(config: LockstepConfig, action: SettingsTreeAction, env: ActionEnv): LockstepConfig {
  const next = clone(config);
  const path = action.payload.path;
  if (action.action === "perform-node-action") {
    const id = action.payload.id;
    const slot = slotIndex(path[1]);
    switch (id) {
      case ACTION.addInput:
        next.inputs.push({ topic: env.suggestTopic?.(next) ?? "" });
        syncPerSlot(next);
        return next;
      case ACTION.removeInput:
        if (slot != undefined && slot < next.inputs.length) {
          next.inputs.splice(slot, 1);
          syncPerSlot(next, slot);
          if (typeof next.policy.trigger === "number" && next.policy.trigger >= next.inputs.length) {
            next.policy.trigger = 0;
          }
        }
        return next;
      case ACTION.moveInputUp:
        if (slot != undefined && slot > 0 && slot < next.inputs.length) {
          [next.inputs[slot - 1], next.inputs[slot]] = [next.inputs[slot]!, next.inputs[slot - 1]!];
          syncPerSlot(next, undefined, slot);
        }
        return next;
      case ACTION.enableFusion:
        next.fusion = {
          optimizer: { type: "fixed-lag", lag: "0.5s", updatePeriod: "50ms" },
          motionModels: { unicycle_motion_model: { type: "fuse_models::Unicycle2D" } },
          sensors: {},
        };
        return next;
      case ACTION.disableFusion:
        delete next.fusion;
        return next;
      case ACTION.addSensor: {
        const fusion = isRecord(next.fusion) ? next.fusion : (next.fusion = {});
        const sensors = isRecord(fusion.sensors) ? fusion.sensors : (fusion.sensors = {});
        const models = Object.keys(isRecord(fusion.motionModels) ? fusion.motionModels : {});
        let n = Object.keys(sensors).length;
        while (`sensor${n}` in sensors) {
          n++;
        }
        sensors[`sensor${n}`] = { type: SENSOR_TYPES[0], motionModels: models.slice(0, 1), topic: next.inputs[0]?.topic ?? "" };
        return next;
      }
      case ACTION.removeSensor: {
        const target = fusionTarget(path[1]);
        const sensors = isRecord(next.fusion) && isRecord(next.fusion.sensors) ? next.fusion.sensors : undefined;
        const name = target?.[0] === "sensors" ? target[1] : undefined;
        if (name != undefined && sensors && name in sensors) {
          delete sensors[name];
          return next;
        }
        return config;
      }
      default:
        return config;
    }
  }
  if (action.action !== "update") {
    return config;
  }
  const value = action.payload.value;
  const [node, a, b] = path;
  switch (node) {
    case "general":
      if (a === "preset" && typeof value === "string" && env.presets[value] != undefined) {
        const preset = clone(env.presets[value]) as LockstepConfig;
        preset.publish = { ...(isRecord(preset.publish) ? preset.publish : {}), enabled: false };
        preset.publish.namespace ??= DEFAULT_NAMESPACE;
        // A new pipeline, the same view: the open tab and the other view choices stay.
        if (config.view != undefined) {
          preset.view = clone(config.view);
        }
        return preset;
      }
      return config;
    case "inputs": {
      const slot = slotIndex(a);
      if (slot == undefined || slot >= next.inputs.length || b == undefined) {
        return config;
      }
      if (b === "topic") {
        next.inputs[slot] = { ...next.inputs[slot], topic: typeof value === "string" ? value : "" };
        return next;
      }
      if (b === "stampSource" || b === "stampPath") {
        const input = next.inputs[slot]!;
        const stamp = b === "stampSource" ? stampFromChoice(input.stamp, value) : stampPathOfField(input.topic, value);
        if (stamp == undefined) {
          delete input.stamp;
        } else {
          input.stamp = stamp;
        }
        return next;
      }
      const spec = POLICY_PARAMS[next.policy.type]?.find((p) => p.perSlot === true && p.key === b);
      if (!spec) {
        return config;
      }
      const arr = Array.isArray(next.policy[b]) ? [...(next.policy[b] as unknown[])] : next.inputs.map(() => 0);
      arr[slot] = paramValue(spec, value) ?? 0;
      next.policy[b] = arr;
      if (arr.every((v) => v === 0)) {
        delete next.policy[b];
      }
      return next;
    }
    case "policy": {
      if (a === "type") {
        if (typeof value !== "string" || value === next.policy.type) {
          return config;
        }
        next.policy = defaultPolicy(value) as LockstepConfig["policy"];
        return next;
      }
      const spec = POLICY_PARAMS[next.policy.type]?.find((p) => p.perSlot !== true && p.key === a);
      if (!spec) {
        return config;
      }
      setDotted(next.policy, spec.key, paramValue(spec, value));
      return next;
    }
    case "buffer":
      if (a === "policy") {
        if (value === "" || value == undefined) {
          delete next.buffer;
        } else {
          next.buffer = { ...(next.buffer ?? {}), policy: String(value) };
        }
        return next;
      }
      if (a === "maxQueueSize" && next.buffer) {
        if (typeof value === "number") {
          next.buffer.maxQueueSize = value;
        } else {
          delete next.buffer.maxQueueSize;
        }
        return next;
      }
      return config;
    case "publish":
      next.publish ??= { enabled: false, namespace: DEFAULT_NAMESPACE };
      if (a === "enabled") {
        next.publish.enabled = value === true;
        return next;
      }
      if (a === "namespace") {
        next.publish.namespace = typeof value === "string" ? value.trim() : DEFAULT_NAMESPACE;
        return next;
      }
      return config;
    case "fusion":
      return updateFusion(next, config, path.slice(1), value);
    case undefined:
    default:
      return config;
  }
}

function updateFusion(next: LockstepConfig, config: LockstepConfig, rest: readonly string[], value: unknown): LockstepConfig {
  if (!isRecord(next.fusion)) {
    return config;
  }
  const fusion = next.fusion;
  let target: Record<string, unknown> = fusion;
  let key = rest[0];
  const where = fusionTarget(rest[0]);
  if (where) {
    const holder = where[1] == undefined ? fusion : isRecord(fusion[where[0]]) ? (fusion[where[0]] as Record<string, unknown>) : undefined;
    const obj = where[1] == undefined ? fusion[where[0]] : holder?.[where[1]];
    if (!isRecord(obj)) {
      return config;
    }
    target = obj;
    key = rest[1];
  }
  if (key == undefined) {
    return config;
  }
  const current = target[key];
  if (value == undefined || value === "") {
    delete target[key];
  } else if (typeof value === "string") {
    target[key] = parseGenericText(value, current);
  } else {
    target[key] = value;
  }
  return next;
}
