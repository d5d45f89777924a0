import type { SettingsTreeAction, SettingsTreeField, SettingsTreeNodes, Topic } from "@foxglove/extension";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

import { importFuseYaml } from "./fuseYamlImport";
import { defaultConfig, type LockstepConfig } from "./panelConfig";
import { applySettingsAction, stampPathOfField } from "./settingsActions";
import { ACTION, buildSettingsNodes, type SettingsEnv } from "./settingsTree";
import { issuesOf, topic } from "./testing";
import { parseConfig } from "../../pipeline";

const TOPICS: Topic[] = [topic("/imu/data", "sensor_msgs/msg/Imu"), topic("/cmd_vel", "geometry_msgs/msg/Twist")];

function tree(config: LockstepConfig, over: Partial<SettingsEnv> = {}): SettingsTreeNodes {
  return buildSettingsNodes(config, { topics: TOPICS, publish: { available: true }, issues: issuesOf(config), presets: [], ...over });
}

function inputField(nodes: SettingsTreeNodes, slot: number, key: string): SettingsTreeField | undefined {
  return nodes.inputs?.children?.[`slot${slot}`]?.fields?.[key];
}

const update = (path: string[], value: unknown): SettingsTreeAction => ({ action: "update", payload: { path, input: "select", value } }) as SettingsTreeAction;
const apply = (c: LockstepConfig, a: SettingsTreeAction): LockstepConfig => applySettingsAction(c, a, { presets: {} });

describe("an input's stamp source in the settings editor", () => {
  const base: LockstepConfig = { ...defaultConfig(), inputs: [{ topic: "/imu/data" }, { topic: "/cmd_vel" }], policy: { type: "fkie/approximate-time" } };

  it("offers every topic, the ones without a header stamp labelled so", () => {
    const options = (inputField(tree(base), 1, "topic") as { options: { label: string; value: string }[] }).options;
    expect(options.map((o) => o.value)).toEqual(["/imu/data", "/cmd_vel"]);
    expect(options[1]!.label).toBe("/cmd_vel (geometry_msgs/msg/Twist, no header stamp)");
  });

  it("sets header / receive / publish, and a message path through the app's message-path field", () => {
    expect(inputField(tree(base), 0, "stampSource")).toMatchObject({ input: "select", value: "header" });
    expect(inputField(tree(base), 0, "stampPath")).toBeUndefined();

    const receive = apply(base, update(["inputs", "slot1", "stampSource"], "receive"));
    expect(receive.inputs[1]).toEqual({ topic: "/cmd_vel", stamp: "receive" });
    expect(issuesOf(receive)).toEqual([]);

    const path = apply(base, update(["inputs", "slot0", "stampSource"], "path"));
    expect(path.inputs[0]!.stamp).toBe(".header.stamp");
    expect(inputField(tree(path), 0, "stampPath")).toMatchObject({ input: "messagepath", value: "/imu/data.header.stamp", validTopics: ["/imu/data"] });

    const meta = apply(path, update(["inputs", "slot0", "stampPath"], "/imu/data.meta.time"));
    expect(meta.inputs[0]!.stamp).toBe(".meta.time");
    expect(issuesOf(meta)).toEqual([]);
    // Choosing "Message path" again keeps the path; choosing the header stamp removes the key.
    expect(apply(meta, update(["inputs", "slot0", "stampSource"], "path")).inputs[0]!.stamp).toBe(".meta.time");
    expect(apply(meta, update(["inputs", "slot0", "stampSource"], "header")).inputs[0]).toEqual({ topic: "/imu/data" });
  });

  it("reads the message-path field's value with or without the topic in front", () => {
    expect(stampPathOfField("/imu/data", "/imu/data.header.stamp")).toBe(".header.stamp");
    expect(stampPathOfField("/a b", '"/a b".meta.time')).toBe(".meta.time");
    expect(stampPathOfField("/imu/data", ".timestamp")).toBe(".timestamp");
    expect(stampPathOfField("/imu/data", "timestamp")).toBe(".timestamp");
    expect(stampPathOfField("/imu/data", "/other.stamp")).toBe(".stamp");
    expect(stampPathOfField("/imu/data", "/imu/data")).toBeUndefined();
    expect(stampPathOfField("/imu/data", "")).toBeUndefined();
  });

  it("shows why a stamp source cannot be read on the field that holds it", () => {
    const bad: LockstepConfig = { ...base, inputs: [{ topic: "/imu/data", stamp: ".meta..time" }, { topic: "/cmd_vel" }] };
    const pathField = inputField(tree(bad), 0, "stampPath");
    expect(pathField?.error).toContain("is not a stamp source");
    const unknown: LockstepConfig = { ...base, inputs: [{ topic: "/imu/data", stamp: "arrival" }, { topic: "/cmd_vel" }] };
    const source = inputField(tree(unknown), 0, "stampSource") as { value: string; error?: string; options: { value: string }[] };
    expect(source.value).toBe("arrival");
    expect(source.options.map((o) => o.value)).toContain("arrival");
    expect(source.error).toContain('"arrival" is not a stamp source');
  });
});

describe("importing a fuse YAML file into the panel's fusion settings", () => {
  const husky = JSON.parse(readFileSync("config/husky.json", "utf8")) as LockstepConfig;
  const yaml = readFileSync("config/husky.fuse.yaml", "utf8");

  it("fills the fusion section from the file, keeping the other sections and the JSON-only uuidRecipe", () => {
    const withoutFusion: LockstepConfig = { ...husky, fusion: { uuidRecipe: "ros1" } };
    const { config, notice } = importFuseYaml(withoutFusion, yaml, "husky.fuse.yaml");
    expect(notice).toEqual({ file: "husky.fuse.yaml", warnings: [] });
    expect(parseConfig(config)).toEqual(parseConfig(husky));
    const f = tree(config, { fuseYamlNotice: notice }).fusion!;
    expect(Object.keys(f.children ?? {})).toEqual(["optimizer", "motion:unicycle", "sensor:ignition", "sensor:wheel_odometry", "sensor:imu"]);
    expect(f.fields?.fuseYamlImport).toMatchObject({ readonly: true, value: "husky.fuse.yaml: imported" });
  });

  it("offers the import on the Fusion node, on and off", () => {
    const ids = (c: LockstepConfig): string[] => (tree(c).fusion!.actions ?? []).map((a) => (a.type === "action" ? a.id : ""));
    expect(ids(husky)).toContain(ACTION.importFuseYaml);
    expect(ids({ ...husky, fusion: undefined })).toContain(ACTION.importFuseYaml);
  });

  it("names ignored keys, and leaves the config as it is when the file has a wrong value", () => {
    const warned = importFuseYaml(husky, `${yaml}    reset_service: ~/reset\n`, "f.yaml");
    expect(warned.notice.warnings).toEqual(["state_estimator.ros__parameters.reset_service: not a fuse optimizer parameter or plugin section Lockstep implements; ignored"]);
    expect(tree(warned.config, { fuseYamlNotice: warned.notice }).fusion!.fields?.fuseYamlImport?.value).toContain("ignored state_estimator.ros__parameters.reset_service");

    const broken = importFuseYaml(husky, yaml.replace("lag_duration: 1.0", "lag_duration: soon"), "f.yaml");
    expect(broken.config).toBe(husky);
    expect(broken.notice.error).toBe('state_estimator.ros__parameters.lag_duration: expected a number of seconds ≥ 0 and at most 9007199 (104 days), got "soon"');
    expect(tree(husky, { fuseYamlNotice: broken.notice }).fusion!.fields?.fuseYamlImport?.error).toBe(broken.notice.error);
  });
});
