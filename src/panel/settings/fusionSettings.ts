import type { SettingsTreeChildren, SettingsTreeField, SettingsTreeFields, SettingsTreeNode, Topic } from "@foxglove/extension";

import type { FuseYamlNotice } from "./fuseYamlImport";
import { fusionFieldLabel } from "./fusionLabels";
import { isRecord } from "./isRecord";
import type { LockstepConfig } from "./panelConfig";
import { motionModelDescriptors, sensorDescriptors } from "../../pipeline";

/** Sensor model types offered when adding a sensor (the registered ones that read a topic; fuse's names). */
export const SENSOR_TYPES: readonly string[] = sensorDescriptors()
  .filter((d) => d.defaultTopic == undefined)
  .map((d) => d.type);

/** Motion model types offered (the registered ones; fuse's names). */
export const MOTION_MODEL_TYPES: readonly string[] = motionModelDescriptors().map((d) => d.type);

type Grouped = Map<string, { nodeError?: string; fields: Map<string, string> }>;

/**
 * The field that edits one scalar or list value of a fusion object generically: strings,
 * numbers and booleans as themselves, lists of scalars as comma-separated text, anything else as
 * read-only JSON. This keeps the editor in step with the fusion config without a second schema.
 */
export function genericField(key: string, value: unknown, error?: string): SettingsTreeField {
  if (typeof value === "boolean") {
    return { label: key, input: "boolean", value, error };
  }
  if (typeof value === "number") {
    return { label: key, input: "number", value, error };
  }
  if (typeof value === "string" || value == undefined) {
    return { label: key, input: "string", value: value ?? undefined, error };
  }
  if (Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number")) {
    return { label: key, input: "string", value: value.join(", "), help: "comma-separated list", error };
  }
  return { label: key, input: "string", value: JSON.stringify(value), readonly: true, help: "edit in the layout JSON", error };
}

/**
 * Parses text typed into a generic list field back to JSON: a list when the current value is a
 * list (numbers when every item is numeric), otherwise the text itself.
 */
export function parseGenericText(text: string, current: unknown): unknown {
  if (Array.isArray(current)) {
    const items = text
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const allNumeric = items.length > 0 && items.every((s) => /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(s));
    const hadStrings = current.some((v) => typeof v === "string");
    return allNumeric && !hadStrings ? items.map(Number) : items;
  }
  return text;
}

function objectFields(obj: Record<string, unknown>, grouped: Grouped, nodeKey: string, topics: readonly Topic[] | undefined): SettingsTreeFields {
  const fields: SettingsTreeFields = {};
  for (const [key, value] of Object.entries(obj)) {
    const error = grouped.get(nodeKey)?.fields.get(key);
    if (key === "topic" && (typeof value === "string" || value == undefined)) {
      const options = (topics ?? []).map((t) => ({ label: `${t.name} (${t.schemaName})`, value: t.name }));
      if (typeof value === "string" && !options.some((o) => o.value === value)) {
        options.unshift({ label: value === "" ? "(choose a topic)" : `${value} (not in this data source)`, value });
      }
      fields[key] = { ...fusionFieldLabel(key), input: "select", value: value ?? "", options, error };
    } else if (key === "type" && nodeKey.startsWith("fusion/sensor")) {
      const options: { label: string; value: string }[] = SENSOR_TYPES.map((t) => ({ label: t, value: t }));
      if (typeof value === "string" && !options.some((o) => o.value === value)) {
        options.push({ label: value, value });
      }
      fields[key] = { ...fusionFieldLabel(key), input: "select", value: typeof value === "string" ? value : "", options, error };
    } else {
      const generic = genericField(key, value, error);
      const { label, help } = fusionFieldLabel(key);
      fields[key] = { ...generic, label, help: generic.help == undefined ? help : `${help}; ${generic.help}` };
    }
  }
  // Errors on keys that are not present (a required key is missing) still get shown.
  for (const [key, message] of grouped.get(nodeKey)?.fields ?? []) {
    fields[key] ??= { ...fusionFieldLabel(key), input: "string", value: undefined, error: message };
  }
  return fields;
}

/** Settings-tree child key of a named fusion sensor / motion model. */
export function sensorKey(name: string): string {
  return `sensor:${name}`;
}
export function motionKey(name: string): string {
  return `motion:${name}`;
}

/**
 * The "Fusion" node: an enable action when the config has no fusion section; otherwise the
 * top-level fusion values, an "optimizer" child, one child per motion model (`motionModels`,
 * keyed by name) and one per sensor model (`sensors`, keyed by name), edited generically (the
 * fusion layer validates them; its errors appear on the fields).
 */
export function fusionNodes(
  config: LockstepConfig,
  env: { readonly topics: readonly Topic[] | undefined; readonly fuseYamlNotice?: FuseYamlNotice },
  grouped: Grouped,
): SettingsTreeNode {
  const fusion = config.fusion;
  const importAction = { type: "action", id: "import-fuse-yaml", label: "Import fuse YAML file…", icon: "FolderOpen", display: "menu" } as const;
  const notice = env.fuseYamlNotice;
  const noticeFields: SettingsTreeFields =
    notice == undefined
      ? {}
      : {
          fuseYamlImport: {
            label: "fuse YAML import",
            input: "string",
            readonly: true,
            value: `${notice.file ?? "file"}: ${notice.error != undefined ? "not imported" : notice.warnings.length === 0 ? "imported" : `imported; ignored ${notice.warnings.join("; ")}`}`,
            error: notice.error,
          },
        };
  if (!isRecord(fusion)) {
    return {
      label: "Fusion (off)",
      icon: "Walk",
      defaultExpansionState: "collapsed",
      fields: noticeFields,
      error: grouped.get("fusion")?.nodeError,
      actions: [{ type: "action", id: "enable-fusion", label: "Enable fusion preview", icon: "Add", display: "inline" }, importAction],
    };
  }
  const top: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fusion)) {
    if (k !== "sensors" && k !== "motionModels" && k !== "optimizer") {
      top[k] = v;
    }
  }
  const children: SettingsTreeChildren = {};
  if (isRecord(fusion.optimizer)) {
    children.optimizer = {
      label: "Optimizer",
      icon: "Settings",
      fields: objectFields(fusion.optimizer, grouped, "fusion/optimizer", env.topics),
      error: grouped.get("fusion/optimizer")?.nodeError,
      defaultExpansionState: "collapsed",
    };
  }
  for (const [name, model] of Object.entries(isRecord(fusion.motionModels) ? fusion.motionModels : {})) {
    const key = motionKey(name);
    const fields = objectFields(isRecord(model) ? model : {}, grouped, `fusion/${key}`, env.topics);
    const type = isRecord(model) && typeof model.type === "string" ? model.type : "";
    const options: { label: string; value: string }[] = MOTION_MODEL_TYPES.map((t) => ({ label: t, value: t }));
    if (type !== "" && !options.some((o) => o.value === type)) {
      options.push({ label: type, value: type });
    }
    fields.type = { ...fusionFieldLabel("type"), input: "select", value: type, options, error: grouped.get(`fusion/${key}`)?.fields.get("type") };
    children[key] = { label: `Motion model ${name}`, icon: "Move", fields, error: grouped.get(`fusion/${key}`)?.nodeError, defaultExpansionState: "collapsed" };
  }
  for (const [name, sensor] of Object.entries(isRecord(fusion.sensors) ? fusion.sensors : {})) {
    const key = sensorKey(name);
    children[key] = {
      label: `Sensor ${name}`,
      icon: "Radar",
      fields: objectFields(isRecord(sensor) ? sensor : {}, grouped, `fusion/${key}`, env.topics),
      error: grouped.get(`fusion/${key}`)?.nodeError,
      defaultExpansionState: "collapsed",
      actions: [{ type: "action", id: "remove-sensor", label: "Remove sensor", icon: "Delete", display: "inline" }],
    };
  }
  return {
    label: "Fusion",
    icon: "Walk",
    fields: { ...noticeFields, ...objectFields(top, grouped, "fusion", env.topics) },
    children,
    error: grouped.get("fusion")?.nodeError,
    actions: [
      { type: "action", id: "add-sensor", label: "Add sensor", icon: "Add", display: "inline" },
      importAction,
      { type: "action", id: "disable-fusion", label: "Disable fusion", icon: "Clear", display: "menu" },
    ],
  };
}
