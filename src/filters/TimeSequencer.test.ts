import { describe, expect, it } from "vitest";

import type { DropEvent } from "./DropReason";
import { TimeSequencer } from "./TimeSequencer";

const MS = 1_000_000;

function make(delay: number, queueSize: number) {
  let now = 0;
  const released: [string, number][] = [];
  const drops: DropEvent<string>[] = [];
  const seq = new TimeSequencer<string>({
    delay,
    queueSize,
    now: () => now,
    onRelease: (m, t) => released.push([m, t]),
    onDrop: (d) => drops.push(d),
  });
  return {
    seq,
    released,
    drops,
    at: (t: number) => {
      now = t;
      return seq.update();
    },
  };
}

// Semantics of ROS 2 message_filters C++ TimeSequencer (time_sequencer.hpp, 8.0.2) and its
// time_sequencer_unittest (simple, compareAfterTimeChange-like, eventInEventOut ideas).
describe("TimeSequencer", () => {
  it("holds a message until stamp + delay <= now (upstream 'simple')", () => {
    const h = make(100 * MS, 10);
    h.seq.add(0, "m");
    expect(h.at(50 * MS)).toBe(0);
    expect(h.at(100 * MS - 1)).toBe(0);
    expect(h.at(100 * MS)).toBe(1);
    expect(h.released).toEqual([["m", 0]]);
  });

  it("releases in stamp order whatever the arrival order; equal stamps in arrival order", () => {
    const h = make(10 * MS, 0);
    h.seq.add(30 * MS, "c");
    h.seq.add(10 * MS, "a");
    h.seq.add(20 * MS, "b1");
    h.seq.add(20 * MS, "b2");
    // now 30 ms, delay 10 ms: stamps <= 20 ms are due
    expect(h.at(30 * MS)).toBe(3);
    expect(h.released.map(([m]) => m)).toEqual(["a", "b1", "b2"]);
    expect(h.at(40 * MS)).toBe(1);
    expect(h.released.map(([m]) => m)).toEqual(["a", "b1", "b2", "c"]);
  });

  it("drops messages older than the last released stamp (too-late); equal is accepted", () => {
    const h = make(0, 0);
    h.seq.add(10, "a");
    h.at(10);
    h.seq.add(9, "old");
    h.seq.add(10, "same");
    h.at(10);
    expect(h.drops.map((d) => [d.item, d.reason])).toEqual([["old", "too-late"]]);
    expect(h.released.map(([m]) => m)).toEqual(["a", "same"]);
  });

  it("the initial last-released stamp is absolute 0 (zero)", () => {
    const h = make(0, 0);
    h.seq.add(-5, "negative");
    expect(h.drops.map((d) => d.reason)).toEqual(["too-late"]);
    const epoch = new TimeSequencer<string>({ delay: 0, queueSize: 0, now: () => 0, zero: -Infinity });
    epoch.add(-5, "fine");
    expect(epoch.size).toBe(1);
  });

  it("overflow erases every message sharing the oldest stamp (multiset erase by value)", () => {
    const h = make(1000, 3);
    h.seq.add(5, "a1");
    h.seq.add(5, "a2");
    h.seq.add(7, "b");
    h.seq.add(9, "c");
    expect(h.drops.map((d) => [d.item, d.reason])).toEqual([
      ["a1", "queue-overflow"],
      ["a2", "queue-overflow"],
    ]);
    expect(h.seq.size).toBe(2);
  });

  it("state is updated before listeners run; tick() is update()", () => {
    let now = 0;
    const seen: number[] = [];
    const seq: TimeSequencer<string> = new TimeSequencer<string>({
      delay: 0,
      queueSize: 0,
      now: () => now,
      onRelease: () => seen.push(seq.size),
    });
    seq.add(1, "a");
    seq.add(2, "b");
    now = 5;
    expect(seq.tick()).toBe(2);
    expect(seen).toEqual([0, 0]);
  });

  it("reset reports held messages and forgets the last release", () => {
    const h = make(100, 0);
    h.seq.add(50, "x");
    h.at(0);
    h.seq.reset({ reportDrops: true });
    expect(h.drops.map((d) => [d.item, d.reason])).toEqual([["x", "reset"]]);
    expect(() => new TimeSequencer({ delay: -1, queueSize: 0, now: () => 0 })).toThrow(/delay/);
  });
});
