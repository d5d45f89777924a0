import { describe, expect, it } from "vitest";

import { ApproximateTime } from "./ApproximateTime";
import { generateW3 } from "../../../../bench/w3";

/**
 * W3 (shared/bench/W3.md) with N = 100,000 through the bare policy, configured as W3.md says
 * (max queue size 10, no age or timespan limit). The expected figures come from a separate C++
 * rendition of upstream's ApproximateTime (approximate_time_impl.hpp, ROS 2, std::deque +
 * std::optional, int64 stamps) run on the same stream, not from this implementation:
 * 16,667 sets, 49,998 messages left unused, W3 output hash 0022d05abb311547.
 */
describe("fkie ApproximateTime on W3", () => {
  it("matches the C++ rendition of upstream exactly (output hash over every set)", () => {
    const { topics, stamps } = generateW3(100_000);
    const policy = new ApproximateTime<number>(3, { maxQueueSize: 10, maxAge: null });
    const MASK = (1n << 64n) - 1n;
    let h = 1469598103934665603n;
    let sets = 0;
    const reasons = new Map<string, number>();
    policy.bind({
      emit: (items, s) => {
        sets++;
        expect(items.map((i) => stamps[i])).toEqual(s);
        for (const x of s) {
          h = ((h ^ BigInt(x)) * 1099511628211n) & MASK;
        }
      },
      drop: (_slot, _stamp, _item, reason) => {
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      },
    });
    for (let i = 0; i < stamps.length; i++) {
      policy.add(topics[i]!, stamps[i]!, i, stamps[i]);
    }
    expect(sets).toBe(16_667);
    expect(h.toString(16).padStart(16, "0")).toBe("0022d05abb311547");
    const dropped = [...reasons.values()].reduce((a, b) => a + b, 0);
    expect(dropped).toBe(49_998);
    const held = [0, 1, 2].reduce((n, i) => n + policy.held(i), 0);
    expect(sets * 3 + dropped + held).toBe(100_000);
  });
});
