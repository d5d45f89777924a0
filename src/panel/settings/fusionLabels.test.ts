import { describe, expect, it } from "vitest";

import { fusionNodes } from "./fusionSettings";
import type { LockstepConfig } from "./panelConfig";
import { PRESETS } from "./presets";

/** How much of a label the sidebar shows at its default width before "…". */
const VISIBLE = 14;

describe("fusion field labels", () => {
  it.each(Object.keys(PRESETS))("%s: every fusion field has a short human label, distinct where the sidebar cuts it, and its key in the help", (name) => {
    const config = structuredClone(PRESETS[name]) as LockstepConfig;
    const fusion = fusionNodes(config, { topics: undefined }, new Map());
    const nodes = [fusion, ...Object.values(fusion.children ?? {})];
    for (const node of nodes) {
      const fields = Object.entries(node?.fields ?? {}).filter(([key]) => key !== "fuseYamlImport");
      for (const [key, f] of fields) {
        expect(f!.label, key).not.toMatch(/[a-z][A-Z]/); // no camelCase key as the label
        expect(f!.label.length, key).toBeLessThanOrEqual(20);
        expect(f!.help ?? "", key).toContain(key);
      }
      const cut = fields.map(([, f]) => f!.label.slice(0, VISIBLE));
      expect(new Set(cut).size, node?.label).toBe(cut.length);
    }
  });
});
