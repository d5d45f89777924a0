// The 8 × 1 kHz live load in the hand-written host (the real apps cannot generate it): functional
// checks only. Render times and heap figures are `lockstep bench panel`'s (no timing in tests).
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runSyntheticLoad, startSyntheticHost, type SyntheticHost } from "./syntheticLoad";

const TOPICS = 8;
const HZ = 1000;
const SECONDS = 30;

let host: SyntheticHost | undefined;

beforeAll(async () => {
  host = await startSyntheticHost();
}, 600_000);

afterAll(async () => {
  await host?.close();
});

describe("Lockstep panel under a live 8 × 1 kHz feed (test host, chromium)", () => {
  it("answers every render, synchronizes, and accounts for every message it was given", async () => {
    const report = await runSyntheticLoad(host!, { topics: TOPICS, hz: HZ, seconds: SECONDS, fps: 60, measureHeap: false });
    expect(report.errors).toEqual([]);
    expect(report.fed.messages).toBeGreaterThanOrEqual(TOPICS * HZ * SECONDS);
    // Every render state got its `done` (the host counts the renders that completed).
    expect(report.renders).toBe(report.fed.renders);
    expect(report.tuples).toBeGreaterThan(0);
    // Nothing vanishes: what the engine did not analyze is counted as skipped and shown.
    expect(report.received + report.skipped).toBe(report.fed.messages);
  }, 600_000);
});
