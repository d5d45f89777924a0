import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { ApproximateEpsilonTime } from "./ApproximateEpsilonTime";
import { recordingHostOf } from "../testing/RecordingHost";
import { eventsThenReset, resetLines, type Input } from "../testing/policyRecorder";

const S = 1_000_000_000;

function run(epsilonSec: number, input: readonly (readonly [number, number])[], queueSize = 10) {
  const policy = new ApproximateEpsilonTime<string>(2, { queueSize, epsilon: epsilonSec * S });
  const host = recordingHostOf(policy);
  input.forEach(([sec, topic], k) => { policy.add(topic, sec * S, `${topic}@${sec}#${k}`, sec * S); });
  policy.reset(true);
  expect(host.accounted()).toBe(input.length);
  return { tuples: host.tuples.map((t) => t.map((ns) => ns / S)), host };
}

// Upstream: ros2/message_filters test/test_approximate_epsilon_time_policy.cpp (queue 10).
describe("ros/approximate-epsilon-time upstream scenarios", () => {
  it("ExactMatch (epsilon 0.5 s)", () => {
    expect(run(0.5, [[0, 0], [0, 1], [3, 0], [3, 1], [6, 0], [6, 1]]).tuples).toEqual([
      [0, 0], [3, 3], [6, 6],
    ]);
  });

  it("PerfectMatch (epsilon 1.5 s)", () => {
    expect(run(1.5, [[0, 0], [1, 1], [3, 0], [4, 1], [6, 0], [7, 1]]).tuples).toEqual([
      [0, 1], [3, 4], [6, 7],
    ]);
  });

  it("ImperfectMatch (epsilon 1.5 s)", () => {
    const { tuples, host } = run(1.5, [[0, 0], [1, 1], [2, 0], [3, 0], [4, 1], [6, 0], [7, 1]]);
    expect(tuples).toEqual([[0, 1], [3, 4], [6, 7]]);
    // Hand trace (§2.4): {a, A} is emitted when A arrives; x(2) and b(3) wait on slot 0; when
    // B(4) arrives the heads are x(2), B(4): 4 > 2 + 1.5, so x (and only x: B > 3.5) is popped;
    // then b(3), B(4) are within 1.5 s and are emitted.
    expect(host.drops.map((d) => [d.slot, d.stamp / S, d.reason])).toEqual([[0, 2, "not-selected"]]);
  });
});

describe("ros/approximate-epsilon-time details", () => {
  it("pops every head within epsilon of the oldest when the set is incomplete", () => {
    // heads 0 (slot 0) and 1 (slot 1), epsilon 1 s: 1 <= 0 + 1 -> emit. Then heads 5 / 7:
    // 7 > 5 + 1, so only 5 is popped; slot 0 is then empty and 7 waits (reported by reset).
    const { tuples, host } = run(1, [[0, 0], [1, 1], [5, 0], [7, 1]]);
    expect(tuples).toEqual([[0, 1]]);
    expect(host.drops.map((d) => [d.slot, d.stamp / S, d.reason])).toEqual([
      [0, 5, "not-selected"],
      [1, 7, "reset"],
    ]);
  });

  it("applies the queue limit only while a slot is empty", () => {
    const { host } = run(1, [[0, 0], [1, 0], [2, 0]], 2);
    expect(host.drops.map((d) => [d.stamp / S, d.reason])).toEqual([
      [0, "queue-overflow"],
      [1, "reset"],
      [2, "reset"],
    ]);
  });
});

/**
 * ROS ApproximateEpsilonTime restated over plain arrays (reference ros-message-filters.md, as
 * the class comment describes it), then reset(true): the long-stream property's oracle.
 */
function epsilonOracle(slots: number, queueSize: number, epsilon: number, inputs: readonly Input<string>[]): string[] {
  const held: [number, string][][] = Array.from({ length: slots }, () => []);
  const events: string[] = [];
  const drop = (k: number, i: number, reason: string): void => {
    const [s, m] = held[i]!.shift()!;
    events.push(`${k} drop s${i} ${s} ${reason} | ${m}`);
  };
  inputs.forEach(([slot, stamp, item], k) => {
    held[slot]!.push([stamp, item]);
    if (held.some((h) => h.length === 0)) {
      if (held[slot]!.length > queueSize) {
        drop(k, slot, "queue-overflow");
      }
      return;
    }
    while (held.every((h) => h.length > 0)) {
      const limit = Math.min(...held.map((h) => h[0]![0])) + epsilon;
      if (held.every((h) => h[0]![0] <= limit)) {
        const heads = held.map((h) => h.shift()!);
        events.push(`${k} emit ${heads.map(([s]) => s).join(" ")} | ${heads.map(([, m]) => m).join(" ")}`);
      } else {
        held.forEach((h, i) => {
          if (h[0]![0] <= limit) {
            drop(k, i, "not-selected");
          }
        });
      }
    }
  });
  return [...events, ...resetLines(held, inputs.length - 1)];
}

describe("ros/approximate-epsilon-time on long streams", () => {
  it("matches the restated algorithm event for event, then drops what it holds on reset (queues filled past their first capacity)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }),
        fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(100_000)),
        fc.integer({ min: 0, max: 6 }),
        fc.array(fc.tuple(fc.oneof(fc.constant(0), fc.nat()), fc.integer({ min: 0, max: 4 })), { minLength: 50, maxLength: 400 }),
        (slots, queueSize, epsilon, steps) => {
          // Per slot, stamps in order; slot 0 gets most messages, so it queues many while the
          // others are empty.
          const last = new Array<number>(slots).fill(0);
          const inputs: Input<string>[] = steps.map(([pick, gap], k) => {
            const slot = pick % slots;
            last[slot] = last[slot]! + gap;
            return [slot, last[slot], `m${k}`];
          });
          const policy = new ApproximateEpsilonTime<string>(slots, { queueSize, epsilon });
          expect(eventsThenReset(policy, inputs, String)).toEqual(
            epsilonOracle(slots, queueSize, epsilon, inputs),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
