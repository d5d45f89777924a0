import { describe, expect, it } from "vitest";

import { Latch } from "./Latch";
import { adding, describeEvents, eventsOf, feed, Recorder } from "../testing/policyRecorder";

class ExpectedError extends Error {}

describe("fkie Latch", () => {
  it("reproduces test_combiner_latch: trigger on slot 0, slot 1 reused", () => {
    // Upstream: two binary sources (i, i); the sink throws ExpectedException("reused second
    // source") for the set (3, 2) and expects 2 callbacks in total.
    const policy = new Latch<number>(2);
    const rec = new Recorder<number>();
    rec.onEmit = (items) => {
      if (items[0] === 3 && items[1] === 2) {
        throw new ExpectedError("reused second source");
      }
    };
    feed(
      policy,
      [
        [0, 1, 1], // latched, slot 1 still empty
        [1, 2, 1], // not the trigger
        [1, 3, 1000], // replaces 1 before it was ever emitted
        [1, 4, 2], // replaces 1000 likewise
        [0, 5, 2], // trigger: replaces slot 0's 1 (never emitted) → emit (2, 2)
      ],
      rec,
    );
    expect(() => feed(policy, [[0, 6, 3]], rec)).toThrow(ExpectedError);
    expect(describeEvents(rec.events, String)).toEqual([
      "2 drop s1 2 superseded | 1",
      "3 drop s1 3 superseded | 1000",
      "4 drop s0 1 superseded | 1",
      "4 emit 5 4 | 2 2",
      // 2 on slot 0 was emitted, so its replacement by 3 is no drop; 2 on slot 1 is reused.
      "5 emit 6 4 | 3 2",
    ]);
    expect(rec.tuples).toHaveLength(2);
  });

  it("triggerOnAny emits on every message once all slots hold a value", () => {
    const policy = new Latch<string>(3).triggerOnAny();
    expect(policy.trigger).toBe("any");
    expect(eventsOf(policy, [[0, 1, "a"], [1, 2, "b"], [2, 3, "c"], [1, 4, "d"]], String)).toEqual([
      "2 emit 1 2 3 | a b c",
      "3 emit 1 4 3 | a d c",
    ]);
  });

  it("triggerOn(n) and reset(true) reporting only never-emitted values", () => {
    const policy = new Latch<string>(2, { trigger: 1 });
    // b emits (a, b); a was emitted, so c replaces it without a drop.
    const rec = feed(policy, [[0, 1, "a"], [1, 2, "b"], [0, 3, "c"]]);
    policy.reset(true);
    expect(describeEvents(rec.events, String)).toEqual([
      "1 emit 1 2 | a b",
      "2 drop s0 3 reset | c",
    ]);
    // After reset nothing is latched: a trigger alone does not emit.
    feed(policy, [[1, 4, "d"]], rec);
    expect(rec.tuples).toHaveLength(1);
  });

  it("validates its configuration", () => {
    const p = new Latch(2);
    expect([p.type, p.acceptsHeaderless, p.trigger]).toEqual(["fkie/latch", true, 0]);
    expect(() => new Latch(2, { trigger: 2 })).toThrow(/trigger 2 is not a slot/);
    expect(() => p.triggerOn(-1)).toThrow(/not a slot/);
    p.bind(new Recorder());
    expect(adding(p, 5, 0, 0)).toThrow(/slot 5 does not exist/);
  });
});
