import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { isVerdict } from "./causes";
import { diagnose } from "./diagnose";
import { syntheticTrace } from "./testTraces";
import { parseConfig } from "../parseConfig";

const POLICY = parseConfig({ slots: 2, policy: { type: "ros/approximate-time", queueSize: 10 } }).policy;

/** The stamps k·period + offset (ms) below the end: the synthetic schedule, counted independently of the trace. */
function scheduled(periodMs: number, offsetMs: number, endMs: number, where: (ms: number) => boolean): number {
  let n = 0;
  for (let ms = offsetMs; ms < endMs; ms += periodMs) {
    n += where(ms) ? 1 : 0;
  }
  return n;
}

describe("the facts that an input starts late or ends early", () => {
  it("names an input starting late, with the others' messages stamped before its first, and costs no sets", () => {
    fc.assert(
      fc.property(fc.integer({ min: 12, max: 80 }), fc.integer({ min: 1, max: 9 }), (lateTenths, phase) => {
        const lateMs = lateTenths * 100 + phase; // at least 1.2 s, and ten of its 100 ms periods
        const trace = syntheticTrace([{ periodMs: 10 }, { periodMs: 100, offsetMs: lateMs }], 12_000);
        const d = diagnose(trace, POLICY);
        const fact = d.causes.find((c) => c.id === "starts-late");
        expect(fact?.topic).toBe("/topic1");
        expect(fact!.setsLost).toBe(0);
        expect(isVerdict(fact!)).toBe(false);
        const before = scheduled(10, 0, 12_000, (ms) => ms < lateMs);
        expect(fact!.evidence.messages).toEqual({ "/topic0": before });
        expect(fact!.message).toContain(`/topic1 starts `);
        expect(fact!.message).toContain(`: ${before.toLocaleString("en-US")} messages of /topic0 are stamped before its first message`);
        expect(d.causes.map((c) => c.id)).not.toContain("ends-early");
      }),
      { numRuns: 20 },
    );
  });

  it("names an input ending early, with the others' messages stamped after its last", () => {
    fc.assert(
      fc.property(fc.integer({ min: 30, max: 90 }), (untilTenths) => {
        const untilMs = untilTenths * 100 + 50;
        const trace = syntheticTrace([{ periodMs: 10 }, { periodMs: 100, offsetMs: 3, untilMs }], 12_000);
        const d = diagnose(trace, POLICY);
        const fact = d.causes.find((c) => c.id === "ends-early");
        // /topic1's last stamp: the last k·100 + 3 below untilMs.
        const lastMs = 3 + Math.floor((untilMs - 1 - 3) / 100) * 100;
        const after = scheduled(10, 0, 12_000, (ms) => ms > lastMs);
        expect(fact?.topic).toBe("/topic1");
        expect(fact!.evidence.messages).toEqual({ "/topic0": after });
        expect(fact!.message).toContain(`: ${after.toLocaleString("en-US")} messages of /topic0 are stamped after its last message`);
        expect(d.causes.map((c) => c.id)).not.toContain("starts-late");
      }),
      { numRuns: 20 },
    );
  });

  it("says nothing of a phase: a start under 1 s, or under ten of the input's own periods, after the others'", () => {
    for (const inputs of [
      [{ periodMs: 10 }, { periodMs: 100, offsetMs: 900 }],
      [{ periodMs: 10 }, { periodMs: 400, offsetMs: 3_500 }],
      [{ periodMs: 10 }, { periodMs: 400, offsetMs: 3, untilMs: 8_500 }],
    ]) {
      const d = diagnose(syntheticTrace(inputs, 12_000), POLICY);
      expect(d.causes.map((c) => c.id)).not.toContain("starts-late");
      expect(d.causes.map((c) => c.id)).not.toContain("ends-early");
    }
  });
});
