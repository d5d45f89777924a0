import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { Pipeline } from "./Pipeline";
import { parseConfig } from "./parseConfig";
import type { PipelineDrop, PipelineInput } from "./types";

const CONFIG = parseConfig({
  inputs: [{ topic: "/a" }, { topic: "/b" }],
  policy: { type: "fkie/exact-time", maxQueueSize: 100, maxAge: null },
});

const T = 1_432_235_000; // 2015, as the husky stamps

function stamped(topic: string, sec: number, nsec = 0, receive?: { sec: number; nsec: number }): PipelineInput {
  return { topic, receiveTime: receive ?? { sec, nsec }, message: { header: { stamp: { sec, nsec }, frame_id: "f" } } };
}

function run(inputs: PipelineInput[]): { p: Pipeline; drops: PipelineDrop[]; tuples: string[][] } {
  const p = new Pipeline(CONFIG);
  const drops: PipelineDrop[] = [];
  const tuples: string[][] = [];
  p.onDrop((d) => drops.push(d));
  p.onTuple((t) => tuples.push(t.stamps.map((s) => p.timeBase!.format(s))));
  for (const m of inputs) {
    p.push(m);
  }
  p.finish();
  return { p, drops, tuples };
}

/** Every input message is in a tuple, dropped, or held. */
function accounted(p: Pipeline, inputs: number, tuples: number, drops: number): void {
  const held = p.statistics.heldAtEnd.reduce((a, b) => a + b, 0);
  expect(tuples * 2 + drops + held).toBe(inputs);
}

describe("Pipeline stamps that cannot be used", () => {
  it("one stamp from another clock first does not exile the rest: it is an invalid-stamp drop", () => {
    const inputs = [stamped("/a", 1, 0, { sec: T, nsec: 0 })];
    for (let i = 0; i < 20; i++) {
      inputs.push(stamped(i % 2 === 0 ? "/a" : "/b", T + Math.floor(i / 2)));
    }
    const { p, drops, tuples } = run(inputs);
    expect(drops.map((d) => [d.topic, d.reason])).toEqual([["/a", "invalid-stamp"]]);
    expect(drops[0]!.detail).toMatch(/1\.000000000 on \/a lies outside the time window/);
    expect(tuples).toHaveLength(10);
    expect(tuples[0]).toEqual([`${T}000000000`, `${T}000000000`]);
    expect(p.timeBase!.baseSec).toBe(T);
    accounted(p, inputs.length, tuples.length, drops.length);
  });

  it("a stamp from another clock mid-stream and nsec >= 1e9 are invalid-stamp drops naming the topic", () => {
    const inputs: PipelineInput[] = [];
    for (let i = 0; i < 20; i++) {
      inputs.push(stamped(i % 2 === 0 ? "/a" : "/b", T + Math.floor(i / 2)));
    }
    inputs.splice(7, 0, stamped("/b", 5));
    inputs.splice(12, 0, stamped("/a", T + 3, 1_500_000_000));
    const { p, drops, tuples } = run(inputs);
    expect(drops.map((d) => [d.topic, d.reason])).toEqual([
      ["/b", "invalid-stamp"],
      ["/a", "invalid-stamp"],
    ]);
    expect(drops[1]!.detail).toMatch(/not a time/);
    expect(tuples).toHaveLength(10);
    accounted(p, inputs.length, tuples.length, drops.length);
  });

  it("a message that did not decode is an undecodable drop with the reader's reason", () => {
    const inputs: PipelineInput[] = [
      stamped("/a", T),
      { topic: "/b", receiveTime: { sec: T, nsec: 0 }, message: undefined, decodeError: "cut short" },
      stamped("/b", T),
    ];
    const { p, drops, tuples } = run(inputs);
    expect(drops.map((d) => [d.topic, d.reason, d.detail])).toEqual([["/b", "undecodable", "cut short"]]);
    expect(tuples).toHaveLength(1);
    accounted(p, inputs.length, tuples.length, drops.length);
  });

  it("inputs stamped by receive time fix the time base from their receive times, not from headers on another clock", () => {
    const p = new Pipeline(
      parseConfig({
        inputs: [
          { topic: "/a", stamp: "receive" },
          { topic: "/b", stamp: "receive" },
        ],
        policy: { type: "fkie/exact-time", maxQueueSize: 100, maxAge: null },
      }),
    );
    const drops: PipelineDrop[] = [];
    let tuples = 0;
    p.onDrop((d) => drops.push(d));
    p.onTuple(() => tuples++);
    for (let i = 0; i < 10; i++) {
      // sim-time headers (seconds after 0) on messages received on the wall clock
      for (const topic of ["/a", "/b"]) {
        p.push({ ...stamped(topic, 3 + i), receiveTime: { sec: T + i, nsec: 0 } });
      }
    }
    p.finish();
    expect(drops).toEqual([]);
    expect(tuples).toBe(10);
    expect(p.timeBase!.baseSec).toBe(T);
  });

  it("receive times from another clock (a live app's wall clock) are taken with their offset and reported", () => {
    const wall = 1_790_000_000;
    const inputs: PipelineInput[] = [];
    for (let i = 0; i < 10; i++) {
      const sec = T + Math.floor(i / 2);
      inputs.push(stamped(i % 2 === 0 ? "/a" : "/b", sec, 0, { sec: sec + (wall - T), nsec: 250_000_000 }));
    }
    const { p, tuples } = run(inputs);
    expect(p.receiveClockOffset).toBe(wall - T);
    expect(tuples).toHaveLength(5);
    // arrival = receive time − offset: 250 ms after each stamp, on every message
    const { p: same } = run(inputs.map((m) => ({ ...m, receiveTime: { sec: m.receiveTime.sec - (wall - T), nsec: 250_000_000 } })));
    expect(same.receiveClockOffset).toBe(0);
    const [l, m] = [p.statistics.topic("/a").latencies, same.statistics.topic("/a").latencies];
    expect([l.count, l.min, l.max]).toEqual([m.count, m.min, m.max]);
    expect(l.min).toBe(250_000_000);
  });

  it("property: any mix of valid, other-clock and impossible stamps is accounted for, never a throw", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            slot: fc.integer({ min: 0, max: 1 }),
            kind: fc.constantFrom("ok", "ok", "ok", "boot", "nsec", "undecodable"),
            step: fc.integer({ min: 0, max: 3 }),
          }),
          { maxLength: 60 },
        ),
        (events) => {
          let sec = T;
          const inputs = events.map((e): PipelineInput => {
            sec += e.step;
            const topic = e.slot === 0 ? "/a" : "/b";
            if (e.kind === "boot") {
              return stamped(topic, 1 + e.step);
            }
            if (e.kind === "nsec") {
              return stamped(topic, sec, 1_000_000_000 + e.step);
            }
            if (e.kind === "undecodable") {
              return { topic, receiveTime: { sec, nsec: 0 }, message: undefined, decodeError: "garbage" };
            }
            return stamped(topic, sec);
          });
          const { p, drops, tuples } = run(inputs);
          accounted(p, inputs.length, tuples.length, drops.length);
        },
      ),
      { numRuns: 200 },
    );
  });
});
