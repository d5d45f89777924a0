import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { Fifo } from "./Fifo";
import { adding, describeEvents, eventsOf, eventsThenReset, feed, Recorder, resetLines, type Input } from "../testing/policyRecorder";

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

/** fkie Fifo restated over plain arrays (reference §2.3), then reset(true): the property's oracle. */
function fifoOracle(slots: number, maxQueueSize: number, inputs: readonly Input<string>[]): string[] {
  const held: [number, string][][] = Array.from({ length: slots }, () => []);
  const events: string[] = [];
  inputs.forEach(([slot, stamp, item], k) => {
    const q = held[slot]!;
    q.push([stamp, item]);
    if (q.length > maxQueueSize) {
      const [s, dropped] = q.shift()!;
      events.push(`${k} drop s${slot} ${s} queue-overflow | ${dropped}`);
    }
    while (held.every((h) => h.length > 0)) {
      const fronts = held.map((h) => h.shift()!);
      events.push(`${k} emit ${fronts.map(([s]) => s).join(" ")} | ${fronts.map(([, m]) => m).join(" ")}`);
    }
  });
  return [...events, ...resetLines(held, inputs.length - 1)];
}

describe("fkie Fifo on long streams", () => {
  it("matches the restated algorithm event for event, then drops what it holds on reset (slots filled past their first capacity)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(1_000_000)),
        // Picks biased to slot 0, so that one slot holds many messages while others starve.
        fc.array(fc.oneof(fc.constant(0), fc.nat()), { minLength: 50, maxLength: 400 }),
        (slots, maxQueueSize, picks) => {
          const inputs: Input<string>[] = picks.map((p, k) => [p % slots, 1000 + k, `m${k}`]);
          const policy = new Fifo<string>(slots, { maxQueueSize });
          const recorder = new Recorder<string>();
          recorder.onEmit = (_items, stamps) => {
            expect(stamps).toHaveLength(slots);
          };
          expect(eventsThenReset(policy, inputs, String, recorder)).toEqual(
            fifoOracle(slots, maxQueueSize, inputs),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
