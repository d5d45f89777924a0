import { describe, expect, it } from "vitest";

import type { CombinerPolicy } from "./CombinerPolicy";
import { ApproximateTime as PythonApproximateTime } from "./python/ApproximateTime";
import { ExactTime as PythonExactTime } from "./python/ExactTime";
import { ApproximateEpsilonTime } from "./ros/ApproximateEpsilonTime";
import { ApproximateTime } from "./ros/ApproximateTime";
import { ExactTime } from "./ros/ExactTime";
import { recordingHostOf } from "./testing/RecordingHost";

// The policies whose add starts with hostForStamped: its errors and its no-header drop, in that
// order.
const stamped: [string, () => CombinerPolicy<string>][] = [
  ["ros/approximate-time", () => new ApproximateTime<string>(2, { queueSize: 3 })],
  ["ros/exact-time", () => new ExactTime<string>(2, { queueSize: 3 })],
  ["ros/approximate-epsilon-time", () => new ApproximateEpsilonTime<string>(2, { queueSize: 3, epsilon: 5 })],
  ["python/exact-time", () => new PythonExactTime<string>(2, { queueSize: 3 })],
];

describe("SlotPolicy.hostForStamped", () => {
  for (const [type, create] of stamped) {
    it(`${type}: throws before bind (even for a headerless message), then rejects bad slots before dropping no-header`, () => {
      const p = create();
      expect(() => { p.add(0, 5, "a", 5); }).toThrow(/before bind/);
      expect(() => { p.add(0, NaN, "a", 5); }).toThrow(/before bind/);
      const h = recordingHostOf(p);
      for (const slot of [-1, 2, 0.5, NaN, 2 ** 32]) {
        expect(() => { p.add(slot, 5, "a", 5); }).toThrow(RangeError);
        expect(() => { p.add(slot, NaN, "a", 5); }).toThrow(RangeError);
      }
      expect(h.drops).toEqual([]);
      p.add(-0, NaN, "x", 5);
      p.add(1, NaN, "y", 5);
      expect(h.drops.map((d) => [d.slot, d.item, d.reason])).toEqual([
        [-0, "x", "no-header"],
        [1, "y", "no-header"],
      ]);
    });
  }

  it("python/approximate-time takes headerless messages; bad slots still throw", () => {
    const p = new PythonApproximateTime<string>(2, { queueSize: 3, slop: 1 });
    expect(() => { p.add(0, 5, "a", 5); }).toThrow(/before bind/);
    recordingHostOf(p);
    expect(() => { p.add(2, 5, "a", 5); }).toThrow(RangeError);
  });
});
