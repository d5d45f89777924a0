// The stamp trace of inputs without header stamps: recorded on their receive times until a header
// stamp fixes the pipeline's time base, so that "why are there no sets" has an answer when no
// input ever carries a header (the diagnosis against the pipeline run with receive-time stamps).
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { TraceRecorder } from "./TraceRecorder";
import { diagnose } from "./diagnose";
import { DropExplainer } from "./explainDrop";
import { runTrace } from "./runTrace";
import { Pipeline } from "../Pipeline";
import { parseConfig } from "../parseConfig";
import type { PipelineInput } from "../types";

const POLICY = { type: "ros/approximate-time", queueSize: 10 } as const;
const T0 = 1_700_000_000;

function input(topic: string, ns: number, message: unknown): PipelineInput {
  return { topic, receiveTime: { sec: T0 + Math.floor(ns / 1e9), nsec: ns % 1e9 }, message };
}

/**
 * Feeds `messages` to a pipeline of `config` with a recorder; returns the recorder, the tuples and
 * the drops by reason.
 */
function record(config: unknown, messages: readonly PipelineInput[]): { recorder: TraceRecorder; tuples: number; drops: Record<string, number> } {
  const parsed = parseConfig(config);
  const pipeline = new Pipeline(parsed);
  const recorder = new TraceRecorder(parsed);
  pipeline.use(recorder);
  let tuples = 0;
  const drops: Record<string, number> = {};
  pipeline.onTuple(() => tuples++);
  pipeline.onDrop((d) => {
    drops[d.reason] = (drops[d.reason] ?? 0) + 1;
  });
  for (const m of messages) {
    pipeline.push(m);
  }
  pipeline.finish();
  return { recorder, tuples, drops };
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
          const explainer = new DropExplainer(trace, parseConfig({ inputs, policy: POLICY }).policy);
          const x = explainer.explain(explainer.drops[0]!)!;
          expect(x.reason).toBe("no-header");
          expect(x.message).toContain(`"stamp": "receive" on ${x.topic}`);
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

  it("keeps them without a receive time when their receive times are on another clock than the header stamps (more than 52 days apart)", () => {
    const messages = [
      input("/a", 0, { data: 1 }),
      // sim-time header stamps, a few seconds after 0
      { topic: "/b", receiveTime: { sec: T0, nsec: 5 }, message: { header: { stamp: { sec: 3, nsec: 0 } } } },
      { topic: "/b", receiveTime: { sec: T0, nsec: 6 }, message: { header: { stamp: { sec: 4, nsec: 0 } } } },
    ];
    const { recorder } = record({ inputs: [{ topic: "/a" }, { topic: "/b" }], policy: POLICY }, messages);
    const trace = recorder.trace!;
    expect(trace.base.baseSec).toBe(0);
    expect(Array.from({ length: trace.length }, (_, i) => [trace.kind(i), Number.isNaN(trace.arrival(i))])).toEqual([
      ["no-header", true],
      ["stamped", false],
      ["stamped", false],
    ]);
  });
});

describe("TraceRecorder on header stamps the pipeline cannot use", () => {
  const h = (sec: number, nsec: number): unknown => ({ header: { stamp: { sec, nsec }, frame_id: "f" } });

  it("names stamps on another clock (sim time beside wall time) as such, with the sets receive times give", () => {
    const messages: PipelineInput[] = [];
    for (let k = 0; k < 60; k++) {
      const ns = k * 50_000_000;
      messages.push(input("/a", ns, h(T0 + Math.floor(ns / 1e9), ns % 1e9)));
      // /b's node runs on sim time: its stamps count from 100 s.
      messages.push(input("/b", ns + 2_000_000, h(100 + Math.floor(ns / 1e9), ns % 1e9)));
    }
    const inputs = [{ topic: "/a" }, { topic: "/b" }];
    const { recorder, tuples, drops } = record({ inputs, policy: POLICY }, messages);
    expect(tuples).toBe(0);
    expect(drops["invalid-stamp"]).toBe(60);
    const d = diagnose(recorder.trace!, parseConfig({ inputs, policy: POLICY }).policy);
    expect(d.facts.map((t) => [t.topic, t.offClockStamps, t.headerless])).toEqual([
      ["/a", 0, 0],
      ["/b", 60, 0],
    ]);
    const cause = d.causes.find((c) => c.id === "missing-stamps")!;
    expect(cause.topic).toBe("/b");
    expect(cause.message).toContain("/b has 60 messages stamped more than 52 days from the first stamps, on another clock");
    expect(cause.message).not.toContain("without a header");
    expect(cause.message).toContain('"stamp": "receive" on /b');
    const fixed = record({ inputs: [inputs[0]!, { topic: "/b", stamp: "receive" }], policy: POLICY }, messages);
    expect(fixed.tuples).toBeGreaterThan(0);
    expect(cause.setsLost).toBe(fixed.tuples);
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
                return input(topic, ns, h(sec, nsec));
              case "headerless":
                return input(topic, ns, { data: ns });
              case "zero":
                return input(topic, ns, h(0, 0));
              case "offClock":
                return input(topic, ns, h(100, nsec));
              case "undecodable":
                return { ...input(topic, ns, undefined), decodeError: "truncated" };
            }
          });
          const config = { inputs: [{ topic: "/a" }, { topic: "/b" }], policy };
          const { recorder, tuples, drops } = record(config, messages);
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

describe("the diagnosis of an input whose machine clock is off (stamps hours from the others')", () => {
  it("names the clock, costs it by a run with the clock set right, and its stopgap count is the pipeline's with receive-time stamps", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -36, max: 36 }).filter((tenths) => Math.abs(tenths) >= 2),
        fc.integer({ min: 0, max: 4 }),
        (tenthsOfHours, jitterMs) => {
          const offsetSec = tenthsOfHours * 360;
          const messages: PipelineInput[] = [];
          for (let k = 0; k < 80; k++) {
            const ns = k * 50_000_000;
            const wobble = ((k * 7) % (2 * jitterMs + 1)) - jitterMs;
            messages.push(input("/a", ns + 1_000_000, { header: { stamp: { sec: T0 + Math.floor(ns / 1e9), nsec: ns % 1e9 } } }));
            const b = ns + 5_000_000 + wobble * 1_000_000;
            messages.push(input("/b", b + 2_000_000, { header: { stamp: { sec: T0 + offsetSec + Math.floor(b / 1e9), nsec: b % 1e9 } } }));
          }
          const policy = { type: "python/approximate-time", queueSize: 10, slop: "20ms" };
          const inputs = [{ topic: "/a" }, { topic: "/b" }];
          const { recorder, tuples } = record({ inputs, policy }, messages);
          expect(tuples).toBe(0);
          const d = diagnose(recorder.trace!, parseConfig({ inputs, policy }).policy);
          const top = d.causes[0]!;
          expect([top.id, top.topic]).toEqual(["clock-offset", "/b"]);
          expect(top.message).toContain(`/b's stamps run ${Math.abs(offsetSec).toFixed(1)} s ${offsetSec > 0 ? "ahead of" : "behind"}`);
          // The offset it measured (the median latency against the other input's) is the true one
          // within the latencies and jitter; its cost is the pipeline's sets with /b's stamps moved by it.
          const offsetNs = top.evidence.offsetNs as number;
          expect(Math.abs(offsetNs - offsetSec * 1e9)).toBeLessThanOrEqual(10_000_000);
          const corrected = messages.map((m) => {
            const stamp = (m.message as { header: { stamp: { sec: number; nsec: number } } }).header.stamp;
            const ns = BigInt(stamp.sec) * 1_000_000_000n + BigInt(stamp.nsec) - BigInt(offsetNs);
            const moved = { sec: Number(ns / 1_000_000_000n), nsec: Number(ns % 1_000_000_000n) };
            return m.topic === "/b" ? { ...m, message: { header: { stamp: moved } } } : m;
          });
          expect(top.setsLost).toBe(record({ inputs, policy }, corrected).tuples - tuples);
          const received = record({ inputs: [inputs[0]!, { topic: "/b", stamp: "receive" }], policy }, messages).tuples;
          expect(top.evidence.tuplesReceiveStamps).toBe(received);
          expect(top.message).toContain(`"stamp": "receive" on /b gives ${received}`);
          // A wider limit only matches across the wrong clock: the headline does not offer it.
          expect(d.headline).not.toMatch(/Change|switch to/);
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe("the diagnosis of an input without a single message", () => {
  it("names it first, and counts what the other inputs alone give (the pipeline over them, per-slot parameters narrowed)", () => {
    fc.assert(
      fc.property(fc.constantFrom(0, 1, 2), fc.integer({ min: 20, max: 120 }), (silentSlot, count) => {
        const topics = ["/a", "/b", "/c"];
        const live = topics.filter((_, i) => i !== silentSlot);
        const messages: PipelineInput[] = [];
        for (let k = 0; k < count; k++) {
          const ns = k * 40_000_000;
          live.forEach((topic, j) => {
            const s = ns + j * 700_000;
            messages.push(input(topic, s + 1_000_000, { header: { stamp: { sec: T0 + Math.floor(s / 1e9), nsec: s % 1e9 } } }));
          });
        }
        const policy = { type: "fkie/approximate-time", maxQueueSize: 5, minDistance: ["10ms", "20ms", "30ms"] };
        const inputs = topics.map((topic) => ({ topic }));
        const { recorder, tuples } = record({ inputs, policy }, messages);
        expect(tuples).toBe(0);
        const d = diagnose(recorder.trace!, parseConfig({ inputs, policy }).policy);
        const top = d.causes[0]!;
        expect([top.id, top.topic]).toEqual(["silent-input", topics[silentSlot]]);
        // The oracle: the pipeline over the two live inputs, each keeping its own minDistance.
        const alone = record(
          { inputs: live.map((topic) => ({ topic })), policy: { ...policy, minDistance: policy.minDistance.filter((_, i) => i !== silentSlot) } },
          messages,
        ).tuples;
        expect(alone).toBeGreaterThan(0);
        expect(top.evidence.tuplesWithoutThem).toBe(alone);
        expect(d.headline).toBe(top.message);
        expect(top.message).toContain(`${topics[silentSlot]!} has no message`);
      }),
      { numRuns: 15 },
    );
  });

  it("with two inputs, names the silent one first although no set can be counted without it", () => {
    const messages = Array.from({ length: 30 }, (_, k) => input("/a", k * 50_000_000, { header: { stamp: { sec: T0, nsec: k * 30_000_000 } } }));
    const inputs = [{ topic: "/a" }, { topic: "/b" }];
    const { recorder } = record({ inputs, policy: POLICY }, messages);
    const d = diagnose(recorder.trace!, parseConfig({ inputs, policy: POLICY }).policy);
    expect([d.causes[0]!.id, d.causes[0]!.topic, d.causes[0]!.setsLost]).toEqual(["silent-input", "/b", 0]);
    expect(d.headline).toMatch(/^\/b has no message: every set needs one message of each input/);
  });
});
