import { describe, expect, it } from "vitest";

import { configIssues } from "./usePanelSettings";
import husky from "../../../config/husky.json";
import { sensorKey } from "../settings/fusionSettings";
import type { LockstepConfig } from "../settings/panelConfig";
import { PRESETS } from "../settings/presets";
import { buildSettingsNodes } from "../settings/settingsTree";

const env = { topics: undefined, publish: { available: false }, presets: [] };

/** The fusion section's parts the tests edit. */
interface FusionShape {
  optimizer: Record<string, unknown>;
  motionModels: Record<string, Record<string, unknown>>;
  sensors: Record<string, Record<string, unknown>>;
}

function withFusion(edit: (fusion: FusionShape) => void): LockstepConfig {
  const config = structuredClone(husky) as unknown as LockstepConfig;
  edit(config.fusion as unknown as FusionShape);
  return config;
}

describe("configIssues with fusion", () => {
  it.each(Object.keys(PRESETS))("the preset %s has no issue and a fusion section", (name) => {
    const preset = structuredClone(PRESETS[name]) as LockstepConfig;
    expect(configIssues(preset)).toEqual([]);
    expect(buildSettingsNodes(preset, { ...env, issues: [] }).fusion).toBeDefined();
  });

  it("puts each fusion problem on the field that holds it", () => {
    const config = withFusion((f) => {
      f.optimizer.lag = "soon";
      f.motionModels.unicycle!.type = "fuse_models::NoSuchModel";
    });
    const issues = configIssues(config);
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(["fusion.optimizer.lag", "fusion.motionModels.unicycle.type"]));
    const nodes = buildSettingsNodes(config, { ...env, issues });
    const fusion = nodes.fusion!;
    expect(fusion.children!.optimizer!.fields!.lag!.error).toMatch(/soon|duration/i);
    const motion = Object.values(fusion.children!).find((c) => c?.label === "Motion model unicycle")!;
    expect(motion.fields!.type!.error).toMatch(/NoSuchModel|registered|unknown/i);
  });

  it("a sensor's bad parameter lands on that sensor's field", () => {
    const name = Object.keys((husky as { fusion: { sensors: Record<string, unknown> } }).fusion.sensors).find((n) => n !== "ignition")!;
    const config = withFusion((f) => {
      f.sensors[name]!.motionModels = ["nowhere"];
    });
    const issues = configIssues(config);
    expect(issues.some((i) => i.path.startsWith(`fusion.sensors.${name}`))).toBe(true);
    const node = buildSettingsNodes(config, { ...env, issues }).fusion!.children![sensorKey(name)]!;
    expect(node.error ?? node.fields!.motionModels!.error).toMatch(/nowhere/);
  });
});
