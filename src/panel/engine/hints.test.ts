import { describe, expect, it } from "vitest";

import type { EngineStats } from "./engineTypes";
import { tuningHints } from "./hints";

function stats(policyType: string): EngineStats {
  const t = (topic: string): EngineStats["topics"][number] => ({ topic, messages: 100, matched: 90, dropped: 10, rate: 10 });
  return {
    policyType,
    tuples: 90,
    drops: {},
    topics: [t("/a"), t("/b")],
    suggested: { minDistance: [200e6, 50e6], maxTimespan: 20e6, queueSize: [3, 3], maxQueueSize: 4 },
  };
}

const suggestion = (type: string, policy: Record<string, unknown> = {}): string =>
  tuningHints(stats(type), { type, ...policy }).find((h) => h.startsWith("Suggested from the data"))!;

describe("tuning hints", () => {
  it("name the selected policy's own lower-bound parameter", () => {
    const ros = suggestion("ros/approximate-time", { queueSize: 10 });
    expect(ros).toContain("interMessageLowerBound [200ms, 50ms]");
    expect(ros).not.toContain("minDistance");
    expect(suggestion("fkie/approximate-time")).toContain("minDistance [200ms, 50ms]");
  });

  it("leave out parameters the selected policy does not have", () => {
    const exact = tuningHints(stats("ros/exact-time"), { type: "ros/exact-time", queueSize: 10 }).join(" ");
    expect(exact).not.toMatch(/minDistance|interMessageLowerBound|maxTimespan/);
  });
});
