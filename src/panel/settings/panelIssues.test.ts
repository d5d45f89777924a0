import { describe, expect, it } from "vitest";

import { issueText } from "./issueText";
import { defaultConfig, type LockstepConfig } from "./panelConfig";
import { POLICY_PARAMS } from "./policyParams";
import { applySettingsAction } from "./settingsActions";
import { buildSettingsNodes } from "./settingsTree";
import { configIssues } from "../hooks/usePanelSettings";

const env = { topics: undefined, publish: { available: false }, presets: [] };
const two = [{ topic: "/a" }, { topic: "/b" }];

describe("panel-level config issues", () => {
  it("one input: asks for two topics, naming the chosen policy, without schema phrases", () => {
    const config: LockstepConfig = { inputs: [{ topic: "/a" }], policy: { type: "fkie/approximate-time" } };
    const issues = configIssues(config);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/^Add at least two input topics/);
    expect(issues[0]!.message).toContain("fkie/approximate-time");
    expect(issues[0]!.message).not.toMatch(/ros\/approximate-time|slots must be/);
  });

  it("a new panel's Input topics error says to add two topics, not the schema's 'no fewer than 1 items'", () => {
    const config = defaultConfig();
    const issues = configIssues(config);
    expect(issues.map((i) => i.message).join(" ")).not.toMatch(/no fewer than|entries/);
    const nodes = buildSettingsNodes(config, { ...env, issues });
    expect(nodes.inputs!.error).toMatch(/^Add at least two input topics/);
  });

  it("a unitless duration typed in a text field is refused with the hint to add a unit", () => {
    const typed = applySettingsAction(
      { inputs: two, policy: { type: "fkie/approximate-time" } },
      { action: "update", payload: { path: ["policy", "maxTimespan"], input: "string", value: "5" } },
      { presets: {}, suggestTopic: () => "" },
    );
    const issues = configIssues(typed);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/unit/);
    expect(issues[0]!.message).toContain('"5ms"');
    const nodes = buildSettingsNodes(typed, { ...env, issues });
    expect(nodes.policy!.fields!.maxTimespan!.error).toMatch(/unit/);
    // "0" needs no unit; "50 millis" and "50ms" are the parser's business.
    expect(configIssues({ inputs: two, policy: { type: "fkie/approximate-time", maxTimespan: "0" } })).toEqual([]);
    expect(configIssues({ inputs: two, policy: { type: "fkie/approximate-time", maxTimespan: "50ms" } })).toEqual([]);
  });

  it("a negative count reaches validation (no silent clamp) and is refused naming the field", () => {
    const maxQueue = POLICY_PARAMS["fkie/approximate-time"]!.find((p) => p.key === "maxQueueSize")!;
    const config: LockstepConfig = { inputs: two, policy: { type: "fkie/approximate-time", maxQueueSize: -3 }, buffer: { policy: "queue", maxQueueSize: -3 } };
    const nodes = buildSettingsNodes(config, { ...env, issues: configIssues(config) });
    const policyField = nodes.policy!.fields!.maxQueueSize! as { min?: number; error?: string };
    const bufferField = nodes.buffer!.fields!.maxQueueSize! as { min?: number; error?: string };
    // A `min` makes the app clamp -3 to 0 before the panel sees it.
    expect(policyField.min).toBeUndefined();
    expect(bufferField.min).toBeUndefined();
    expect(policyField.error).toMatch(/-3/);
    expect(bufferField.error).toMatch(/-3/);
    // The banner names the field as the sidebar shows it, not its JSON path.
    const banner = configIssues(config).map((i) => issueText(i, config.policy.type));
    expect(banner).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^Sync policy → ${maxQueue.label}: -3`)), expect.stringMatching(/^Buffer → Max queue size: -3/)]));
  });
});
