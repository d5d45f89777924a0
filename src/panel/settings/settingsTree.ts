import type {
  SettingsTreeChildren,
  SettingsTreeField,
  SettingsTreeFields,
  SettingsTreeNodes,
  Topic,
} from "@foxglove/extension";

import { groupIssues, slotKey, type ConfigIssue } from "./configErrors";
import type { FuseYamlNotice } from "./fuseYamlImport";
import { fusionNodes } from "./fusionSettings";
import { publishNamespace, type LockstepConfig } from "./panelConfig";
import { POLICY_PARAMS, POLICY_TYPES, type ParamSpec } from "./policyParams";
import { stampedTopics } from "./stampedTopics";
import { STAMP_SOURCES, stampSourceProblem } from "../../pipeline";

/** The publish status when the data source cannot publish (short enough for the sidebar to show whole). */
export const PUBLISH_UNAVAILABLE = "Source can't publish";

/** What the tree needs besides the config. */
export interface SettingsEnv {
  /** The data source's topics (undefined until the host reports them). */
  readonly topics: readonly Topic[] | undefined;
  /** Whether publishing is possible, and if not, why (shown next to the disabled switch). */
  readonly publish: { readonly available: boolean; readonly reason?: string };
  /** Validation problems of the current config (from the pipeline's parser). */
  readonly issues: readonly ConfigIssue[];
  /** Preset names offered for loading. */
  readonly presets: readonly string[];
  /** What the last "Import fuse YAML file…" did (shown on the Fusion node). */
  readonly fuseYamlNotice?: FuseYamlNotice;
}

/** Node action ids the tree uses (handled in settingsActions.ts). */
export const ACTION = {
  addInput: "add-input",
  removeInput: "remove-input",
  moveInputUp: "move-input-up",
  addSensor: "add-sensor",
  removeSensor: "remove-sensor",
  enableFusion: "enable-fusion",
  disableFusion: "disable-fusion",
  importFuseYaml: "import-fuse-yaml",
} as const;

/** The "Stamp source" choice of an input whose `stamp` is a message path. */
export const STAMP_PATH_CHOICE = "path";

/** The stamp source choice of an input's `stamp` value: a named source, or STAMP_PATH_CHOICE for a message path. */
export function stampChoice(stamp: unknown): string {
  return typeof stamp === "string" && stamp.startsWith(".") ? STAMP_PATH_CHOICE : typeof stamp === "string" && stamp !== "" ? stamp : STAMP_SOURCES[0].name;
}

/**
 * An input's stamp fields: where the stamp comes from (the named STAMP_SOURCES or a message
 * path), and for a message path the app's own message-path field on the input's topic (its
 * autocompletion offers the topic's fields; the value keeps the topic in front, see
 * `stampPathOfField`).
 */
export function stampFields(input: { topic: string; stamp?: unknown }, issue?: string): SettingsTreeFields {
  const choice = stampChoice(input.stamp);
  // The pipeline checks the source when it is built, not when the config is parsed: say it here.
  const error = issue ?? (typeof input.stamp === "string" ? stampSourceProblem(input.stamp) : undefined);
  const known = STAMP_SOURCES.some((s) => s.name === choice) || choice === STAMP_PATH_CHOICE;
  const fields: SettingsTreeFields = {
    stampSource: {
      label: "Stamp source",
      input: "select",
      value: choice,
      options: [
        ...STAMP_SOURCES.map((s) => ({ label: s.label, value: s.name })),
        { label: "Message path", value: STAMP_PATH_CHOICE },
        ...(known ? [] : [{ label: `${choice} (unknown)`, value: choice }]),
      ],
      help: [...STAMP_SOURCES.map((s) => `${s.label}: ${s.help}`), "Message path: a field of the message holding {sec, nsec}, {sec, nanosec}, integer or decimal-string nanoseconds"].join(". "),
      error: choice === STAMP_PATH_CHOICE ? undefined : error,
    },
  };
  if (choice === STAMP_PATH_CHOICE) {
    fields.stampPath = {
      label: "Stamp path",
      input: "messagepath",
      value: `${input.topic}${String(input.stamp)}`,
      validTopics: input.topic === "" ? undefined : [input.topic],
      help: 'e.g. .timestamp, .header.stamp or .meta.time of the topic\'s messages',
      error,
    };
  }
  return fields;
}

/** Text shown for a JSON value in a string field ("unlimited" for null). */
export function durationText(value: unknown): string | undefined {
  // eslint-disable-next-line @foxglove/strict-equality -- null (unlimited) differs from undefined (default)
  if (value === null) {
    return "unlimited";
  }
  if (typeof value === "string" || typeof value === "number") {
    return String(value);
  }
  return undefined;
}

function getPath(obj: Record<string, unknown>, dotted: string): unknown {
  let cur: unknown = obj;
  for (const k of dotted.split(".")) {
    if (typeof cur !== "object" || cur == undefined) {
      return undefined;
    }
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/**
 * What an empty duration field shows: its default, and the other kind of value it takes (a
 * duration when the default is unlimited, "unlimited" when it may be and is not by default).
 */
export function durationPlaceholder(spec: Pick<ParamSpec, "defaultText" | "nullable">): string {
  if (spec.defaultText === "") {
    return 'required, e.g. "50ms"';
  }
  const other = spec.nullable !== true ? "" : spec.defaultText === "unlimited" ? ', or e.g. "50ms"' : ', or "unlimited"';
  return `${spec.defaultText} (default)${other}`;
}

/** The settings field that edits one policy parameter holding `value`. */
export function paramField(spec: ParamSpec, value: unknown, slots: number, error?: string): SettingsTreeField {
  const common = { label: spec.label, help: spec.help, error };
  const numeric = { ...common, input: "number", value: typeof value === "number" ? value : undefined } as const;
  switch (spec.kind) {
    case "int":
      return {
        ...numeric,
        // No `min`: the app would clamp a typed -3 to 0 silently; the validator names it instead.
        step: 1,
        precision: 0,
        placeholder: spec.defaultText === "" ? "required" : `${spec.defaultText} (default)`,
      };
    case "float":
      return { ...numeric, step: 0.1, placeholder: `${spec.defaultText} (default)` };
    case "duration":
      return {
        ...common,
        input: "string",
        value: durationText(value),
        placeholder: durationPlaceholder(spec),
      };
    case "boolean":
      return { ...common, input: "boolean", value: value === true };
    case "trigger": {
      const options = [
        { label: "any slot", value: "any" },
        ...Array.from({ length: Math.max(slots, 1) }, (_, i) => ({ label: `slot ${i}`, value: String(i) })),
      ];
      return {
        ...common,
        input: "select",
        value: typeof value === "number" || typeof value === "string" ? String(value) : "0",
        options,
      };
    }
  }
}

function topicField(topic: string, topics: readonly Topic[] | undefined, error?: string): SettingsTreeField {
  // Topics with a header stamp first; the others need a stamp source (or a policy that takes
  // headerless messages), which the label says.
  const stamped = stampedTopics(topics);
  const options = [
    ...stamped.map((t) => ({ label: `${t.name} (${t.schemaName})`, value: t.name })),
    ...(topics ?? []).filter((t) => !stamped.includes(t)).map((t) => ({ label: `${t.name} (${t.schemaName}, no header stamp)`, value: t.name })),
  ];
  const known = topic === "" || options.some((o) => o.value === topic);
  if (!known) {
    options.unshift({ label: `${topic} (not in this data source)`, value: topic });
  }
  if (topic === "") {
    options.unshift({ label: "(choose a topic)", value: "" });
  }
  return {
    label: "Topic",
    input: "select",
    value: topic,
    options,
    error:
      error ??
      (topic === ""
        ? "Choose a topic for this slot"
        : !known && topics != undefined
          ? `${topic} is not among the data source's topics`
          : undefined),
  };
}

/**
 * Builds the panel's settings tree from its config. Pure: the same config and env give the same
 * nodes. Every validation issue appears on the field that holds the value (or on its node).
 */
export function buildSettingsNodes(config: LockstepConfig, env: SettingsEnv): SettingsTreeNodes {
  const policyType = config.policy.type;
  const grouped = groupIssues(env.issues, policyType);
  const errAt = (node: string, field: string): string | undefined => grouped.get(node)?.fields.get(field);
  const nodeErr = (node: string): string | undefined => {
    const g = grouped.get(node);
    if (!g) {
      return undefined;
    }
    // Issues on fields this tree does not show surface on the node, never disappear.
    return g.nodeError;
  };
  const params = POLICY_PARAMS[policyType] ?? [];
  const slotParams = params.filter((p) => p.perSlot === true);
  const slots = config.inputs.length;

  const inputChildren: SettingsTreeChildren = {};
  config.inputs.forEach((input, i) => {
    const key = `inputs/${slotKey(i)}`;
    const fields: SettingsTreeFields = {
      topic: topicField(input.topic, env.topics, errAt(key, "topic")),
      ...stampFields(input, errAt(key, "stamp")),
    };
    for (const spec of slotParams) {
      const arr = config.policy[spec.key];
      fields[spec.key] = paramField(spec, Array.isArray(arr) ? arr[i] : undefined, slots, errAt(key, spec.key));
    }
    inputChildren[slotKey(i)] = {
      label: `Slot ${i}${input.topic !== "" ? `: ${input.topic}` : ""}`,
      icon: "Topic",
      fields,
      error: nodeErr(key),
      actions: [
        ...(i > 0 ? [{ type: "action" as const, id: ACTION.moveInputUp, label: "Move up", icon: "MoveUp" as const }] : []),
        { type: "action", id: ACTION.removeInput, label: "Remove slot", icon: "Delete", display: "inline" },
      ],
    };
  });

  const policyFields: SettingsTreeFields = {
    type: {
      label: "Type",
      input: "select",
      value: policyType,
      options: [
        ...POLICY_TYPES.map((t) => ({ label: t, value: t })),
        ...(POLICY_TYPES.includes(policyType) ? [] : [{ label: `${policyType} (unknown)`, value: policyType }]),
      ],
      error: errAt("policy", "type"),
    },
  };
  for (const spec of params) {
    if (spec.perSlot !== true) {
      policyFields[spec.key] = paramField(spec, getPath(config.policy, spec.key), slots, errAt("policy", spec.key));
    }
  }
  // Issues on keys the policy does not have (typos from hand-edited JSON) still get a field.
  for (const [field, message] of grouped.get("policy")?.fields ?? []) {
    policyFields[field] ??= {
      label: field,
      input: "string",
      value: durationText(getPath(config.policy, field)) ?? JSON.stringify(getPath(config.policy, field)),
      error: message,
      readonly: true,
    };
  }

  const buffer = config.buffer;
  const canPublish = env.publish.available;
  const publishFields: SettingsTreeFields = {
    enabled: {
      label: "Publish",
      input: "boolean",
      value: canPublish && config.publish?.enabled === true,
      disabled: !canPublish,
      help: canPublish
        ? "Republish synchronized tuples and fusion output under the namespace"
        : (env.publish.reason ?? "This data source cannot publish"),
      error: errAt("publish", "enabled"),
    },
    namespace: {
      label: "Namespace",
      input: "string",
      value: config.publish?.namespace ?? publishNamespace(config),
      placeholder: "/lockstep",
      error: errAt("publish", "namespace"),
    },
  };
  if (!canPublish) {
    // The field's value is cut at about 25 characters: a short verdict, the reason in the help.
    publishFields.status = {
      label: "Status",
      input: "string",
      readonly: true,
      value: PUBLISH_UNAVAILABLE,
      help: env.publish.reason ?? "This data source cannot publish",
    };
  }

  const nodes: SettingsTreeNodes = {
    general: {
      label: "Presets",
      icon: "Star",
      error: nodeErr("general"),
      defaultExpansionState: "collapsed",
      fields: {
        preset: {
          label: "Load preset",
          input: "select",
          value: "",
          options: [{ label: "(choose to load)", value: "" }, ...env.presets.map((p) => ({ label: p, value: p }))],
          help: "Replaces the whole configuration with the preset (publishing stays off)",
        },
      },
    },
    inputs: {
      label: "Input topics",
      icon: "Topic",
      error: nodeErr("inputs"),
      children: inputChildren,
      actions: [{ type: "action", id: ACTION.addInput, label: "Add input", icon: "Add", display: "inline" }],
    },
    policy: { label: "Sync policy", icon: "Sync", fields: policyFields, error: nodeErr("policy") },
    buffer: {
      label: "Buffer",
      icon: "Cells",
      defaultExpansionState: "collapsed",
      error: nodeErr("buffer"),
      fields: {
        policy: {
          label: "Mode",
          input: "select",
          value: buffer?.policy ?? "",
          options: [
            { label: "none (direct)", value: "" },
            { label: "queue", value: "queue" },
            { label: "passthru", value: "passthru" },
            { label: "discard", value: "discard" },
          ],
          error: errAt("buffer", "policy"),
        },
        ...(buffer != undefined
          ? {
              maxQueueSize: {
                label: "Max queue size",
                input: "number" as const,
                value: typeof buffer.maxQueueSize === "number" ? buffer.maxQueueSize : undefined,
                step: 1,
                precision: 0,
                placeholder: "0 = unlimited",
                error: errAt("buffer", "maxQueueSize"),
              },
            }
          : {}),
      },
    },
    fusion: fusionNodes(config, env, grouped),
    publish: { label: "Publish", icon: "Share", fields: publishFields, error: nodeErr("publish") },
  };
  return nodes;
}
