import { describe, expect, it } from "vitest";

import { Fifo } from "./Fifo";
import { adding, describeEvents, eventsOf, feed, Recorder, type Input } from "../testing/policyRecorder";

class ExpectedError extends Error {}

describe("fkie Fifo", () => {
  it("reproduces test_combiner_fifo: binary + binary → quaternary, sink exception propagates", () => {
    // Upstream combines (int, int) and (double, double) sources; each slot's item is the pair.
    // Its sink throws ExpectedException when d2 != 6.28, which the 2nd set triggers.
    const policy = new Fifo<readonly number[]>(2, { maxQueueSize: 1 });
    const rec = new Recorder<readonly number[]>();
    rec.onEmit = (items) => {
      if (items[1]![1] !== 6.28) {
        throw new ExpectedError("d2 != 6.28");
      }
    };
    feed(policy, [[0, NaN, [1, 2]], [1, NaN, [3.14, 6.28]], [1, NaN, [3.14, 0]]], rec);
    expect(() => feed(policy, [[0, NaN, [1, 2]]], rec)).toThrow(ExpectedError);
    expect(describeEvents(rec.events, String)).toEqual([
      "1 emit NaN NaN | 1,2 3.14,6.28",
      "3 emit NaN NaN | 1,2 3.14,0",
    ]);
    // The failing set had already left the queues.
    expect([policy.held(0), policy.held(1)]).toEqual([0, 0]);
  });

  it("capacity 1 overwrites the held message (queue-overflow)", () => {
    expect(eventsOf(new Fifo<string>(2), [[1, 1, "x"], [1, 2, "y"], [0, 3, "z"]], String)).toEqual([
      "1 drop s1 1 queue-overflow | x",
      "2 emit 3 2 | z y",
    ]);
  });

  it("pairs in arrival order with a larger capacity, ignoring stamps", () => {
    // a4 overflows the queue: a1 goes.
    const inputs: Input<string>[] = [[0, 9, "a1"], [0, 1, "a2"], [0, 5, "a3"], [0, 7, "a4"], [1, 0, "b1"], [1, 0, "b2"]];
    expect(eventsOf(new Fifo<string>(2, { maxQueueSize: 3 }), inputs, String)).toEqual([
      "3 drop s0 9 queue-overflow | a1",
      "4 emit 1 0 | a2 b1",
      "5 emit 5 0 | a3 b2",
    ]);
  });

  it("capacity 0 (2.x) never emits and drops every message on arrival", () => {
    expect(eventsOf(new Fifo<string>(2, { maxQueueSize: 0 }), [[0, 1, "a"], [1, 1, "b"]], String)).toEqual([
      "0 drop s0 1 queue-overflow | a",
      "1 drop s1 1 queue-overflow | b",
    ]);
  });

  it("one slot emits each message at once; reset(true) reports what is held", () => {
    expect(eventsOf(new Fifo<string>(1), [[0, 4, "m"]], String)).toEqual(["0 emit 4 | m"]);
    const policy = new Fifo<string>(2, { maxQueueSize: 2 });
    const rec = feed(policy, [[0, 1, "a"], [0, 2, "b"]]);
    policy.reset(true);
    expect(describeEvents(rec.events, String)).toEqual([
      "1 drop s0 1 reset | a",
      "1 drop s0 2 reset | b",
    ]);
    expect(policy.held(0)).toBe(0);
  });

  it("validates its configuration", () => {
    const p = new Fifo(2);
    expect([p.type, p.acceptsHeaderless, p.maxQueueSize]).toEqual(["fkie/fifo", true, 1]);
    expect(() => new Fifo(2, { maxQueueSize: -2 })).toThrow(/maxQueueSize/);
    p.bind(new Recorder());
    expect(adding(p, -1, 0, 0)).toThrow(/slot -1 does not exist/);
  });
});
