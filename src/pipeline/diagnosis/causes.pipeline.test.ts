// The diagnosis of recordings whose stamps no parameter can fix (an input's machine clock off from
// the others', an input without a single message), with the pipeline as the oracle: each count a
// cause states is what the pipeline gives on the repaired messages.
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { diagnose } from "./diagnose";
import { DropExplainer } from "./explainDrop";
import { parseConfig } from "../parseConfig";
import type { PipelineInput } from "../types";
import { receivedAt, recordThroughPipeline, T0 } from "./testTraces";

const POLICY = { type: "ros/approximate-time", queueSize: 10 } as const;

/** The messages with each listed topic's header stamps moved back by its clock offset (ns). */
function withClocksSetRight(messages: readonly PipelineInput[], offsetsNs: Readonly<Record<string, number>>): PipelineInput[] {
  return messages.map((m) => {
    const by = offsetsNs[m.topic];
    if (by == undefined) {
      return m;
    }
    const stamp = (m.message as { header: { stamp: { sec: number; nsec: number } } }).header.stamp;
    const ns = BigInt(stamp.sec) * 1_000_000_000n + BigInt(stamp.nsec) - BigInt(by);
    return { ...m, message: { header: { stamp: { sec: Number(ns / 1_000_000_000n), nsec: Number(ns % 1_000_000_000n) } } } };
  });
}

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
            messages.push(receivedAt("/a", ns + 1_000_000, { header: { stamp: { sec: T0 + Math.floor(ns / 1e9), nsec: ns % 1e9 } } }));
            const b = ns + 5_000_000 + wobble * 1_000_000;
            messages.push(receivedAt("/b", b + 2_000_000, { header: { stamp: { sec: T0 + offsetSec + Math.floor(b / 1e9), nsec: b % 1e9 } } }));
          }
          const policy = { type: "python/approximate-time", queueSize: 10, slop: "20ms" };
          const inputs = [{ topic: "/a" }, { topic: "/b" }];
          const { recorder, tuples } = recordThroughPipeline({ inputs, policy }, messages);
          expect(tuples).toBe(0);
          const d = diagnose(recorder.trace!, parseConfig({ inputs, policy }).policy);
          const top = d.causes[0]!;
          expect([top.id, top.topic]).toEqual(["clock-offset", "/b"]);
          expect(top.message).toContain(`/b's stamps run ${Math.abs(offsetSec).toFixed(1)} s ${offsetSec > 0 ? "ahead of" : "behind"}`);
          // The offset it measured (the median latency against the other input's) is the true one
          // within the latencies and jitter; its cost is the pipeline's sets with /b's stamps moved by it.
          const offsetNs = top.evidence.offsetNs as number;
          expect(Math.abs(offsetNs - offsetSec * 1e9)).toBeLessThanOrEqual(10_000_000);
          const corrected = withClocksSetRight(messages, { "/b": offsetNs });
          expect(top.setsLost).toBe(recordThroughPipeline({ inputs, policy }, corrected).tuples - tuples);
          const received = recordThroughPipeline({ inputs: [inputs[0]!, { topic: "/b", stamp: "receive" }], policy }, messages).tuples;
          expect(top.evidence.tuplesReceiveStamps).toBe(received);
          expect(top.stampFix).toEqual({ stamps: { "/b": "receive" }, tuples: received });
          expect(top.message).toContain(`"stamp": "receive" on /b gives ${received}`);
          // A wider limit only matches across the wrong clock: the headline does not offer it.
          expect(d.headline).not.toMatch(/Change|switch to/);
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe("the diagnosis of two inputs from a second machine whose clock is off", () => {
  it("names both against the input on the recorder's clock; each count is the pipeline's", () => {
    const messages: PipelineInput[] = [];
    const stamp = (ns: number, offsetSec: number): unknown => ({ header: { stamp: { sec: T0 + offsetSec + Math.floor(ns / 1e9), nsec: ns % 1e9 } } });
    for (let k = 0; k < 60; k++) {
      const ns = k * 50_000_000;
      messages.push(receivedAt("/a", ns + 1_000_000, stamp(ns, 0)));
      // /b and /c come from a computer whose clock runs 40 minutes ahead.
      messages.push(receivedAt("/b", ns + 3_000_000, stamp(ns + 1_000_000, 2400)));
      messages.push(receivedAt("/c", ns + 4_000_000, stamp(ns + 2_000_000, 2400)));
    }
    const inputs = [{ topic: "/a" }, { topic: "/b" }, { topic: "/c" }];
    const policy = { type: "fkie/approximate-time", maxTimespan: "10ms" };
    const { recorder, tuples } = recordThroughPipeline({ inputs, policy }, messages);
    expect(tuples).toBe(0);
    const d = diagnose(recorder.trace!, parseConfig({ inputs, policy }).policy);
    const top = d.causes[0]!;
    expect(top.id).toBe("clock-offset");
    expect(top.message).toMatch(/^The stamps of \/b \(2400\.0 s ahead\) and \/c \(2400\.0 s ahead\) are off from \/a's/);
    const offsets = top.evidence.offsetsNs as Record<string, number>;
    expect(Object.keys(offsets).sort()).toEqual(["/b", "/c"]);
    const moved = withClocksSetRight(messages, offsets);
    expect(top.setsLost).toBe(recordThroughPipeline({ inputs, policy }, moved).tuples - tuples);
    expect(top.setsLost).toBeGreaterThan(0);
    const received = recordThroughPipeline({ inputs: [inputs[0]!, { topic: "/b", stamp: "receive" }, { topic: "/c", stamp: "receive" }], policy }, messages).tuples;
    expect(top.stampFix).toEqual({ stamps: { "/b": "receive", "/c": "receive" }, tuples: received });
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
            messages.push(receivedAt(topic, s + 1_000_000, { header: { stamp: { sec: T0 + Math.floor(s / 1e9), nsec: s % 1e9 } } }));
          });
        }
        const policy = { type: "fkie/approximate-time", maxQueueSize: 5, minDistance: ["10ms", "20ms", "30ms"] };
        const inputs = topics.map((topic) => ({ topic }));
        const { recorder, tuples } = recordThroughPipeline({ inputs, policy }, messages);
        expect(tuples).toBe(0);
        const d = diagnose(recorder.trace!, parseConfig({ inputs, policy }).policy);
        const top = d.causes[0]!;
        expect([top.id, top.topic]).toEqual(["silent-input", topics[silentSlot]]);
        // The oracle: the pipeline over the two live inputs, each keeping its own minDistance.
        const alone = recordThroughPipeline(
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
    const messages = Array.from({ length: 30 }, (_, k) => receivedAt("/a", k * 50_000_000, { header: { stamp: { sec: T0, nsec: k * 30_000_000 } } }));
    const inputs = [{ topic: "/a" }, { topic: "/b" }];
    const { recorder } = recordThroughPipeline({ inputs, policy: POLICY }, messages);
    const d = diagnose(recorder.trace!, parseConfig({ inputs, policy: POLICY }).policy);
    expect([d.causes[0]!.id, d.causes[0]!.topic, d.causes[0]!.setsLost]).toEqual(["silent-input", "/b", 0]);
    expect(d.headline).toMatch(/^\/b has no message: every set needs one message of each input/);
  });
});

describe("the diagnosis when receive times are on another clock than every stamp (a live app beside sim time)", () => {
  it("its receive-time fix puts every input on receive times, and the pipeline with that fix gives the sets it promises", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 4 }), (simStartSec, jitterMs) => {
        const messages: PipelineInput[] = [];
        for (let k = 1; k <= 40; k++) {
          const ns = k * 50_000_000;
          const wobble = ((k * 7) % (2 * jitterMs + 1)) - jitterMs;
          // /a stamped on sim time, /b without a header; both received on the wall clock (T0 on).
          messages.push(receivedAt("/a", ns + 1_000_000, { header: { stamp: { sec: simStartSec + Math.floor(ns / 1e9), nsec: ns % 1e9 } } }));
          messages.push(receivedAt("/b", ns + 2_000_000 + wobble * 1_000_000, { data: k }));
        }
        const inputs = [{ topic: "/a" }, { topic: "/b" }];
        const { recorder, tuples } = recordThroughPipeline({ inputs, policy: POLICY }, messages);
        expect(tuples).toBe(0);
        expect(recorder.trace!.receiveClockOffsetSec).not.toBe(0);
        const d = diagnose(recorder.trace!, parseConfig({ inputs, policy: POLICY }).policy);
        const cause = d.causes.find((c) => c.id === "missing-stamps")!;
        expect(cause.stampFix?.stamps).toEqual({ "/a": "receive", "/b": "receive" });
        // The oracle: the pipeline with the fix applied.
        const fixed = recordThroughPipeline({ inputs: inputs.map((i) => ({ ...i, stamp: "receive" })), policy: POLICY }, messages);
        expect(fixed.tuples).toBeGreaterThan(0);
        expect(cause.stampFix?.tuples).toBe(fixed.tuples);
        expect(cause.setsLost).toBe(fixed.tuples);
        expect(cause.message).toContain('"stamp": "receive" on every input');
        // Stamping only the headerless input, as a recording on one clock would, gives nothing here.
        const half = recordThroughPipeline({ inputs: [inputs[0]!, { topic: "/b", stamp: "receive" }], policy: POLICY }, messages);
        expect(half.tuples).toBe(0);
      }),
      { numRuns: 15 },
    );
  });
});

describe("the diagnosis of inputs that give the policy nothing, and of headerless messages a policy takes", () => {
  const stamp = (ns: number): unknown => ({ header: { stamp: { sec: T0 + Math.floor(ns / 1e9), nsec: ns % 1e9 } } });
  /** Stamped messages every `period` ms on each topic over 2 s, received 0.1 ms after their stamps. */
  const every = (topics: readonly [string, number][]): PipelineInput[] => {
    const out: PipelineInput[] = [];
    for (let ms = 0; ms < 2000; ms++) {
      for (const [topic, period] of topics) {
        if (ms % period === 0) {
          out.push(receivedAt(topic, ms * 1e6 + 1e5, stamp(ms * 1e6)));
        }
      }
    }
    return out;
  };
  const diagnosed = (inputs: { topic: string }[], policy: unknown, messages: PipelineInput[]) => {
    const { recorder, tuples } = recordThroughPipeline({ inputs, policy }, messages);
    return { tuples, d: diagnose(recorder.trace!, parseConfig({ inputs, policy }).policy) };
  };
  const three = [{ topic: "/a" }, { topic: "/b" }, { topic: "/c" }];

  it("counts the other inputs alone with the latch's trigger renumbered onto them, and not at all when the trigger is the silent input", () => {
    const messages = every([["/b", 10], ["/c", 50]]);
    const { tuples, d } = diagnosed(three, { type: "fkie/latch", trigger: 1 }, messages);
    expect(tuples).toBe(0);
    const alone = recordThroughPipeline({ inputs: three.slice(1), policy: { type: "fkie/latch", trigger: 0 } }, messages).tuples;
    expect(alone).toBeGreaterThan(0);
    const cause = d.causes[0]!;
    expect([cause.id, cause.topic, cause.evidence.tuplesWithoutThem]).toEqual(["silent-input", "/a", alone]);
    // An arrival policy has no stamp parameter to search, but the silent input is still the verdict.
    expect(d.headline).toBe(cause.message);
    const onSilent = diagnosed(three, { type: "fkie/latch", trigger: 0 }, messages).d.causes[0]!;
    expect([onSilent.id, onSilent.evidence.tuplesWithoutThem]).toEqual(["silent-input", null]);
  });

  it("narrows a per-slot group (ros/latest-time's rateConfig) to the inputs left", () => {
    const messages = every([["/a", 10], ["/c", 50]]);
    const rateConfig = [{ alphaRate: 0.9 }, { alphaRate: 0.5 }, { alphaRate: 0.7 }];
    const { d } = diagnosed(three, { type: "ros/latest-time", rateConfig }, messages);
    const alone = recordThroughPipeline(
      { inputs: [three[0]!, three[2]!], policy: { type: "ros/latest-time", rateConfig: [rateConfig[0]!, rateConfig[2]!] } },
      messages,
    ).tuples;
    expect(alone).toBeGreaterThan(0);
    expect([d.causes[0]!.id, d.causes[0]!.topic, d.causes[0]!.evidence.tuplesWithoutThem]).toEqual(["silent-input", "/b", alone]);
  });

  it("names every input when none has a message although /tf fixed the time base", () => {
    const tf = receivedAt("/tf", 1e6, {
      transforms: [
        {
          header: { stamp: { sec: T0, nsec: 0 }, frame_id: "odom" },
          child_frame_id: "base_link",
          transform: { translation: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
        },
      ],
    });
    const { d } = diagnosed([{ topic: "/a" }, { topic: "/b" }], POLICY, [tf]);
    expect([d.causes[0]!.id, d.causes[0]!.evidence.silent]).toEqual(["silent-input", ["/a", "/b"]]);
    expect(d.headline).toMatch(/^\/a and \/b have no message: .* published under those names/);
  });

  it("names an input none of whose messages decodes", () => {
    const messages: PipelineInput[] = [];
    for (let k = 0; k < 50; k++) {
      messages.push(receivedAt("/a", k * 2e7 + 1e5, stamp(k * 2e7)));
      messages.push({ ...receivedAt("/b", k * 2e7 + 2e5, undefined), decodeError: "bad bytes" });
    }
    const { tuples, d } = diagnosed([{ topic: "/a" }, { topic: "/b" }], POLICY, messages);
    expect(tuples).toBe(0);
    expect([d.causes[0]!.id, d.causes[0]!.topic, d.causes[0]!.evidence.undecodable]).toEqual(["silent-input", "/b", ["/b"]]);
    expect(d.headline).toMatch(/^None of \/b's 50 messages decodes: every set needs one message of each input/);
  });

  it("does not call headerless messages unusable for a policy that matches them by receive time, and explains a no-header drop with allowHeaderless", () => {
    const messages: PipelineInput[] = [];
    for (let k = 0; k < 50; k++) {
      messages.push(receivedAt("/a", k * 2e7 + 1e5, stamp(k * 2e7)));
      messages.push(receivedAt("/b", k * 2e7 + 2e5, { data: k }));
    }
    const inputs = [{ topic: "/a" }, { topic: "/b" }];
    const takes = { type: "python/approximate-time", queueSize: 10, slop: "5ms", allowHeaderless: true };
    const { tuples, d } = diagnosed(inputs, takes, messages);
    expect(tuples).toBeGreaterThan(0);
    expect(d.causes.map((c) => c.id)).not.toContain("missing-stamps");
    // Without allowHeaderless the drop's explanation names the policy's own switch.
    const refuses = { ...takes, allowHeaderless: false };
    const { recorder } = recordThroughPipeline({ inputs, policy: refuses }, messages);
    const explainer = new DropExplainer(recorder.trace!, parseConfig({ inputs, policy: refuses }).policy);
    const first = explainer.explain(explainer.drops[0]!)!;
    expect([first.topic, first.reason]).toEqual(["/b", "no-header"]);
    expect(first.message).toContain("allowHeaderless true matches headerless messages by their receive time");
  });
});
