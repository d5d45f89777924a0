// The stamp trace of inputs without header stamps: recorded on their receive times until a header
// stamp fixes the pipeline's time base, so that "why are there no sets" has an answer when no
// input ever carries a header (the diagnosis against the pipeline run with receive-time stamps).
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { TraceRecorder } from "./TraceRecorder";
import { diagnose } from "./diagnose";
import { Pipeline } from "../Pipeline";
import { parseConfig } from "../parseConfig";
import type { PipelineInput } from "../types";

const POLICY = { type: "ros/approximate-time", queueSize: 10 } as const;
const T0 = 1_700_000_000;

function input(topic: string, ns: number, message: unknown): PipelineInput {
  return { topic, receiveTime: { sec: T0 + Math.floor(ns / 1e9), nsec: ns % 1e9 }, message };
}

/** Feeds `messages` to a pipeline of `config` with a recorder; returns the recorder and the tuples. */
function record(config: unknown, messages: readonly PipelineInput[]): { recorder: TraceRecorder; tuples: number } {
  const parsed = parseConfig(config);
  const pipeline = new Pipeline(parsed);
  const recorder = new TraceRecorder(parsed);
  pipeline.use(recorder);
  let tuples = 0;
  pipeline.onTuple(() => tuples++);
  for (const m of messages) {
    pipeline.push(m);
  }
  pipeline.finish();
  return { recorder, tuples };
}

describe("TraceRecorder on inputs without header stamps", () => {
  it("records every message by its receive time, and the diagnosis names the fix with the sets the fixed pipeline gives", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ topic: fc.constantFrom("/a", "/b"), gapUs: fc.integer({ min: 0, max: 80_000 }) }), {
          minLength: 2,
          maxLength: 120,
        }),
        (steps) => {
          let ns = 0;
          const messages = steps.map((s) => input(s.topic, (ns += s.gapUs * 1000), { data: ns }));
          const inputs = [{ topic: "/a" }, { topic: "/b" }];
          const { recorder, tuples } = record({ inputs, policy: POLICY }, messages);
          expect(tuples).toBe(0);
          const trace = recorder.trace!;
          expect(trace.length).toBe(messages.length);
          for (let i = 0; i < trace.length; i++) {
            expect(trace.kind(i)).toBe("no-header");
            expect(trace.slot(i)).toBe(messages[i]!.topic === "/a" ? 0 : 1);
            const { sec, nsec } = messages[i]!.receiveTime;
            expect(trace.base.toNanoseconds(trace.arrival(i))).toBe(BigInt(sec) * 1_000_000_000n + BigInt(nsec));
          }
          // The oracle: the same messages through a pipeline whose inputs are stamped by receive time.
          const fixed = record({ inputs: inputs.map((i) => ({ ...i, stamp: "receive" })), policy: POLICY }, messages);
          const d = diagnose(trace, parseConfig({ inputs, policy: POLICY }).policy);
          const cause = d.causes.find((c) => c.id === "missing-stamps")!;
          expect(cause.setsLost).toBe(fixed.tuples);
          const present = ["/a", "/b"].filter((t) => messages.some((m) => m.topic === t));
          expect(cause.message).toContain(`"stamp": "receive" on ${present.join(" and ")}`);
          if (fixed.tuples > 0) {
            expect(d.headline).toContain(`No searched setting of ${POLICY.type} recovers them`);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("moves the headerless messages seen before the first header stamps onto the pipeline's time base, in order", () => {
    const h = (ns: number): unknown => ({ header: { stamp: { sec: T0 + Math.floor(ns / 1e9), nsec: ns % 1e9 }, frame_id: "f" } });
    const messages = [
      input("/a", 0, { data: 1 }),
      input("/a", 10_000_000, { header: { stamp: { sec: 0, nsec: 0 } } }),
      input("/b", 20_000_000, h(20_000_000)),
      input("/b", 30_000_000, h(30_000_000)),
      input("/a", 40_000_000, { data: 2 }),
    ];
    const { recorder } = record({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: POLICY }, messages);
    const trace = recorder.trace!;
    expect(trace.base.baseSec).toBe(T0);
    const events = Array.from({ length: trace.length }, (_, i) => [trace.slot(i), trace.kind(i), trace.base.format(trace.arrival(i))]);
    const at = (ns: number): string => (BigInt(T0) * 1_000_000_000n + BigInt(ns)).toString();
    expect(events).toEqual([
      [0, "no-header", at(0)],
      [0, "zero-stamp", at(10_000_000)],
      [1, "stamped", at(20_000_000)],
      [1, "stamped", at(30_000_000)],
      [0, "no-header", at(40_000_000)],
    ]);
  });

  it("leaves them out when their receive times are on another clock than the header stamps (more than 52 days apart)", () => {
    const messages = [
      input("/a", 0, { data: 1 }),
      // sim-time header stamps, a few seconds after 0
      { topic: "/b", receiveTime: { sec: T0, nsec: 5 }, message: { header: { stamp: { sec: 3, nsec: 0 } } } },
      { topic: "/b", receiveTime: { sec: T0, nsec: 6 }, message: { header: { stamp: { sec: 4, nsec: 0 } } } },
    ];
    const { recorder } = record({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: POLICY }, messages);
    const trace = recorder.trace!;
    expect(trace.base.baseSec).toBe(0);
    expect(Array.from({ length: trace.length }, (_, i) => trace.kind(i))).toEqual(["stamped", "stamped"]);
  });
});
