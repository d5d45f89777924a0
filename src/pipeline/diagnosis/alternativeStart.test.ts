import { describe, expect, it } from "vitest";

import { alternativeStart } from "./alternativeStart";
import type { TraceFacts } from "./facts";
import { familyOf } from "./searchSpace";
import type { PolicyConfig } from "../config";
import { parseConfig } from "../parseConfig";

/** Facts with only what the start reads: two inputs at 100 Hz and 10 Hz. */
const FACTS = { topics: [{ period: { median: 10_000_000 } }, { period: { median: 100_000_000 } }] } as unknown as TraceFacts;

function startOf(from: Record<string, unknown>, type: string): Record<string, unknown> {
  const policy = parseConfig({ slots: 2, policy: from }).policy;
  const alt = familyOf(policy.type).find((p) => p.type === type)!;
  const start = alternativeStart(alt, policy, FACTS) as unknown as Record<string, unknown>;
  // A complete config the pipeline takes as it is.
  expect(() => parseConfig({ slots: 2, policy: start as unknown as PolicyConfig })).not.toThrow();
  return start;
}

describe("where the search of another policy of the family starts", () => {
  it("carries the configured queue size over, whether the alternative requires one or not", () => {
    expect(startOf({ type: "fkie/exact-time", maxQueueSize: 7 }, "fkie/approximate-time")).toEqual({ type: "fkie/approximate-time", maxQueueSize: 7 });
    expect(startOf({ type: "ros/exact-time", queueSize: 7 }, "ros/approximate-time")).toEqual({ type: "ros/approximate-time", queueSize: 7 });
    expect(startOf({ type: "python/exact-time", queueSize: 7 }, "python/approximate-time")).toEqual({ type: "python/approximate-time", queueSize: 7, slop: 0 });
  });

  it("without a configured queue size (or fkie's 0, unlimited): 10 where the alternative requires one, its default elsewhere", () => {
    expect(startOf({ type: "fkie/exact-time", maxQueueSize: 0 }, "fkie/approximate-time")).toEqual({ type: "fkie/approximate-time" });
    expect(startOf({ type: "fkie/exact-time" }, "fkie/approximate-time")).toEqual({ type: "fkie/approximate-time" });
  });

  it("a required tolerance on a set's timespan (ROS's epsilon, python's slop above) starts at 0", () => {
    const epsilon = startOf({ type: "ros/approximate-time", queueSize: 5 }, "ros/approximate-epsilon-time");
    expect(epsilon).toEqual({ type: "ros/approximate-epsilon-time", queueSize: 5, epsilon: 0 });
  });
});
