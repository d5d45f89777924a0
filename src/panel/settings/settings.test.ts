import type { SettingsTreeAction, SettingsTreeField, SettingsTreeNode, Topic } from "@foxglove/extension";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { analysisKey } from "./analysisKey";
import { locateIssue, splitJsonPath } from "./configErrors";
import { configFromState, defaultConfig, type LockstepConfig } from "./panelConfig";
import { POLICY_PARAMS, POLICY_TYPES } from "./policyParams";
import { applySettingsAction, paramValue } from "./settingsActions";
import { buildSettingsNodes, PUBLISH_UNAVAILABLE, type SettingsEnv } from "./settingsTree";
import { issuesOf, topic } from "./testing";
import { POLICY_TYPES as PIPELINE_POLICY_TYPES } from "../../pipeline";

const TOPICS: Topic[] = [
  topic("/imu/data", "sensor_msgs/Imu"),
  topic("/odom", "nav_msgs/Odometry"),
  topic("/fix", "sensor_msgs/NavSatFix"),
];

function env(config: LockstepConfig, over: Partial<SettingsEnv> = {}): SettingsEnv {
  return { topics: TOPICS, publish: { available: true }, issues: issuesOf(config), presets: ["p"], ...over };
}

const update = (path: string[], input: string, value: unknown): SettingsTreeAction =>
  ({ action: "update", payload: { path, input, value } }) as SettingsTreeAction;
const node = (path: string[]): SettingsTreeAction => ({ action: "perform-node-action", payload: { id: path[path.length - 1]!, path: path.slice(0, -1) } });
const apply = (c: LockstepConfig, a: SettingsTreeAction): LockstepConfig => applySettingsAction(c, a, { presets: {}, suggestTopic: () => "/fix" });

function field(nodes: Record<string, SettingsTreeNode | undefined>, path: string[], key: string): SettingsTreeField {
  let n: SettingsTreeNode | undefined = nodes[path[0]!];
  for (const p of path.slice(1)) {
    n = n?.children?.[p];
  }
  const f = n?.fields?.[key];
  if (!f) {
    throw new Error(`no field ${path.join("/")}.${key}`);
  }
  return f;
}

function twoInputs(policy: LockstepConfig["policy"] = { type: "fkie/approximate-time" }): LockstepConfig {
  return { ...defaultConfig(), inputs: [{ topic: "/imu/data" }, { topic: "/odom" }], policy };
}

describe("settings tree ↔ config", () => {
  it("offers exactly the pipeline's policy types", () => {
    expect([...POLICY_TYPES]).toEqual([...PIPELINE_POLICY_TYPES]);
  });

  it("starts from the default config or a copy of the saved state", () => {
    expect(configFromState(undefined)).toEqual(defaultConfig());
    expect(configFromState("junk")).toEqual(defaultConfig());
    const saved = { inputs: [{ topic: "/a" }, { x: 1 }], policy: { type: "ros/exact-time", queueSize: 3 }, extra: 1 };
    const c = configFromState(saved);
    expect(c.inputs).toEqual([{ topic: "/a" }, { x: 1, topic: "" }]);
    expect(c.policy).toEqual({ type: "ros/exact-time", queueSize: 3 });
    expect(c.extra).toBe(1);
    expect(c.policy).not.toBe(saved.policy);
  });

  it("keeps the saved view choices that still mean something, and leaves the rest to their defaults", () => {
    const base = { inputs: [{ topic: "/a" }], policy: { type: "fkie/fifo" } };
    const kept = configFromState({ ...base, view: { tab: "trajectory", compare: "ros/exact-time", rawPlacement: "start-aligned" } });
    expect(kept.view).toEqual({ tab: "trajectory", compare: "ros/exact-time", rawPlacement: "start-aligned" });
    const partly = configFromState({ ...base, view: { tab: 7, compare: "ros/nearest", rawPlacement: "start-aligned", zoom: 3 } });
    expect(partly.view).toEqual({ rawPlacement: "start-aligned" });
    expect(issuesOf(partly)).toEqual([]);
    for (const junk of [{ tab: "", rawPlacement: "sideways" }, "trajectory", null, [1]]) {
      const c = configFromState({ ...base, view: junk });
      expect(c).not.toHaveProperty("view");
      expect(c).toEqual(configFromState(base));
    }
  });

  it("whatever a layout saved as its view, the config the panel starts from has no issue there", () => {
    const base = { inputs: [{ topic: "/a" }], policy: { type: "fkie/fifo" } };
    const anyView = fc.oneof(
      fc.jsonValue(),
      fc.record(
        { tab: fc.oneof(fc.string(), fc.jsonValue()), compare: fc.oneof(fc.constantFrom(...POLICY_TYPES, "ros/nearest"), fc.jsonValue()), rawPlacement: fc.oneof(fc.constantFrom("as-recorded", "start-aligned", "sideways"), fc.jsonValue()) },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(anyView, (view) => {
        const c = configFromState({ ...base, view });
        expect(issuesOf(c)).toEqual([]);
        expect(c.policy).toEqual(base.policy);
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it("view choices never change what is computed, and a preset keeps them", () => {
    const c = { ...twoInputs(), view: { tab: "drops", rawPlacement: "start-aligned" as const } };
    expect(analysisKey(c)).toBe(analysisKey(twoInputs()));
    expect(analysisKey({ ...c, view: { tab: "tuples", compare: "fkie/fifo" } })).toBe(analysisKey(c));
    const preset = { inputs: [{ topic: "/x" }], policy: { type: "fkie/fifo" } };
    const loaded = applySettingsAction(c, update(["general", "preset"], "select", "p"), { presets: { p: preset } });
    expect(loaded.inputs).toEqual([{ topic: "/x" }]);
    expect(loaded.view).toEqual(c.view);
    expect(loaded.view).not.toBe(c.view);
  });

  it("adds, edits, moves and removes input slots (per-slot arrays follow)", () => {
    let c = defaultConfig();
    c = apply(c, node(["inputs", "add-input"]));
    expect(c.inputs).toEqual([{ topic: "/fix" }]);
    c = apply(c, update(["inputs", "slot0", "topic"], "select", "/imu/data"));
    c = apply(c, node(["inputs", "add-input"]));
    c = apply(c, update(["inputs", "slot1", "minDistance"], "string", "15ms"));
    expect(c.policy.minDistance).toEqual([0, "15ms"]);
    c = apply(c, node(["inputs", "slot1", "move-input-up"]));
    expect(c.inputs.map((i) => i.topic)).toEqual(["/fix", "/imu/data"]);
    expect(c.policy.minDistance).toEqual(["15ms", 0]);
    expect(issuesOf(c)).toEqual([]);
    c = apply(c, node(["inputs", "slot0", "remove-input"]));
    expect(c.inputs).toEqual([{ topic: "/imu/data" }]);
    expect(c.policy.minDistance).toEqual([0]);
    c = apply(c, update(["inputs", "slot0", "minDistance"], "string", ""));
    expect(c.policy.minDistance).toBeUndefined();
  });

  it("maps every parameter field of every policy type to its JSON key and back", () => {
    for (const type of POLICY_TYPES) {
      let c = apply(twoInputs(), update(["policy", "type"], "select", type));
      expect(c.policy.type).toBe(type);
      expect(issuesOf(c)).toEqual([]); // the defaults a switch fills in are valid
      for (const spec of POLICY_PARAMS[type]!) {
        const sample =
          spec.kind === "int" ? 7 : spec.kind === "float" ? 0.5 : spec.kind === "boolean" ? true : spec.kind === "trigger" ? "1" : "20ms";
        const path = spec.perSlot === true ? ["inputs", "slot1", spec.key] : ["policy", spec.key];
        c = apply(c, update(path, spec.kind === "int" || spec.kind === "float" ? "number" : "string", sample));
        const nodes = buildSettingsNodes(c, env(c));
        const f = field(nodes, path.slice(0, -1), spec.key);
        if (spec.perSlot === true) {
          expect((c.policy[spec.key] as unknown[])[1]).toBe("20ms");
          expect(f.value).toBe("20ms");
        } else if (spec.key.includes(".")) {
          const [a, b] = spec.key.split(".");
          expect((c.policy[a!] as Record<string, unknown>)[b!]).toBe(sample);
          expect(f.value).toBe(sample);
        } else {
          expect(c.policy[spec.key]).toEqual(paramValue(spec, sample));
          expect(f.value).toBe(spec.kind === "trigger" ? "1" : sample);
        }
      }
      expect(issuesOf(c)).toEqual([]);
    }
  });

  it("labels every field of the sync tree so that the sidebar shows it whole, for every policy type", () => {
    // The apps' sidebar shows about 15 characters of a label at its default width ("ROS 1
    // out-of-or…" was what it made of one): the help text says the rest.
    const VISIBLE = 15;
    for (const type of POLICY_TYPES) {
      const c = apply(twoInputs(), update(["policy", "type"], "select", type));
      const nodes = buildSettingsNodes({ ...c, buffer: { policy: "queue" } }, env(c));
      const pending = Object.values(nodes);
      const labels: string[] = [];
      for (let n = pending.pop(); n != undefined; n = pending.pop()) {
        pending.push(...Object.values(n.children ?? {}));
        labels.push(...Object.values(n.fields ?? {}).map((f) => f!.label));
      }
      for (const spec of POLICY_PARAMS[type]!) {
        expect(labels, type).toContain(spec.label);
      }
      expect(labels.filter((l) => l.length > VISIBLE), type).toEqual([]);
    }
  });

  it('stores "unlimited" as null, unitless text as typed (refused, see panelIssues), and empty text as "library default"', () => {
    let c = twoInputs();
    c = apply(c, update(["policy", "maxAge"], "string", "unlimited"));
    expect(c.policy.maxAge).toBeNull();
    expect(field(buildSettingsNodes(c, env(c)), ["policy"], "maxAge").value).toBe("unlimited");
    c = apply(c, update(["policy", "maxTimespan"], "string", "250"));
    expect(c.policy.maxTimespan).toBe("250");
    c = apply(c, update(["policy", "maxTimespan"], "string", ""));
    expect("maxTimespan" in c.policy).toBe(false);
    expect(issuesOf(c)).toEqual([]);
  });

  it("an empty duration field offers the kind of value its default is not", () => {
    const c = twoInputs();
    expect(c.policy.type).toBe("fkie/approximate-time");
    const nodes = buildSettingsNodes(c, env(c));
    const placeholder = (key: string): unknown => (field(nodes, ["policy"], key) as { placeholder?: string }).placeholder;
    // maxTimespan is unlimited by default: the placeholder offers a duration, not "unlimited" again.
    expect(placeholder("maxTimespan")).toBe('unlimited (default), or e.g. "50ms"');
    // maxAge is 1 s by default and may be unlimited.
    expect(placeholder("maxAge")).toMatch(/^1\s?s \(default\), or "unlimited"$/);
  });

  it("shows each validation error on the field that holds the value", () => {
    const cases: [LockstepConfig, string[], string][] = [
      [apply(twoInputs(), update(["policy", "maxTimespan"], "string", "fast")), ["policy"], "maxTimespan"],
      [apply(twoInputs(), update(["policy", "maxQueueSize"], "number", -1)), ["policy"], "maxQueueSize"],
      [apply(twoInputs(), update(["inputs", "slot1", "minDistance"], "string", "1.5 parsecs")), ["inputs", "slot1"], "minDistance"],
      [apply(twoInputs({ type: "ros/approximate-time", queueSize: 10 }), update(["policy", "agePenalty"], "number", -2)), ["policy"], "agePenalty"],
      [apply(twoInputs({ type: "ros/approximate-epsilon-time", queueSize: 10, epsilon: "1ms" }), update(["policy", "epsilon"], "string", "")), ["policy"], "epsilon"],
      [apply(twoInputs({ type: "ros/exact-time", queueSize: 10 }), update(["policy", "queueSize"], "number", undefined)), ["policy"], "queueSize"],
      [{ ...twoInputs(), buffer: { policy: "queue", maxQueueSize: 0 } }, ["buffer"], "maxQueueSize"],
      [{ ...twoInputs(), publish: { enabled: true, namespace: "no-slash" } }, ["publish"], "namespace"],
      [{ ...twoInputs(), inputs: [{ topic: "/imu/data" }, { topic: "" }] }, ["inputs", "slot1"], "topic"],
    ];
    for (const [c, path, key] of cases) {
      const issues = issuesOf(c);
      expect(issues.length, `${path.join("/")}.${key} should be invalid in ${JSON.stringify(c)}`).toBeGreaterThan(0);
      const f = field(buildSettingsNodes(c, env(c)), path, key);
      expect(f.error, `${path.join("/")}.${key}`).toBeTruthy();
    }
  });

  it("never hides an issue: unknown paths land on a node", () => {
    expect(locateIssue("/transforms/0/child", "fkie/approximate-time")).toEqual({ node: ["general"] });
    expect(locateIssue("/policy/bogus", "fkie/approximate-time")).toEqual({ node: ["policy"], field: "bogus" });
    const c = { ...twoInputs(), policy: { type: "fkie/approximate-time", bogus: 1 } };
    const nodes = buildSettingsNodes(c, env(c));
    expect(field(nodes, ["policy"], "bogus").error).toBeTruthy();
    const t = { ...twoInputs(), transforms: [{ parent: "a", child: "a", translation: [0, 0, 0] }] };
    expect(buildSettingsNodes(t, env(t)).general?.error).toMatch(/also the parent/);
  });

  it("parses JSON paths in pointer, JSONPath and dotted spellings", () => {
    expect(splitJsonPath("/policy/minDistance/1")).toEqual(["policy", "minDistance", "1"]);
    expect(splitJsonPath("$.policy.minDistance[1]")).toEqual(["policy", "minDistance", "1"]);
    expect(splitJsonPath("inputs[0].topic")).toEqual(["inputs", "0", "topic"]);
    expect(splitJsonPath("/a~1b")).toEqual(["a/b"]);
  });

  it("flags a topic the data source does not have, and an empty one", () => {
    const c = { ...twoInputs(), inputs: [{ topic: "/gone" }, { topic: "" }] };
    const nodes = buildSettingsNodes(c, env(c));
    expect(field(nodes, ["inputs", "slot0"], "topic").error).toMatch(/not among/);
    expect(field(nodes, ["inputs", "slot1"], "topic").error).toBeTruthy();
    const none = buildSettingsNodes(defaultConfig(), env(defaultConfig()));
    expect(none.inputs?.error).toBeTruthy();
  });

  it("buffer, publish and presets", () => {
    let c = twoInputs();
    c = apply(c, update(["buffer", "policy"], "select", "queue"));
    c = apply(c, update(["buffer", "maxQueueSize"], "number", 5));
    expect(c.buffer).toEqual({ policy: "queue", maxQueueSize: 5 });
    c = apply(c, update(["buffer", "policy"], "select", ""));
    expect(c.buffer).toBeUndefined();
    c = apply(c, update(["publish", "enabled"], "boolean", true));
    c = apply(c, update(["publish", "namespace"], "string", " /sync "));
    expect(c.publish).toEqual({ enabled: true, namespace: "/sync" });
    const preset = { inputs: [{ topic: "/x" }], policy: { type: "fkie/fifo" }, publish: { enabled: true, namespace: "/p" } };
    const loaded = applySettingsAction(c, update(["general", "preset"], "select", "p"), { presets: { p: preset } });
    expect(loaded).toEqual({ ...preset, publish: { enabled: false, namespace: "/p" } });
    expect(preset.publish.enabled).toBe(true); // the preset itself is not modified
  });

  it("disables the publish switch with the reason when the source cannot publish", () => {
    const c = { ...twoInputs(), publish: { enabled: true, namespace: "/lockstep" } };
    const nodes = buildSettingsNodes(c, env(c, { publish: { available: false, reason: "no clientPublish" } }));
    expect(field(nodes, ["publish"], "enabled")).toMatchObject({ disabled: true, value: false, help: "no clientPublish" });
    expect(field(nodes, ["publish"], "status")).toMatchObject({ readonly: true, value: PUBLISH_UNAVAILABLE, help: "no clientPublish" });
    expect(PUBLISH_UNAVAILABLE.length).toBeLessThanOrEqual(25);
    const ok = buildSettingsNodes(c, env(c));
    expect(field(ok, ["publish"], "enabled")).toMatchObject({ disabled: false, value: true });
  });

  it("fusion: enable, add/edit/remove sensors, motion model, optimizer, disable", () => {
    let c = twoInputs();
    expect(buildSettingsNodes(c, env(c)).fusion?.label).toBe("Fusion (off)");
    c = apply(c, node(["fusion", "enable-fusion"]));
    expect(Object.keys(c.fusion!)).toEqual(["optimizer", "motionModels", "sensors"]);
    c = apply(c, node(["fusion", "add-sensor"]));
    c = apply(c, update(["fusion", "sensor:sensor0", "topic"], "select", "/odom"));
    c = apply(c, update(["fusion", "sensor:sensor0", "motionModels"], "string", "unicycle_motion_model, other"));
    c = apply(c, update(["fusion", "optimizer", "lag"], "string", "1s"));
    c = apply(c, update(["fusion", "motion:unicycle_motion_model", "type"], "select", "fuse_models::Unicycle2D"));
    const sensors = c.fusion!.sensors as Record<string, Record<string, unknown>>;
    expect(sensors.sensor0).toEqual({ type: "fuse_models::Odometry2D", motionModels: ["unicycle_motion_model", "other"], topic: "/odom" });
    expect((c.fusion!.optimizer as Record<string, unknown>).lag).toBe("1s");
    const nodes = buildSettingsNodes(c, env(c));
    expect(field(nodes, ["fusion", "sensor:sensor0"], "topic").value).toBe("/odom");
    expect(field(nodes, ["fusion", "optimizer"], "lag").value).toBe("1s");
    expect(locateIssue("/fusion/sensors/sensor0/topic", "fkie/fifo")).toEqual({ node: ["fusion", "sensor:sensor0"], field: "topic" });
    c = apply(c, node(["fusion", "sensor:sensor0", "remove-sensor"]));
    expect(c.fusion!.sensors).toEqual({});
    c = apply(c, node(["fusion", "disable-fusion"]));
    expect(c.fusion).toBeUndefined();
  });

  it("shows the fuse tutorial preset's fusion section", () => {
    const c = configFromState({
      inputs: [{ topic: "/odom" }],
      policy: { type: "fkie/fifo" },
      fusion: { uuidRecipe: "ros1", optimizer: { lag: "0.5s" }, motionModels: { m: { type: "fuse_models::Unicycle2D" } }, sensors: { odometry_sensor: { type: "fuse_models::Odometry2D", topic: "/odom" } } },
    });
    const nodes = buildSettingsNodes(c, env(c));
    expect(Object.keys(nodes.fusion?.children ?? {})).toEqual(["optimizer", "motion:m", "sensor:odometry_sensor"]);
    expect(field(nodes, ["fusion"], "uuidRecipe").value).toBe("ros1");
  });

  it("ignores unknown actions and paths (returns the same config)", () => {
    const c = twoInputs();
    expect(apply(c, { action: "reorder-children", payload: { path: ["inputs"], fromKey: "slot0", toKey: "slot1", position: "after" } })).toBe(c);
    expect(apply(c, update(["nowhere"], "string", "x"))).toBe(c);
    expect(apply(c, update(["inputs", "slot9", "topic"], "select", "/x"))).toBe(c);
    expect(apply(c, node(["inputs", "bogus-action"]))).toBe(c);
  });
});
