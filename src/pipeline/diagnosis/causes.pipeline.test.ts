// The diagnosis of recordings whose stamps no parameter can fix (an input's machine clock off from
// the others', an input without a single message), with the pipeline as the oracle: each count a
// cause states is what the pipeline gives on the repaired messages.
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { diagnose } from "./diagnose";
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
