// The stamp trace of inputs without header stamps: recorded on their receive times until a header
// stamp fixes the pipeline's time base, so that "why are there no sets" has an answer when no
// input ever carries a header (the diagnosis against the pipeline run with receive-time stamps).
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { diagnose } from "./diagnose";
import { DropExplainer } from "./explainDrop";
import { runTrace } from "./runTrace";
import { parseConfig } from "../parseConfig";
import type { PipelineInput } from "../types";
import { receivedAt, recordThroughPipeline, T0 } from "./testTraces";

const POLICY = { type: "ros/approximate-time", queueSize: 10 } as const;

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
          const messages = steps.map((s) => receivedAt(s.topic, (ns += s.gapUs * 1000), { data: ns }));
          const inputs = [{ topic: "/a" }, { topic: "/b" }];
          const { recorder, tuples } = recordThroughPipeline({ inputs, policy: POLICY }, messages);
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
          const fixed = recordThroughPipeline({ inputs: inputs.map((i) => ({ ...i, stamp: "receive" })), policy: POLICY }, messages);
          const d = diagnose(trace, parseConfig({ inputs, policy: POLICY }).policy);
          const cause = d.causes.find((c) => c.id === "missing-stamps")!;
          expect(cause.setsLost).toBe(fixed.tuples);
          const explainer = new DropExplainer(trace, parseConfig({ inputs, policy: POLICY }).policy);
          const x = explainer.explain(explainer.drops[0]!)!;
          expect(x.reason).toBe("no-header");
          expect(x.message).toContain(`"stamp": "receive" on ${x.topic}`);
          const present = ["/a", "/b"].filter((t) => messages.some((m) => m.topic === t));
          expect(cause.message).toContain(`"stamp": "receive" on ${present.join(" and ")}`);
          expect(cause.stampFix).toEqual({ stamps: Object.fromEntries(present.map((t) => [t, "receive"])), tuples: fixed.tuples });
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
      receivedAt("/a", 0, { data: 1 }),
      receivedAt("/a", 10_000_000, { header: { stamp: { sec: 0, nsec: 0 } } }),
      receivedAt("/b", 20_000_000, h(20_000_000)),
      receivedAt("/b", 30_000_000, h(30_000_000)),
      receivedAt("/a", 40_000_000, { data: 2 }),
    ];
    const { recorder } = recordThroughPipeline({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: POLICY }, messages);
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

  it("places their receive times as the pipeline does when those are on another clock than the header stamps (more than 52 days apart)", () => {
    const messages = [
      receivedAt("/a", 0, { data: 1 }),
      // sim-time header stamps, a few seconds after 0
      { topic: "/b", receiveTime: { sec: T0, nsec: 5 }, message: { header: { stamp: { sec: 3, nsec: 0 } } } },
      { topic: "/b", receiveTime: { sec: T0, nsec: 6 }, message: { header: { stamp: { sec: 4, nsec: 0 } } } },
    ];
    const { recorder } = recordThroughPipeline({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: POLICY }, messages);
    const trace = recorder.trace!;
    expect(trace.base.baseSec).toBe(0);
    // The pipeline takes the receive clock's whole seconds off (T0 here), keeping the nanoseconds;
    // the message recorded before the base was fixed is moved the same way.
    expect(trace.receiveClockOffsetSec).toBe(T0);
    expect(Array.from({ length: trace.length }, (_, i) => [trace.kind(i), trace.arrival(i)])).toEqual([
      ["no-header", 0],
      ["stamped", 5],
      ["stamped", 6],
    ]);
  });
});

describe("TraceRecorder on header stamps the pipeline cannot use", () => {
  const h = (sec: number, nsec: number): unknown => ({ header: { stamp: { sec, nsec }, frame_id: "f" } });

  it("names stamps on another clock (sim time beside wall time) as such, with the sets receive times give", () => {
    const messages: PipelineInput[] = [];
    for (let k = 0; k < 60; k++) {
      const ns = k * 50_000_000;
      messages.push(receivedAt("/a", ns, h(T0 + Math.floor(ns / 1e9), ns % 1e9)));
      // /b's node runs on sim time: its stamps count from 100 s.
      messages.push(receivedAt("/b", ns + 2_000_000, h(100 + Math.floor(ns / 1e9), ns % 1e9)));
    }
    const inputs = [{ topic: "/a" }, { topic: "/b" }];
    const { recorder, tuples, drops } = recordThroughPipeline({ inputs, policy: POLICY }, messages);
    expect(tuples).toBe(0);
    expect(drops["invalid-stamp"]).toBe(60);
    const d = diagnose(recorder.trace!, parseConfig({ inputs, policy: POLICY }).policy);
    expect(d.facts.map((t) => [t.topic, t.offClockStamps, t.headerless])).toEqual([
      ["/a", 0, 0],
      ["/b", 60, 0],
    ]);
    const cause = d.causes.find((c) => c.id === "missing-stamps")!;
    expect(cause.topic).toBe("/b");
    expect(cause.message).toContain("/b has 60 messages with a stamp the time base cannot place (not a time, or more than 52 days from the first stamps: another clock");
    expect(cause.message).not.toContain("without a header");
    expect(cause.message).toContain('"stamp": "receive" on /b');
    const fixed = recordThroughPipeline({ inputs: [inputs[0]!, { topic: "/b", stamp: "receive" }], policy: POLICY }, messages);
    expect(fixed.tuples).toBeGreaterThan(0);
    expect(cause.setsLost).toBe(fixed.tuples);
    expect(cause.stampFix).toEqual({ stamps: { "/b": "receive" }, tuples: fixed.tuples });
    // Each such drop, explained, says so.
    const explainer = new DropExplainer(recorder.trace!, parseConfig({ inputs, policy: POLICY }).policy);
    const first = explainer.explain(explainer.drops[0]!)!;
    expect([first.topic, first.reason]).toEqual(["/b", "invalid-stamp"]);
    expect(first.message).toMatch(/^stamp off the time base: .*\(another clock/);
  });

  it("a policy re-run on the trace gives the pipeline's sets and drops, whatever mix of unusable messages (property)", () => {
    const kinds = ["stamped", "headerless", "zero", "offClock", "undecodable"] as const;
    const policies = [
      { type: "ros/approximate-time", queueSize: 5 },
      { type: "fkie/approximate-time", maxQueueSize: 4 },
      { type: "python/approximate-time", queueSize: 5, slop: "30ms", allowHeaderless: true },
      { type: "ros/latest-time" },
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...policies),
        fc.array(
          fc.record({ slot: fc.integer({ min: 0, max: 1 }), gapUs: fc.integer({ min: 0, max: 40_000 }), kind: fc.constantFrom(...kinds) }),
          { minLength: 1, maxLength: 80 },
        ),
        (policy, steps) => {
          let ns = 0;
          const messages = steps.map((st): PipelineInput => {
            ns += st.gapUs * 1000;
            const topic = st.slot === 0 ? "/a" : "/b";
            const sec = T0 + Math.floor(ns / 1e9);
            const nsec = ns % 1e9;
            switch (st.kind) {
              case "stamped":
                return receivedAt(topic, ns, h(sec, nsec));
              case "headerless":
                return receivedAt(topic, ns, { data: ns });
              case "zero":
                return receivedAt(topic, ns, h(0, 0));
              case "offClock":
                return receivedAt(topic, ns, h(100, nsec));
              case "undecodable":
                return { ...receivedAt(topic, ns, undefined), decodeError: "truncated" };
            }
          });
          const config = { inputs: [{ topic: "/a" }, { topic: "/b" }], policy };
          const { recorder, tuples, drops } = recordThroughPipeline(config, messages);
          const trace = recorder.trace;
          if (trace == undefined) {
            return;
          }
          const run = runTrace(parseConfig(config).policy, trace);
          expect(run.tuples).toBe(tuples);
          // The trace holds the messages of the first time base's clock; stamps placed on it by
          // the pipeline before that base count the same.
          expect(run.drops).toEqual(drops);
        },
      ),
      { numRuns: 200 },
    );
  });
});
