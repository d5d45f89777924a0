import { describe, expect, it } from "vitest";

import { ExactTime } from "./ExactTime";
import { recordingHostOf } from "../testing/RecordingHost";

const S = 1_000_000_000;

function make(queueSize: number) {
  const policy = new ExactTime<string>(2, { queueSize });
  const host = recordingHostOf(policy);
  return { host, signal: (slot: number, sec: number, name: string) => { policy.add(slot, sec * S, name, sec * S); } };
}

// Upstream: ros2/message_filters test/test_time_synchronizer.py (8.x semantics).
describe("python/exact-time upstream scenarios", () => {
  for (let N = 1; N < 10; N++) {
    it(`queue length ${N}`, () => {
      const { host, signal } = make(N);
      for (let t = 0; t < N; t++) {
        signal(0, t, `x${t}`);
      }
      expect(host.items).toEqual([]);
      for (let t = 0; t < N; t++) {
        signal(1, t, `y${t}`);
      }
      expect(host.items).toEqual(Array.from({ length: N }, (_, t) => [`x${t}`, `y${t}`]));
    });
  }

  it("drop old messages", () => {
    const { host, signal } = make(10);
    signal(0, 0, "x0");
    expect(host.items.length).toBe(0);
    signal(1, 1, "y1");
    expect(host.items.length).toBe(0);
    signal(0, 1, "y0");
    expect(host.items).toEqual([["y0", "y1"]]);
    // x0 is older than the emitted stamp: deleted (8.x)
    expect(host.drops.map((d) => [d.item, d.reason])).toEqual([["x0", "not-selected"]]);
    signal(1, 0, "x1");
    expect(host.items).toEqual([["y0", "y1"]]);
  });

  it("shifted time signalling", () => {
    const { host, signal } = make(10);
    signal(0, 0, "x0");
    signal(0, 1, "y0");
    expect(host.items.length).toBe(0);
    signal(1, 0, "x1");
    expect(host.items).toEqual([["x0", "x1"]]);
    signal(1, 1, "y1");
    expect(host.items).toEqual([["x0", "x1"], ["y0", "y1"]]);
  });
});

describe("python/exact-time details", () => {
  it("deletes every older message on every slot after an emission (8.x, like C++)", () => {
    const policy = new ExactTime<string>(2, { queueSize: 10 });
    const host = recordingHostOf(policy);
    // Slot 1 holds 1 and 2; slot 0 receives 2 -> common {2} -> emit 2; b1 (older) is deleted,
    // so a later a1 can no longer complete it (up to 7.3.4 it would have).
    policy.add(1, 1, "b1", 1);
    policy.add(1, 2, "b2", 2);
    policy.add(0, 2, "a2", 2);
    expect(host.items).toEqual([["a2", "b2"]]);
    expect(host.drops.map((d) => d.item)).toEqual(["b1"]);
    policy.add(0, 1, "a1", 1);
    expect(host.items.length).toBe(1);
  });

  it("overflow evicts the smallest stamp; duplicates replace", () => {
    const { host, signal } = make(2);
    signal(0, 5, "a");
    signal(0, 5, "a'");
    signal(0, 3, "b");
    signal(0, 9, "c");
    expect(host.drops.map((d) => [d.item, d.reason])).toEqual([
      ["a", "duplicate-stamp"],
      ["b", "queue-overflow"],
    ]);
  });
});
